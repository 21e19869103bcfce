// tools/calibrate/machine_file.cpp — the calibrated machine block as text.
#include "machine_file.h"

#include <fmt/format.h>

namespace tcec::calibrate {

std::string machine_text(const Measured& m) {
  const auto mb = [](double bytes) { return fmt::format("{:.2f}", bytes / 1e6); };
  std::string out =
      fmt::format("# tcec-calibrate on {}, {}: P = {} ranks measured at once.\n", m.host, m.date, m.processors);
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
       fmt::format("ring shift of {} MB messages, every rank sending and receiving; slowest rank",
                   mb(static_cast<double>(m.message_bytes))));
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
  const std::string direct = m.direct_overlap < 0
                                 ? std::string("O_DIRECT refused here")
                                 : fmt::format("with O_DIRECT reads, past the page cache: {} MB/s, overlap {:.3f}",
                                               mb(m.direct_read_bytes_per_s), m.direct_overlap);
  line(fmt::format("overlap {:.3f}", m.overlap),
       fmt::format("disk reads on an I/O thread {:.3f} s, kernel {:.3f} s, both at once {:.3f} s; slowest rank ({})",
                   m.overlap_disk_s, m.overlap_kernel_s, m.overlap_both_s, direct));
  out += "}\n";
  return out;
}

}  // namespace tcec::calibrate
