// tools/calibrate/machine_file.cpp — the calibrated machine block as text.
#include "machine_file.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

namespace tcec::calibrate {

namespace {

std::string mb(double bytes) { return fmt::format("{:.2f}", bytes / 1e6); }

/// Whether the file system of the disk figures has a device behind it: the cold read (after its
/// pages were dropped) came from the device. Writes timed through fdatasync are then the device's.
bool has_device(const Measured& m) { return read_from_device(m.device.cold_read_device_bytes, m.device.bytes); }

/// The header comment on the two regimes (only when the device was measured): which regime the
/// block's disk figures describe, and the device's own figures.
std::string regime_comment(const Measured& m) {
  const DeviceFigures& d = m.device;
  if (d.bytes == 0) return "";
  std::string out;
  if (m.device_regime) {
    out +=
        "# Regimes (docs/out-of-core.md): --regime device: disk_read, disk_write, disk_latency, page_fault and\n"
        "# overlap describe the device past the page cache, as programs whose tensors do not fit see the disk.\n";
  } else if (m.disk_read_device_bytes >= 0) {
    const bool device = read_from_device(static_cast<std::uint64_t>(m.disk_read_device_bytes), m.disk_bytes);
    out += fmt::format(
        "# Regimes (docs/out-of-core.md): disk_read, disk_write, disk_latency and page_fault describe {} (the device "
        "read\n"
        "# {} MB of disk_read's {} MB per rank){}.\n",
        device ? "the device" : "the page cache", mb(static_cast<double>(m.disk_read_device_bytes)),
        mb(static_cast<double>(m.disk_bytes)),
        device ? ": the page cache did not hold the file" : ", as programs whose tensors fit in memory see the disk");
  }
  const std::string direct =
      d.direct_read_bytes_per_s < 0
          ? std::string("O_DIRECT refused here")
          : fmt::format(
                "with O_DIRECT read {} MB/s, write {} MB/s (through fdatasync), both "
                "at once {} MB/s",
                mb(d.direct_read_bytes_per_s), mb(d.direct_write_bytes_per_s), mb(d.direct_mixed_bytes_per_s));
  out += fmt::format(
      "# Past the page cache ({}; {} MB per rank in 4 MiB requests, all ranks at once): {};\n"
      "# buffered writes through fdatasync {} MB/s, buffered reads of dropped pages {} MB/s (the device read {} MB).\n",
      has_device(m) ? "the device, out of core" : "no device behind this file system: still the page cache",
      mb(static_cast<double>(d.bytes)), direct, mb(d.synced_write_bytes_per_s), mb(d.cold_read_bytes_per_s),
      mb(static_cast<double>(d.cold_read_device_bytes)));
  return out;
}

/// Writes one property line: the property and its comment.
using Line = std::function<void(const std::string&, const std::string&)>;

/// The block's disk figures as programs whose tensors fit in memory see them (the page cache).
void page_cache_disk_lines(const Measured& m, const Line& line) {
  line(fmt::format("disk_read {} MB/s", mb(m.disk_read_bytes_per_s)),
       fmt::format("reading back {} MB per rank in 4 MB requests, as programs read tiled files; slowest rank",
                   mb(static_cast<double>(m.disk_bytes))));
  line(fmt::format("disk_write {} MB/s", mb(m.disk_write_bytes_per_s)),
       fmt::format("writing {} MB per rank into a new result file through its mapping, as programs write "
                   "results; slowest rank (a second new file right after removing it {} MB/s; 4 MB pwrites into a new "
                   "file {} MB/s, in place {} MB/s)",
                   mb(static_cast<double>(m.disk_bytes)), mb(m.disk_reused_write_bytes_per_s),
                   mb(m.disk_pwrite_bytes_per_s), mb(m.disk_rewrite_bytes_per_s)));
  line(
      fmt::format("disk_latency {:.3f} us", m.disk_latency_s * 1e6),
      fmt::format("runs of 16 elements read through a mapping, as programs read tensors, its pages mapped: time "
                  "per run beyond its bytes at disk_read, median of 3 passes in each of 3 mappings ({:.3f} us per 8 KB "
                  "read at a random offset)",
                  m.disk_pread_latency_s * 1e6));
  line(fmt::format("page_fault {:.3f} us", m.disk_fault_s * 1e6),
       "the first pass over those runs, its pages faulting in: its time beyond the mapped passes' per 64 KiB "
       "fault-around window, median of the 3 mappings");
}

/// The block's disk figures past the page cache (machine_text(), m.device_regime).
void device_disk_lines(const Measured& m, const Line& line) {
  const DeviceFigures& d = m.device;
  const bool direct = d.direct_read_bytes_per_s >= 0;
  line(fmt::format("disk_read {} MB/s", mb(direct ? d.direct_read_bytes_per_s : d.cold_read_bytes_per_s)),
       fmt::format("the device: {} of {} MB per rank in 4 MiB requests, all ranks at once; slowest rank",
                   direct ? "O_DIRECT reads" : "buffered reads of dropped pages (O_DIRECT refused)",
                   mb(static_cast<double>(d.bytes))));
  const std::string others = fmt::format(
      "buffered through one fdatasync {} MB/s, through the runtime's write-behind "
      "with nothing read meanwhile {} MB/s",
      mb(d.synced_write_bytes_per_s), mb(d.streamed_write_bytes_per_s));
  line(fmt::format("disk_write {} MB/s", mb(direct ? d.direct_write_bytes_per_s : d.synced_write_bytes_per_s)),
       direct ? fmt::format("the device: O_DIRECT writes of 4 MiB requests through fdatasync, all ranks at once, as "
                            "programs hand results to it with write-behind while they read; slowest rank ({})",
                            others)
              : fmt::format("the device: buffered 4 MiB writes through fdatasync (O_DIRECT refused); slowest rank "
                            "(through the runtime's write-behind with nothing read meanwhile {} MB/s)",
                            mb(d.streamed_write_bytes_per_s)));
  if (direct && d.direct_mixed_bytes_per_s > 0)
    line(fmt::format("disk_mixed {} MB/s", mb(d.direct_mixed_bytes_per_s)),
         "the device reading and writing at once, reads and writes together: one thread reading the O_DIRECT file "
         "back while another writes as much into a new one through the runtime's write-behind and fdatasync, all "
         "ranks at once; slowest rank (an overlapped plan reads A and B on one I/O thread while it reads and writes "
         "C on another)");
  const std::string random = direct ? fmt::format("; a 4 KiB O_DIRECT read at a random offset {:.3f} us",
                                                  std::max(0.0, d.direct_request_s) * 1e6)
                                    : std::string();
  line(fmt::format("disk_latency {:.3f} us", device_request_seconds(d) * 1e6),
       fmt::format("runs of {} elements {} apart from the device, each a request of its own as a tile's rows in a wide "
                   "tensor: time per run beyond its bytes, the mean of reading them ({:.3f} us) and writing them "
                   "({:.3f} us); slowest rank; runs {} apart, read together, {:.3f} us{}",
                   kLoneRunElems, kLoneRunStride, d.lone_read_s * 1e6, d.lone_write_s * 1e6, kStreamedRunStride,
                   d.streamed_run_s * 1e6, random));
  line("page_fault 0.000 us", "streamed tensors are not mapped: no page faults");
  if (const std::uint64_t bytes = direct_read_threshold_bytes(d); bytes > 0)
    line(fmt::format("direct_read_bytes {} KiB", bytes >> 10),
         fmt::format("reads of this much or more bypass the page cache (O_DIRECT): what the device reads in a "
                     "request's cost ({:.3f} us) at the O_DIRECT read bandwidth, down to a power of two from 64 KiB to "
                     "2 MiB",
                     d.direct_request_s * 1e6));
}

/// The overlap line as programs whose tensors fit in memory see it (reads through the page cache).
void page_cache_overlap_line(const Measured& m, const Line& line) {
  const std::string direct = m.direct_overlap < 0
                                 ? std::string("O_DIRECT refused here")
                                 : fmt::format("with O_DIRECT reads, past the page cache: {} MB/s, overlap {:.3f}",
                                               mb(m.direct_read_bytes_per_s), m.direct_overlap);
  line(fmt::format("overlap {:.3f}", m.overlap),
       fmt::format("disk reads on an I/O thread {:.3f} s, kernel {:.3f} s, both at once {:.3f} s; slowest rank ({})",
                   m.overlap_disk_s, m.overlap_kernel_s, m.overlap_both_s, direct));
}

}  // namespace

std::string machine_text(const Measured& m) {
  std::string out =
      fmt::format("# tcec-calibrate on {}, {}: P = {} ranks measured at once.\n", m.host, m.date, m.processors);
  out += regime_comment(m);
  if (m.reported_to_host_kib >= 0)
    out += fmt::format(
        "# This machine gives freed memory back to its host (free page reporting, {:.1f} GiB since boot): writes\n"
        "# into new pages then wait for the host to back them, so disk_write and programs' writes vary with how\n"
        "# long before them memory was freed (seconds: see the README's fidelity benchmark).\n",
        static_cast<double>(m.reported_to_host_kib) / (1024.0 * 1024.0));
  out += "machine calibrated {\n";
  auto line = [&](const std::string& property, const std::string& comment) {
    out += fmt::format("  {:<30} # {}\n", property + ";", comment);
  };
  line(fmt::format("processors {}", m.processors), "the ranks of the calibration run");
  line(fmt::format("memory {} MB", m.memory_bytes / 1000000), m.memory_how);
  line(fmt::format("network {} MB/s", mb(m.network_bytes_per_s)),
       fmt::format("ring shift of {} MB messages, every rank sending and receiving{}; slowest rank",
                   mb(static_cast<double>(m.message_bytes)), m.nodes > 1 ? " among the ranks of each node" : ""));
  if (m.ranks_per_node > 0) {
    line(fmt::format("ranks_per_node {}", m.ranks_per_node),
         fmt::format("the ranks of each of the {} nodes that see one scratch directory", m.nodes));
    line(fmt::format("internode_network {} MB/s", mb(m.internode_network_bytes_per_s)),
         "ring shift among one rank of each node, all such rings at once; slowest rank");
  }
  if (m.device_regime)
    device_disk_lines(m, line);
  else
    page_cache_disk_lines(m, line);
  line(fmt::format("replication_factor {:.3f}", m.replication_factor),
       "ring all-gather time over (P - 1) pieces at the network bandwidth");
  line(fmt::format("reduction_factor {:.3f}", m.reduction_factor),
       "all-reduce time over its bytes x log2 P at the network bandwidth");
  line(fmt::format("flops {:.3f} GFLOP/s", m.flops_per_s / 1e9),
       fmt::format("tile kernel on {0}x{0}x{0} tiles, all ranks at once; slowest rank ({1:.3f} GFLOP/s on 64x64x64)",
                   m.kernel_n, m.small_flops_per_s / 1e9));
  line(fmt::format("memory_bandwidth {} MB/s", mb(m.memory_bytes_per_s)),
       "tile kernel on a 1024x1024 C tile (8 MB) with K = 8, all ranks at once: C in and out and the panels per "
       "call; slowest rank");
  if (m.device_regime) {
    line(fmt::format("overlap {:.3f}", m.direct_overlap),
         fmt::format("O_DIRECT disk reads on an I/O thread beside the kernel, past the page cache: {} MB/s ({:.3f} "
                     "through the page cache)",
                     mb(m.direct_read_bytes_per_s), m.overlap));
    if (m.direct_overlap >= 0 && direct_read_threshold_bytes(m.device) > 0)
      line(fmt::format("buffered_overlap {:.3f}", m.overlap),
           "reads through the page cache on an I/O thread beside the kernel: the overlap of plans whose requests are "
           "shorter than direct_read_bytes (their reads stay buffered)");
  } else
    page_cache_overlap_line(m, line);
  out += "}\n";
  return out;
}

namespace {

/// {"value", "unit", "how"} and, for disk figures, "regime".
nlohmann::json figure(double value, const char* unit, const std::string& how, const char* regime = nullptr) {
  nlohmann::json out = {{"value", value}, {"unit", unit}, {"how", how}};
  if (regime != nullptr) out["regime"] = regime;
  return out;
}

const char* regime(bool device) { return device ? "device" : "page cache"; }

/// The device figures (DeviceFigures) into `f`, when measured.
void device_figures(const Measured& m, nlohmann::json& f) {
  const DeviceFigures& d = m.device;
  if (d.bytes == 0) return;
  const bool device = has_device(m);
  if (d.direct_read_bytes_per_s >= 0) {
    f["device_read"] = figure(d.direct_read_bytes_per_s, "B/s", "O_DIRECT reads in 4 MiB requests",
                              regime(read_from_device(d.direct_read_device_bytes, d.bytes)));
    f["device_request"] = figure(d.direct_request_s, "s", "4 KiB O_DIRECT reads at random offsets, beyond their bytes",
                                 regime(read_from_device(d.direct_read_device_bytes, d.bytes)));
    f["device_write"] = figure(d.direct_write_bytes_per_s, "B/s",
                               "O_DIRECT writes in 4 MiB requests, through fdatasync", regime(device));
    f["device_mixed"] =
        figure(d.direct_mixed_bytes_per_s, "B/s",
               "O_DIRECT reads on one thread and write-behind writes on another at once, reads and writes together",
               regime(device));
    f["direct_read_bytes"] = figure(
        static_cast<double>(direct_read_threshold_bytes(d)), "B",
        "the least read that bypasses the page cache with --regime device: device_request at device_read", "device");
  }
  const auto runs = [&](const char* name, double seconds, std::size_t elems, std::size_t stride, const char* how) {
    f[name] = figure(seconds, "s",
                     fmt::format("runs of {} elements {} apart {}, per run beyond its bytes", elems, stride, how),
                     regime(device));
  };
  runs("device_streamed_run", d.streamed_run_s, kStreamedRunElems, kStreamedRunStride, "streamed from dropped pages");
  runs("device_lone_read", d.lone_read_s, kLoneRunElems, kLoneRunStride, "read from dropped pages, each a request");
  runs("device_lone_write", d.lone_write_s, kLoneRunElems, kLoneRunStride,
       "written into a new file through fdatasync, each a request");
  f["device_streamed_write"] =
      figure(d.streamed_write_bytes_per_s, "B/s", "4 MiB writes through the runtime's write-behind, through fdatasync",
             regime(device));
  f["device_synced_write"] =
      figure(d.synced_write_bytes_per_s, "B/s", "buffered 4 MiB writes through fdatasync", regime(device));
  f["device_cold_read"] =
      figure(d.cold_read_bytes_per_s, "B/s", "buffered 4 MiB reads of a file whose pages were dropped", regime(device));
  f["device_cold_read"]["device_read_bytes"] = d.cold_read_device_bytes;
}

}  // namespace

nlohmann::json machine_json(const Measured& m) {
  const bool read_device = m.disk_read_device_bytes >= 0 &&
                           read_from_device(static_cast<std::uint64_t>(m.disk_read_device_bytes), m.disk_bytes);
  const char* cache = regime(read_device);  // the buffered figures share the read's regime
  nlohmann::json f = nlohmann::json::object();
  f["network"] = figure(m.network_bytes_per_s, "B/s",
                        m.nodes > 1 ? "ring shift within each node, slowest rank" : "ring shift, slowest rank");
  f["nodes"] = figure(m.nodes, "1", "groups of ranks that see one scratch directory");
  if (m.ranks_per_node > 0) {
    f["ranks_per_node"] = figure(static_cast<double>(m.ranks_per_node), "1", "ranks of each node, in rank order");
    f["internode_network"] = figure(m.internode_network_bytes_per_s, "B/s", "ring shift among one rank per node");
  }
  f["disk_read"] = figure(m.disk_read_bytes_per_s, "B/s", "buffered 4 MB reads of a file just written", cache);
  if (m.disk_read_device_bytes >= 0) f["disk_read"]["device_read_bytes"] = m.disk_read_device_bytes;
  f["disk_write"] = figure(m.disk_write_bytes_per_s, "B/s", "a new result file through its mapping", "page cache");
  f["disk_reused_write"] = figure(m.disk_reused_write_bytes_per_s, "B/s", "a second new result file", "page cache");
  f["disk_pwrite"] = figure(m.disk_pwrite_bytes_per_s, "B/s", "4 MB pwrites into a new file", "page cache");
  f["disk_rewrite"] = figure(m.disk_rewrite_bytes_per_s, "B/s", "4 MB pwrites in place", "page cache");
  f["disk_latency"] = figure(m.disk_latency_s, "s", "per run of 16 elements read through a mapping", cache);
  f["disk_pread_latency"] = figure(m.disk_pread_latency_s, "s", "per 8 KB pread at a random offset", cache);
  f["page_fault"] = figure(m.disk_fault_s, "s", "per 64 KiB fault-around window of a first pass", cache);
  f["replication_factor"] = figure(m.replication_factor, "1", "ring all-gather over the model's");
  f["reduction_factor"] = figure(m.reduction_factor, "1", "all-reduce over the model's");
  f["flops"] = figure(m.flops_per_s, "FLOP/s", fmt::format("tile kernel on {0}x{0}x{0} tiles", m.kernel_n));
  f["small_flops"] = figure(m.small_flops_per_s, "FLOP/s", "tile kernel on 64x64x64 tiles");
  f["memory_bandwidth"] = figure(m.memory_bytes_per_s, "B/s", "tile kernel on a 1024x1024 C tile with K = 8");
  f["overlap"] = figure(m.overlap, "1", "buffered reads on an I/O thread beside the kernel", cache);
  if (m.direct_overlap >= 0)
    f["direct_overlap_read"] = figure(m.direct_read_bytes_per_s, "B/s", "O_DIRECT reads on an I/O thread",
                                      m.device.bytes > 0 ? regime(has_device(m)) : "device");
  device_figures(m, f);
  return {{"host", m.host},
          {"date", m.date},
          {"processors", m.processors},
          {"memory_bytes", m.memory_bytes},
          {"block_regime", m.device_regime ? "device" : "page cache"},
          {"figures", f}};
}

}  // namespace tcec::calibrate
