// tools/calibrate/machine_file.h — what tcec-calibrate measured, and the machine block it writes.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace tcec::calibrate {

/// The disk past the page cache (device.h measure_device()): bytes per second per rank with all
/// ranks at once, the slowest rank's, over `bytes` per rank in 4 MiB requests. direct_*: with
/// O_DIRECT (the write timed through its fdatasync), < 0 where O_DIRECT was refused;
/// synced_write: buffered writes timed through an fdatasync; cold_read: buffered reads of that
/// file after its pages were dropped. *_device_bytes: what /proc/self/io says the device read
/// during the cold and the O_DIRECT read (the least over ranks): about `bytes` when a device is
/// behind the file system. bytes == 0: not measured.
/// The pattern of DeviceFigures::streamed_run_s: runs of 16 elements (128 bytes), 128 elements
/// (1 KiB) apart.
inline constexpr std::size_t kStreamedRunElems = 16, kStreamedRunStride = 128;
/// The pattern of DeviceFigures::lone_read_s and lone_write_s: runs of 16 elements, 16384
/// elements (128 KiB) apart, farther than the runtime merges runs (RunReads::kGapBytes, 64 KiB):
/// as the rows of a tile of a wide tensor are read and written, each run a request of its own.
inline constexpr std::size_t kLoneRunElems = 16, kLoneRunStride = 16384;

struct DeviceFigures {
  double direct_read_bytes_per_s = -1, direct_write_bytes_per_s = -1;
  /// Bytes per second, reads and writes together, of one thread reading the O_DIRECT file back
  /// in 4 MiB requests while another writes as much into a new file as programs write results
  /// (the runtime's write-behind, through a final fdatasync), all ranks at once: the device
  /// serving an overlapped program's two I/O threads (the machine's disk_mixed). < 0 where
  /// O_DIRECT was refused.
  double direct_mixed_bytes_per_s = -1;
  double synced_write_bytes_per_s = 0, cold_read_bytes_per_s = 0;
  /// Bytes per second of 4 MiB writes into a new file through the runtime's RunWrites, each
  /// put behind (ElementFile::wrote(): write-back started at once, at most a window of it
  /// waited for), timed through a final fdatasync: as programs stream results out.
  double streamed_write_bytes_per_s = 0;
  /// Seconds per O_DIRECT read of 4 KiB at a random offset beyond its bytes at the O_DIRECT read
  /// bandwidth (one at a time): the device's cost of a request. < 0 where O_DIRECT was refused.
  double direct_request_s = -1;
  /// Seconds per short run of a streamed tensor beyond its bytes at the device's read bandwidth:
  /// runs of kStreamedRunElems elements kStreamedRunStride elements apart read through the
  /// runtime's RunReads (runtime/storage/element_file.h: runs near each other in one request, the
  /// bytes between them read too) from a file whose pages were dropped, as programs read tiles of
  /// tensors larger than their memory.
  double streamed_run_s = 0;
  /// Seconds per run read on its own, beyond its bytes at the device's read bandwidth: runs of
  /// kLoneRunElems elements kLoneRunStride elements apart read through RunReads (all of a pass
  /// started at once, POSIX_FADV_WILLNEED, then read one by one) from dropped pages.
  double lone_read_s = 0;
  /// Seconds per run written on its own, beyond its bytes at the synced write bandwidth: the same
  /// runs written through RunWrites into a new file (its write-behind) and made durable
  /// (fdatasync), as a result tile's rows are written into a wide tensor's file.
  double lone_write_s = 0;
  std::uint64_t bytes = 0, cold_read_device_bytes = 0, direct_read_device_bytes = 0;
};

/// The machine block's disk_latency in the device regime, seconds per request: the mean of
/// d.lone_read_s and d.lone_write_s. A plan's disk requests (costmodel plan.h) are runs that tiles
/// read and write in a tensor's file; where they lie far apart (a tile's rows in a wide tensor)
/// each is a request of the device's own, and plans of many requests pay that (8000^3 product at
/// P = 2: a plan of runs 64 KiB apart spent 11 of its 35 s in 576,000 lone reads). Runs near each
/// other are read in one request for less (d.streamed_run_s, the comment's figure).
inline double device_request_seconds(const DeviceFigures& d) { return 0.5 * (d.lone_read_s + d.lone_write_s); }

/// The machine block's direct_read_bytes in the device regime, bytes: the least request that
/// programs read with O_DIRECT instead of through the page cache (runtime/storage/element_file.h,
/// set_direct_reads()). A direct request is read alone, so it pays the device's cost of a request
/// (d.direct_request_s) on its own; buffered requests are started all at once but each pays the
/// page cache's copy and reclaim. From the bytes the device moves in a request's cost at its
/// O_DIRECT read bandwidth on, direct reads won: the 4-index step N = 128 in a 384 MB cgroup
/// (bench/ooc_regime.sh, tiles read in requests of about 1 MB) took 0.82-0.97 of its buffered
/// wall time with requests of 64 KiB or more direct, where the 8000^3 product, whose requests are
/// 21 KB, took twice as long with all of them direct. That size rounded down to a power of two,
/// from 64 KiB to 2 MiB (the runtime's direct request); 0 where O_DIRECT was refused (every read
/// buffered).
inline std::uint64_t direct_read_threshold_bytes(const DeviceFigures& d) {
  if (d.direct_read_bytes_per_s <= 0 || d.direct_request_s < 0) return 0;
  const double wanted = d.direct_request_s * d.direct_read_bytes_per_s;
  std::uint64_t bytes = std::uint64_t{64} << 10;
  while (bytes < (std::uint64_t{2} << 20) && static_cast<double>(2 * bytes) <= wanted) bytes *= 2;
  return bytes;
}

/// Whether a timed read of `bytes` was the device's: the device read at least half of them
/// (/proc/self/io read_bytes over it, runtime/base/device_io.h).
inline bool read_from_device(std::uint64_t device_read_bytes, std::uint64_t bytes) {
  return bytes > 0 && 2 * device_read_bytes >= bytes;
}

/// One calibration's figures. Bandwidths in bytes per second per rank with all ranks at once,
/// latency in seconds, the kernel in FLOP/s per rank; factors are measured time over the model's
/// (docs/model.md "Collective factors": f_rep for the ring all-gather, f_red for the all-reduce).
struct Measured {
  std::int64_t processors = 1;
  std::uint64_t memory_bytes = 0;  ///< per rank for tiles (--memory, or the default); written in whole MB
  std::string memory_how;          ///< how memory_bytes was chosen, for its comment
  double network_bytes_per_s = 0;  ///< within a node where the ranks span several (nodes > 1)
  /// Nodes: the groups of ranks that see one scratch directory (runtime nodes_by_view()); on
  /// several, in rank order with ranks_per_node each, the ring shift among one rank per node.
  int nodes = 1;
  std::int64_t ranks_per_node = 0;  ///< 0: one node, or nodes not of rank / R (not written)
  double internode_network_bytes_per_s = 0;
  double disk_read_bytes_per_s = 0, disk_write_bytes_per_s = 0;
  double disk_reused_write_bytes_per_s = 0;  ///< a second new result file after the first (for the comment)
  double disk_pwrite_bytes_per_s = 0;        ///< 4 MB pwrites into a new file (for the comment)
  double disk_rewrite_bytes_per_s = 0;       ///< the same range again, in place (for the comment)
  double disk_latency_s = 0;
  double disk_pread_latency_s = 0;  ///< per 8 KB read at a random offset, beyond its bytes (for the comment)
  double disk_fault_s = 0;          ///< a first read's extra time per 64 KiB window of a mapping
  /// The bytes the device read while disk_read was timed (the least over ranks), which says its
  /// regime (read_from_device()); -1: unknown (/proc/self/io not readable), not said.
  std::int64_t disk_read_device_bytes = -1;
  DeviceFigures device;  ///< the disk past the page cache
  /// --regime device: the block's disk_read, disk_write, disk_latency, page_fault and overlap
  /// describe the device (DeviceFigures, O_DIRECT overlap) instead of the page cache.
  bool device_regime = false;
  double replication_factor = 1, reduction_factor = 1;
  double flops_per_s = 0;
  std::uint64_t disk_bytes = 0;     ///< per rank, written then read for the disk figures
  std::uint64_t device_bytes = 0;   ///< per rank, written then read for the device figures
  std::uint64_t message_bytes = 0;  ///< per message of the network figures
  std::uint64_t kernel_n = 0;       ///< the kernel's n×n×n tiles
  double small_flops_per_s = 0;     ///< the kernel on 64×64×64 tiles (for the comment)
  double memory_bytes_per_s = 0;    ///< the kernel's stream on a short K (measure.h measure_memory())
  double overlap = 1;               ///< share of the shorter of disk and kernel hidden, 0 to 1
  double overlap_disk_s = 0, overlap_kernel_s = 0, overlap_both_s = 0;  ///< its times (for the comment)
  /// The same measurement with O_DIRECT reads (measure_overlap(…, direct)), for the comment: the
  /// reads' bytes per second per rank and the overlap; direct_overlap < 0: O_DIRECT refused.
  double direct_read_bytes_per_s = 0, direct_overlap = -1;
  /// Free page reporting (a virtual machine giving freed memory back to its host): KiB given
  /// back since boot, for a header comment; -1 where the kernel does not report.
  std::int64_t reported_to_host_kib = -1;
  std::string host, date;  ///< where and when (UTC), for the header
};

/// The machine block, with a comment on every line saying how it was measured, e.g.
///   # tcec-calibrate on HOST, 2026-11-25 10:40 UTC: P = 4 ranks at once.
///   machine calibrated {
///     processors 4;              # the ranks of the calibration run
///     network 1234.57 MB/s;      # ring shift of 16 MB messages, slowest rank
///     …
///   }
/// Every value is written so that the .tce parser reads it back (frontend/machine.cpp): sizes
/// in whole MB, bandwidths in MB/s with two decimals, the latency in us, factors, the overlap
/// and the kernel (GFLOP/s) with three. When the device was measured (m.device.bytes > 0), a
/// header comment says which regime the disk figures describe (the page cache's, or the
/// device's when the device read disk_read's file) and gives the device's own figures. With
/// m.device_regime the block's disk figures are the device's (docs/out-of-core.md): disk_read the
/// O_DIRECT read (the cold buffered read where O_DIRECT was refused), disk_write the O_DIRECT
/// write (the buffered write through fdatasync where refused: the 4-index step N = 128 and 160 at
/// P = 1 and 2 in 384 and 768 MB cgroups predicted 1.04-1.34x its measured time with it, 1.36-1.52x
/// with the buffered write, and written alone through write-behind the device takes twice the
/// O_DIRECT rate, more than programs that read meanwhile get), disk_latency
/// device_request_seconds() (the comment gives streamed_run_s and direct_request_s), page_fault 0
/// (streamed tensors are not mapped), overlap the
/// O_DIRECT reads' (the device moves data beside the kernel). Needs m.device measured.
std::string machine_text(const Measured& m);

/// The figures as JSON (tcec-calibrate --json): {"host", "date", "processors", "memory_bytes",
/// "block_regime" (whose disk figures the machine block took: "page cache" or "device"),
/// "figures": {NAME: {"value", "unit", "regime" (disk figures: "page cache" or "device"),
/// "how"}}}; bandwidths in "B/s", times in "s", the kernel in "FLOP/s", factors in "1".
/// NAMEs: the machine block's properties (disk_read, disk_write, disk_latency, page_fault,
/// network, replication_factor, reduction_factor, flops, memory_bandwidth, overlap), the
/// comments' figures (disk_pwrite, disk_rewrite, disk_reused_write, disk_pread_latency,
/// small_flops, direct_overlap_read) and, when measured, device_read, device_write (O_DIRECT),
/// device_synced_write and device_cold_read. A figure not measured (e.g. O_DIRECT refused) is
/// left out.
nlohmann::json machine_json(const Measured& m);

}  // namespace tcec::calibrate
