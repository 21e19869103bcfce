// tools/calibrate/measure.h — the measurements of tcec-calibrate, each run by all ranks at once
// through the code paths generated programs use (runtime DiskFile, comm.h collectives, the tile
// kernel). Collective: every rank calls each function with the same arguments. Results are the
// slowest rank's (bytes per second per rank, seconds, FLOP/s per rank, plain factors).
#pragma once

#include <cstdint>
#include <string>

#include "runtime/comm/comm.h"

namespace tcec::calibrate {

/// Disk: each rank writes `bytes` into a new result file under `dir` through its mapping (runtime
/// NpyWriter, 4 MB copies; timed: the write bandwidth, since programs write their results
/// straight into new tensor files so, and on a host whose page cache must first get its pages
/// from the host, as on a virtual machine, that is several times slower than writing in place),
/// then, that file removed, a second new file the same way (timed: reused_write_bytes_per_s,
/// reported only: it reuses the pages the first freed, which a program that starts after a
/// pause does not find). Then `bytes` into a new file in 4 MB DiskFile writes (timed:
/// pwrite_bytes_per_s, as programs write scratch files), then the same range again (timed:
/// rewrite_bytes_per_s; both reported only), then reads it back the same way (buffered, as
/// programs' tiled files are), then 8 KB reads at random offsets (pread_latency_s: time per
/// request less its bytes at the read bandwidth, at least 0). Last, runs of 16 elements in every
/// row of 64 read through a mapping of the second result file (runtime NpyReader), as programs
/// read tiles straight from tensor files: those runs are nearly all of a plan's requests (a tiled
/// file's request moves a whole block), and cost far less than a system call. A first pass
/// faults the pages in; latency_s, the per-request latency the model charges, is the median of
/// three passes after it (the runs alone, beyond their bytes at the read bandwidth), fault_s the
/// first pass's extra time per 64 KiB fault-around window (the page fault the model charges
/// where reads enter new windows); each the median over three fresh mappings of the file.
/// Bandwidths in bytes per second per rank, latencies in seconds, the slowest rank's;
/// read_device_bytes: the bytes the device read while the reads were timed (/proc/self/io, the
/// least over ranks; -1 where unreadable), which says whether read_bytes_per_s is the page
/// cache's (about 0) or the device's. The files are removed. Throws tcert::Error on I/O failure.
struct DiskFigures {
  double read_bytes_per_s = 0, write_bytes_per_s = 0, reused_write_bytes_per_s = 0;
  double pwrite_bytes_per_s = 0, rewrite_bytes_per_s = 0;
  double latency_s = 0, pread_latency_s = 0, fault_s = 0;
  std::int64_t read_device_bytes = -1;
};
DiskFigures measure_disk(const tcert::Context& ctx, const std::string& dir, std::uint64_t bytes);

/// Network: a ring shift (send to rank + 1, receive from rank − 1) of `bytes` in one message
/// each way, repeated; bytes over the slowest rank's time per shift. One rank: 0 (no network).
double measure_network(const tcert::Context& ctx, std::uint64_t bytes);

/// The collective factors at P (docs/model.md "Collective factors"): the ring all-gather's time over (P − 1)
/// pieces of `bytes` at `network_bytes_per_s` (f_rep), and the all-reduce's time over its
/// `bytes` × log2 P at that bandwidth (f_red). One rank: 1 and 1.
struct CollectiveFactors {
  double replication = 1, reduction = 1;
};
CollectiveFactors measure_collectives(const tcert::Context& ctx, std::uint64_t bytes, double network_bytes_per_s);

/// The tile kernel (gemm_tile) on n×n×n tiles, all ranks at once: 2n³ per call over the slowest
/// rank's time per call, FLOP/s. Small tiles run slower than large ones; the model has one rate.
double measure_kernel(const tcert::Context& ctx, std::size_t n);

/// The memory stream of the tile kernel (Machine::memory_bytes_per_s): gemm_tile on an n×n C tile
/// (n = 1024: 8 MB, beyond a core's cache) with k = 8 columns, `calls` times, all ranks at once;
/// each call reads and writes C and reads its two n×k panels, 8·(2n² + 2nk) bytes, over the
/// slowest rank's time per call. Bytes per second per rank.
double measure_memory(const tcert::Context& ctx, std::size_t n = 1024, std::size_t k = 8, int calls = 20);

/// Overlap (Machine::overlap): each rank reads a file of `bytes` under `dir` on an I/O thread
/// (runtime IoWorker, 4 MB DiskFile reads, as overlapped programs read ahead; as many passes as
/// take 0.2 s) while its own thread runs the tile kernel on n×n×n tiles for about as long, all
/// ranks at once. With t_d and t_k the
/// slowest rank's times of each alone and t_both of both together, the share of the shorter that
/// ran beside the longer: (t_d + t_k − t_both) / min(t_d, t_k), clamped to 0 … 1. The file is
/// written first (so reads come from wherever programs' tiled files would be) and removed after.
/// `direct`: the file is written and read with O_DIRECT (DiskFile's `direct`, 4 KiB-aligned
/// 4 MB requests), past the page cache, so that the reads are the device's transfers and not
/// the cores' copies; `direct` in the result says whether O_DIRECT held for every read (a file
/// system may refuse it). read_bytes_per_s: bytes per second per rank of the reads alone
/// (slowest rank). Throws tcert::Error on I/O failure.
struct OverlapFigures {
  double overlap = 1, disk_s = 0, kernel_s = 0, both_s = 0;
  double read_bytes_per_s = 0;
  bool direct = false;
};
/// KiB of freed memory this (virtual) machine's kernel has given back to its host by free page
/// reporting since boot (/sys/module/page_reporting/parameters/reported_kib), or -1 where it
/// does not report (no such file, or not a number).
std::int64_t reported_to_host_kib();

OverlapFigures measure_overlap(const tcert::Context& ctx, const std::string& dir, std::uint64_t bytes, std::size_t n,
                               bool direct = false);

}  // namespace tcec::calibrate
