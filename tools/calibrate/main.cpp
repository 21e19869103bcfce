// tools/calibrate/main.cpp — tcec-calibrate: measures the machine it runs on and writes a
// `machine` block for tcec (issue 18).
//
//   mpirun -np P tcec-calibrate [--scratch DIR] [--memory SIZE] [--regime page-cache|device] [--quick] -o FILE.machine
//
// Every rank takes part in every measurement at once (measure.h); rank 0 prints each figure as
// it goes and writes FILE (to FILE.tmp-<pid>, renamed when complete).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include "device.h"
#include "machine_file.h"
#include "measure.h"
#include "runtime/base/error.h"
#include "runtime/comm/comm.h"
#include "runtime/program/main_guard.h"
#include "runtime/program/options.h"
#include "runtime/program/tensor_store.h"
#include "tools/diagnostics.h"

namespace {

using tcec::calibrate::Measured;

/// "64 MB", "64MB", "1 GiB", "1000000" (bytes) → bytes; nullopt when not a size.
std::optional<std::uint64_t> parse_size(std::string text) {
  std::erase(text, ' ');
  std::size_t end = 0;
  double value = 0;
  try {
    value = std::stod(text, &end);
  } catch (...) {
    return std::nullopt;
  }
  const std::string unit = text.substr(end);
  const std::pair<const char*, double> units[] = {
      {"", 1},     {"B", 1},        {"KB", 1e3},        {"MB", 1e6},
      {"GB", 1e9}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  for (auto [name, factor] : units)
    if (unit == name && value > 0) return static_cast<std::uint64_t>(value * factor);
  return std::nullopt;
}

/// This node's MemAvailable (bytes), 0 when unknown.
std::uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

/// Ranks sharing this rank's node.
int ranks_on_node(const tcert::Context& ctx) {
  MPI_Comm node;
  MPI_Comm_split_type(ctx.comm(), MPI_COMM_TYPE_SHARED, ctx.rank(), MPI_INFO_NULL, &node);
  int size = 1;
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  return size;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

void write_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temp);
    out << text;
    if (!out.flush()) throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_calibrate_write, temp));
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) {
    std::filesystem::remove(temp);
    throw tcert::Error(
        tcec::tools::message_text(tcec::tools::ToolDiag::err_calibrate_rename, temp, path, error.message()));
  }
}

/// The command line.
struct Args {
  std::string output, scratch, memory, json;
  std::string regime = "page-cache";  ///< --regime: which disk figures the machine block takes
  bool quick = false;
};

/// Parses the command line (rank 0 prints help and errors); the scratch directory defaults to
/// $TMPDIR or /tmp. Throws tcert::ExitRequest after --help (0) or a bad command line (2; other
/// ranks 1 per CLI11's code).
Args parse_args(const tcert::Context& ctx, int argc, char** argv) {
  CLI::App app{
      "tcec-calibrate: measures disk, network, collectives, the tile kernel and how far disk reads overlap it "
      "on this machine with all "
      "ranks at once, through the code paths tcec's generated programs use, and writes a machine block "
      "for tcec --machine. Run it as the programs will run: mpirun -np P tcec-calibrate -o FILE.machine"};
  Args a;
  app.add_option("-o,--output", a.output, "Write the machine block to FILE")->required()->type_name("FILE");
  app.add_option("--scratch", a.scratch,
                 "Directory for the disk measurement, created if missing (default: $TMPDIR or /tmp)")
      ->type_name("DIR");
  app.add_option("--memory", a.memory,
                 "Tile memory per rank for the machine block, e.g. '64 MB' (default: a quarter of the "
                 "node's available memory over its ranks, at most 1 GB)")
      ->type_name("SIZE");
  app.add_option("--regime", a.regime,
                 "Which disk figures the machine block takes: page-cache (programs whose tensors fit in the "
                 "node's memory) or device (out of core: the device past the page cache, as programs stream "
                 "tensors larger than their memory; docs/out-of-core.md)")
      ->check(CLI::IsMember({"page-cache", "device"}))
      ->capture_default_str();
  app.add_flag("--quick", a.quick, "Small sizes (seconds, for tests): the figures are rougher");
  app.add_option("--json", a.json,
                 "Also write every figure as JSON to FILE, each with its unit and, for the disk, the regime it "
                 "describes: \"page cache\" or \"device\" (docs/out-of-core.md)")
      ->type_name("FILE");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = ctx.rank() == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
    throw tcert::ExitRequest{code};
  }
  if (a.scratch.empty()) a.scratch = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  return a;
}

/// What is known before measuring: the ranks, the tile memory per rank (from --memory, or a
/// quarter of the node's available memory over its `local` ranks, at most 1 GB; whole MB), the
/// measurements' sizes (smaller with --quick), the host and the date. Throws tcert::Error for a
/// --memory that is not a size.
Measured start_measured(const tcert::Context& ctx, const Args& a, int local) {
  Measured m;
  m.processors = ctx.size();
  m.device_regime = a.regime == "device";
  if (!a.memory.empty()) {
    const std::optional<std::uint64_t> bytes = parse_size(a.memory);
    if (!bytes) throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_calibrate_memory, a.memory));
    m.memory_bytes = *bytes, m.memory_how = "per rank for tiles, from --memory";
  } else {
    m.memory_bytes = std::min<std::uint64_t>(available_memory() / static_cast<std::uint64_t>(4 * local), 1000000000);
    m.memory_how = fmt::format("per rank for tiles: a quarter of the node's available memory over its {} ranks", local);
  }
  m.memory_bytes = std::max<std::uint64_t>(m.memory_bytes / 1000000, 1) * 1000000;  // whole MB, as written
  m.disk_bytes = a.quick ? 16000000 : 64000000;
  m.device_bytes = (a.quick ? std::uint64_t{16} : 256) << 20;  // past the page cache: whole 4 MiB requests
  m.message_bytes = a.quick ? 4000000 : 16000000;
  m.kernel_n = a.quick ? 256 : 768;
  char host[256] = "unknown";
  ::gethostname(host, sizeof host - 1);
  m.host = host;
  m.date = utc_now();
  m.reported_to_host_kib = tcec::calibrate::reported_to_host_kib();
  return m;
}

/// Rank 0 prints "tcec-calibrate: WHAT" (stderr).
void report(const tcert::Context& ctx, const std::string& what) {
  if (ctx.rank() == 0) tcec::tools::report_plain("tcec-calibrate", tcec::tools::ToolDiag::err_formed, what);
}

/// Measures the disk past the page cache (device.h) in `scratch` into m.device, reporting it.
void measure_past_cache(const tcert::Context& ctx, const std::string& scratch, Measured& m) {
  m.device = tcec::calibrate::measure_device(ctx, scratch, m.device_bytes);
  const tcec::calibrate::DeviceFigures& d = m.device;
  const bool device = tcec::calibrate::read_from_device(d.cold_read_device_bytes, d.bytes);
  const std::string direct = d.direct_read_bytes_per_s < 0
                                 ? std::string("O_DIRECT refused")
                                 : fmt::format("O_DIRECT read {:.0f} MB/s, write {:.0f} MB/s, both at once {:.0f} MB/s",
                                               d.direct_read_bytes_per_s / 1e6, d.direct_write_bytes_per_s / 1e6,
                                               d.direct_mixed_bytes_per_s / 1e6);
  report(ctx, fmt::format("past the page cache ({} regime): {}; buffered write through fdatasync {:.0f} MB/s, read of "
                          "dropped pages {:.0f} MB/s (the device read {:.2f} MB of {:.2f} MB)",
                          device ? "device" : "page cache: no device behind the file system", direct,
                          d.synced_write_bytes_per_s / 1e6, d.cold_read_bytes_per_s / 1e6,
                          static_cast<double>(d.cold_read_device_bytes) / 1e6, static_cast<double>(d.bytes) / 1e6));
}

/// The nodes the ranks span (the groups that see one `scratch`, nodes_by_view()) and, on several,
/// the network within each node and between them into `m` (Measured::ranks_per_node), reporting
/// them. Collective.
void measure_nodes(const tcert::Context& ctx, const std::string& scratch, Measured& m) {
  const std::vector<int> node_of = tcert::nodes_by_view(ctx, scratch);
  m.nodes = *std::max_element(node_of.begin(), node_of.end()) + 1;
  if (m.nodes < 2) return;
  std::vector<int> local_of(node_of.size()), size_of(static_cast<std::size_t>(m.nodes), 0);
  for (std::size_t r = 0; r < node_of.size(); ++r) local_of[r] = size_of[static_cast<std::size_t>(node_of[r])]++;
  const int me = ctx.rank(), R = size_of[0];
  bool in_order = true;  // rank / R, as the model numbers them (Machine::node_of())
  for (std::size_t r = 0; r < node_of.size(); ++r) in_order = in_order && node_of[r] == static_cast<int>(r) / R;
  tcert::Context within = ctx.split(node_of[static_cast<std::size_t>(me)], me);
  tcert::Context across = ctx.split(local_of[static_cast<std::size_t>(me)], me);
  // Every group at once; the slowest rank of any group sets the figure (a rank alone in its group: none).
  const double intra = within.size() > 1 ? tcec::calibrate::measure_network(within, m.message_bytes) : 0;
  const double inter = across.size() > 1 ? tcec::calibrate::measure_network(across, m.message_bytes) : 0;
  tcert::Context::free_split(within);
  tcert::Context::free_split(across);
  const double slowest_intra = -ctx.max_over_ranks(intra > 0 ? -intra : -1e300);
  const double slowest_inter = -ctx.max_over_ranks(inter > 0 ? -inter : -1e300);
  if (slowest_intra < 1e299) m.network_bytes_per_s = slowest_intra;
  m.internode_network_bytes_per_s = slowest_inter < 1e299 ? slowest_inter : m.network_bytes_per_s;
  m.ranks_per_node = in_order ? R : 0;
  report(ctx, fmt::format("nodes: {} (ranks that see one scratch directory{}); network {:.0f} MB/s within a node, "
                          "{:.0f} MB/s between nodes",
                          m.nodes, in_order ? fmt::format(", {} per node in rank order", R) : ", not in rank order",
                          m.network_bytes_per_s / 1e6, m.internode_network_bytes_per_s / 1e6));
  if (!in_order)
    report(ctx, "nodes: not written into the machine block: its ranks_per_node R puts rank r on node r / R");
}

/// Measures the disk (in `scratch`; the page cache's figures, then past it), the network and the
/// collectives into `m`, reporting each.
void measure_transfers(const tcert::Context& ctx, const std::string& scratch, Measured& m) {
  const tcec::calibrate::DiskFigures disk = tcec::calibrate::measure_disk(ctx, scratch, m.disk_bytes);
  m.disk_read_bytes_per_s = disk.read_bytes_per_s, m.disk_write_bytes_per_s = disk.write_bytes_per_s;
  m.disk_pwrite_bytes_per_s = disk.pwrite_bytes_per_s, m.disk_rewrite_bytes_per_s = disk.rewrite_bytes_per_s;
  m.disk_reused_write_bytes_per_s = disk.reused_write_bytes_per_s;
  m.disk_latency_s = disk.latency_s, m.disk_pread_latency_s = disk.pread_latency_s, m.disk_fault_s = disk.fault_s;
  m.disk_read_device_bytes = disk.read_device_bytes;
  report(ctx,
         fmt::format("disk: write {:.0f} MB/s (a second file {:.0f}, pwrite {:.0f}, in place {:.0f}), read {:.0f} MB/s "
                     "per rank, {:.3f} us per mapped run ({:.3f} per 64 KiB page fault, {:.3f} per 8 KB read)",
                     disk.write_bytes_per_s / 1e6, disk.reused_write_bytes_per_s / 1e6, disk.pwrite_bytes_per_s / 1e6,
                     disk.rewrite_bytes_per_s / 1e6, disk.read_bytes_per_s / 1e6, disk.latency_s * 1e6,
                     disk.fault_s * 1e6, disk.pread_latency_s * 1e6));
  if (disk.read_device_bytes >= 0)
    report(ctx, fmt::format(
                    "disk figures above: the {} regime (the device read {:.2f} MB of the read's {:.2f} MB)",
                    tcec::calibrate::read_from_device(static_cast<std::uint64_t>(disk.read_device_bytes), m.disk_bytes)
                        ? "device"
                        : "page cache",
                    static_cast<double>(disk.read_device_bytes) / 1e6, static_cast<double>(m.disk_bytes) / 1e6));
  measure_past_cache(ctx, scratch, m);
  m.network_bytes_per_s = tcec::calibrate::measure_network(ctx, m.message_bytes);
  if (m.network_bytes_per_s <= 0) m.network_bytes_per_s = 1e12;  // one rank: the model moves nothing
  report(ctx, fmt::format("network: {:.0f} MB/s per rank", m.network_bytes_per_s / 1e6));
  measure_nodes(ctx, scratch, m);
  const tcec::calibrate::CollectiveFactors f =
      tcec::calibrate::measure_collectives(ctx, m.message_bytes / 4, m.network_bytes_per_s);
  m.replication_factor = f.replication, m.reduction_factor = f.reduction;
  report(ctx, fmt::format("collectives: f_rep {:.3f}, f_red {:.3f}", f.replication, f.reduction));
}

/// Measures the tile kernel (m.kernel_n and 64), memory streaming, and how far disk reads from
/// `scratch` overlap the kernel (through the page cache, and with O_DIRECT) into `m`,
/// reporting each.
void measure_compute(const tcert::Context& ctx, const std::string& scratch, Measured& m) {
  m.flops_per_s = tcec::calibrate::measure_kernel(ctx, static_cast<std::size_t>(m.kernel_n));
  m.small_flops_per_s = tcec::calibrate::measure_kernel(ctx, 64);
  m.memory_bytes_per_s = tcec::calibrate::measure_memory(ctx);
  report(ctx,
         fmt::format("kernel: {:.2f} GFLOP/s per rank ({:.2f} on 64x64x64 tiles); streaming {:.0f} MB/s on a short K",
                     m.flops_per_s / 1e9, m.small_flops_per_s / 1e9, m.memory_bytes_per_s / 1e6));
  const tcec::calibrate::OverlapFigures o =
      tcec::calibrate::measure_overlap(ctx, scratch, m.disk_bytes / 2, static_cast<std::size_t>(m.kernel_n));
  m.overlap = o.overlap, m.overlap_disk_s = o.disk_s, m.overlap_kernel_s = o.kernel_s, m.overlap_both_s = o.both_s;
  report(ctx, fmt::format("overlap: {:.3f} (disk reads on an I/O thread {:.3f} s, kernel {:.3f} s, both {:.3f} s)",
                          o.overlap, o.disk_s, o.kernel_s, o.both_s));
  // The same with O_DIRECT reads, for the comment: whether the device moves data beside the
  // kernel where the page cache's copies cannot (programs read through the page cache).
  const tcec::calibrate::OverlapFigures d = tcec::calibrate::measure_overlap(
      ctx, scratch, m.disk_bytes / 2, static_cast<std::size_t>(m.kernel_n), /*direct=*/true);
  m.direct_read_bytes_per_s = d.read_bytes_per_s, m.direct_overlap = d.direct ? d.overlap : -1;
  report(ctx, d.direct ? fmt::format("overlap with O_DIRECT reads: {:.3f} ({:.0f} MB/s per rank; disk {:.3f} s, kernel "
                                     "{:.3f} s, both {:.3f} s)",
                                     d.overlap, d.read_bytes_per_s / 1e6, d.disk_s, d.kernel_s, d.both_s)
                       : std::string("overlap with O_DIRECT reads: O_DIRECT refused by the scratch file system"));
}

}  // namespace

int main(int argc, char** argv) {
  return tcert::run_program(argc, argv, [&](const tcert::Context& ctx) {
    const Args a = parse_args(ctx, argc, argv);
    ctx.check_all([&] {  // as generated programs make their --scratch DIR
      std::error_code ec;
      std::filesystem::create_directories(a.scratch, ec);
      if (ec)
        throw tcert::Error(
            tcec::tools::message_text(tcec::tools::ToolDiag::err_calibrate_scratch, a.scratch, ec.message()));
    });
    const int local = ranks_on_node(ctx);
    Measured m = start_measured(ctx, a, local);
    report(ctx, fmt::format("{} ranks ({} on this node); disk in {}", ctx.size(), local, a.scratch));
    measure_transfers(ctx, a.scratch, m);
    measure_compute(ctx, a.scratch, m);
    if (m.device_regime && m.device.bytes == 0)
      throw tcert::Error("--regime device: the device past the page cache could not be measured in " + a.scratch);
    if (ctx.rank() == 0) {
      write_atomically(a.output, tcec::calibrate::machine_text(m));
      report(ctx, "wrote " + a.output);
      if (!a.json.empty()) {
        write_atomically(a.json, tcec::calibrate::machine_json(m).dump(2) + "\n");
        report(ctx, "wrote " + a.json);
      }
    }
    ctx.barrier();
    return 0;
  });
}
