// tools/calibrate/measure.cpp — disk, network, collectives and kernel, measured at once on all ranks.
#include "measure.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/device_io.h"
#include "runtime/base/error.h"
#include "runtime/kernel/kernel.h"
#include "runtime/program/run.h"
#include "runtime/spec/units.h"
#include "runtime/storage/disk.h"
#include "runtime/storage/io_worker.h"
#include "runtime/storage/mapped_walk.h"
#include "runtime/storage/npy.h"
#include "tools/diagnostics.h"

namespace tcec::calibrate {

namespace {

constexpr std::size_t kRequestElems = std::size_t{1} << 19;  // 4 MB per DiskFile call
constexpr double kOverlapSeconds = 0.2;                      // the overlap measurement's reads, at least
constexpr std::size_t kDirectAlignBytes = 4096;              // O_DIRECT: buffers and offsets on 4 KiB

/// `elems` elements as bytes (a real: the rates below divide it by seconds).
double byte_count(double elems) { return elems * static_cast<double>(tcert::kElementBytes); }

/// Runs body on every rank between barriers; the slowest rank's seconds.
template <class Body>
double slowest(const tcert::Context& ctx, const Body& body) {
  ctx.barrier();
  const tcert::Stopwatch clock;
  body();
  const auto ns = static_cast<std::uint64_t>(clock.seconds() * 1e9);
  std::uint64_t most = 0;
  for (std::uint64_t t : ctx.gather_u64(ns)) most = std::max(most, t);
  return static_cast<double>(std::max<std::uint64_t>(most, 1)) * 1e-9;
}

/// Calls move(offset, count) for each DiskFile request of up to 4 MB over the file's elements
/// [0, elems), in order (offsets and counts in elements).
template <class Move>
void each_request(std::uint64_t elems, const Move& move) {
  for (std::uint64_t at = 0; at < elems; at += kRequestElems)
    move(at, static_cast<std::size_t>(std::min<std::uint64_t>(kRequestElems, elems - at)));
}

/// n×n×n tiles of the tile kernel: multiply(calls) runs gemm_tile `calls` times on them.
struct KernelTiles {
  explicit KernelTiles(std::size_t n) : n(n), a(n * n, 0.5), b(n * n, 0.25), c(n * n, 0.0) {}
  void multiply(int calls) {
    for (int i = 0; i < calls; ++i) tcert::gemm_tile(n, n, n, 1.0, a.data(), n, b.data(), n, 1.0, c.data(), n);
  }
  std::size_t n;
  std::vector<double> a, b, c;
};

/// The median of `values` (not empty; reordered).
double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

/// Short reads through a program's mapping (runtime NpyReader) of the .npy file at `path`, all
/// ranks at once: every row of 64 elements, copying 16 of them (a different 16 on neighbouring
/// ranks), as a rank reads its share of K straight from a tensor's file. A first pass faults the
/// pages in (fault-around windows of 64 KiB); kPasses more, the pages mapped, time the runs
/// alone (their median). Sets out.latency_s to the time per run beyond its bytes at
/// out.read_bytes_per_s, and out.fault_s to the first pass's extra time per window; each is the
/// median over kMappings fresh mappings of the file (one first pass is a single sample of the
/// slowest rank, and with more ranks than cores it came out 0 in one calibration of four).
/// Throws tcert::Error when the file cannot be mapped.
void measure_mapped_runs(const tcert::Context& ctx, const std::string& path, DiskFigures& out) {
  constexpr std::uint64_t kRow = 64, kRun = 16;
  constexpr int kPasses = 3, kMappings = 3;
  const std::uint64_t first = kRun * static_cast<std::uint64_t>(ctx.rank() % (kRow / kRun));
  std::vector<double> copied(kRun * 1024), latencies, faults;
  for (int mapping = 0; mapping < kMappings; ++mapping) {
    const tcert::NpyReader file(path);
    const tcert::ElementSource source(file.data());
    const std::uint64_t runs = file.size() / kRow;
    auto pass = [&] {
      return slowest(ctx, [&] {
        for (std::uint64_t r = 0; r < runs; ++r) source.copy(r * kRow + first, kRun, copied.data() + kRun * (r % 1024));
      });
    };
    const double first_s = pass();
    std::vector<double> mapped_s;
    for (int i = 0; i < kPasses; ++i) mapped_s.push_back(pass());
    const double mapped = median(mapped_s);
    latencies.push_back(mapped / static_cast<double>(runs) - byte_count(kRun) / out.read_bytes_per_s);
    const double windows = std::max(1.0, byte_count(static_cast<double>(file.size())) / tcert::kFaultAroundBytes);
    faults.push_back((first_s - mapped) / windows);
  }
  out.latency_s = std::max(0.0, median(latencies));
  out.fault_s = std::max(0.0, median(faults));
}

}  // namespace

DiskFigures measure_disk(const tcert::Context& ctx, const std::string& dir, std::uint64_t bytes) {
  const std::uint64_t elems = std::max<std::uint64_t>(tcert::elems_of(bytes), kRequestElems);
  std::vector<double> buf(kRequestElems, 1.0);
  tcert::DiskFile file(dir + "/calibrate-rank" + std::to_string(ctx.rank()) + ".bin");
  DiskFigures out;
  auto write_all = [&] {
    each_request(elems, [&](std::uint64_t at, std::size_t n) { file.write(buf.data(), at, n); });
  };
  // Programs write their results straight into new tensor files through a mapping (NpyWriter),
  // and their scratch files by pwrite into files they have just made; the first is the rate the
  // model uses, the others (and a second pass in place) are reported beside it. A second new
  // file, written right after the first is removed, is reported too: it reuses the pages the
  // first freed, where a program that starts after a pause (on a virtual machine, the host
  // takes freed memory back within seconds) gets new ones. The second is kept (committed, not
  // flushed) for the mapped reads below.
  const std::string result_path = dir + "/calibrate-rank" + std::to_string(ctx.rank()) + ".npy";
  for (double* rate : {&out.write_bytes_per_s, &out.reused_write_bytes_per_s}) {
    std::filesystem::remove(result_path);
    std::optional<tcert::NpyWriter> result;
    *rate = byte_count(static_cast<double>(elems)) / slowest(ctx, [&] {
              double* data = result.emplace(result_path, std::vector<std::uint64_t>{elems}).data();
              each_request(elems, [&](std::uint64_t at, std::size_t n) { std::copy_n(buf.data(), n, data + at); });
            });
    result->commit(false);
  }
  out.pwrite_bytes_per_s = byte_count(static_cast<double>(elems)) / slowest(ctx, write_all);
  out.rewrite_bytes_per_s = byte_count(static_cast<double>(elems)) / slowest(ctx, write_all);
  const std::optional<tcert::DeviceBytes> before = tcert::device_bytes_now();
  out.read_bytes_per_s = byte_count(static_cast<double>(elems)) / slowest(ctx, [&] {
                           each_request(elems, [&](std::uint64_t at, std::size_t n) { file.read(buf.data(), at, n); });
                         });
  const std::optional<tcert::DeviceBytes> after = tcert::device_bytes_now();
  const std::uint64_t known = before && after ? 1 : 0, read = known ? after->read_bytes - before->read_bytes : 0;
  const std::vector<std::vector<std::uint64_t>> all = ctx.gather_u64s({known, read});
  if (*std::min_element(all[0].begin(), all[0].end()) == 1)
    out.read_device_bytes = static_cast<std::int64_t>(*std::min_element(all[1].begin(), all[1].end()));
  constexpr int kSmall = 2000;
  constexpr std::size_t kSmallElems = 1024;  // 8 KB
  std::mt19937_64 rng(static_cast<std::uint64_t>(ctx.rank()) + 1);
  const double small_s = slowest(ctx, [&] {
    for (int i = 0; i < kSmall; ++i) file.read(buf.data(), (rng() % (elems / kSmallElems)) * kSmallElems, kSmallElems);
  });
  out.pread_latency_s = std::max(0.0, small_s / kSmall - byte_count(kSmallElems) / out.read_bytes_per_s);
  measure_mapped_runs(ctx, result_path, out);
  file.remove();
  std::filesystem::remove(result_path);
  return out;
}

double measure_network(const tcert::Context& ctx, std::uint64_t bytes) {
  if (ctx.size() == 1) return 0;
  const std::size_t n = std::max<std::size_t>(tcert::elems_of(bytes), 1);
  std::vector<double> buf(n, 1.0), scratch(n);  // one message each way, as the ring all-gather sends
  const int next = (ctx.rank() + 1) % ctx.size(), previous = (ctx.rank() + ctx.size() - 1) % ctx.size();
  constexpr int kShifts = 4;
  tcert::shift(ctx, buf.data(), n, n, next, previous, scratch);  // warm-up
  const double s = slowest(ctx, [&] {
    for (int i = 0; i < kShifts; ++i) tcert::shift(ctx, buf.data(), n, n, next, previous, scratch);
  });
  return byte_count(static_cast<double>(n)) * kShifts / s;
}

CollectiveFactors measure_collectives(const tcert::Context& ctx, std::uint64_t bytes, double network_bytes_per_s) {
  CollectiveFactors out;
  const int P = ctx.size();
  if (P == 1 || network_bytes_per_s <= 0) return out;
  const std::size_t piece = std::max<std::size_t>(tcert::elems_of(bytes), 1);
  std::vector<double> all(piece * static_cast<std::size_t>(P), 1.0), scratch(std::size_t{1} << 17);
  const std::vector<std::size_t> counts(static_cast<std::size_t>(P), piece);
  const double gather_s = slowest(ctx, [&] { tcert::ring_allgatherv(ctx, all.data(), counts); });
  out.replication = gather_s / (byte_count(static_cast<double>(piece)) * (P - 1) / network_bytes_per_s);
  const double reduce_s = slowest(ctx, [&] { tcert::allreduce_sum(ctx, all.data(), piece, scratch); });
  out.reduction =
      reduce_s / (byte_count(static_cast<double>(piece)) * std::log2(static_cast<double>(P)) / network_bytes_per_s);
  return out;
}

double measure_kernel(const tcert::Context& ctx, std::size_t n) {
  KernelTiles tiles(n);
  tiles.multiply(1);  // warm-up
  constexpr int kCalls = 3;
  const double s = slowest(ctx, [&] { tiles.multiply(kCalls); });
  return 2.0 * std::pow(static_cast<double>(n), 3) * kCalls / s;
}

double measure_memory(const tcert::Context& ctx, std::size_t n, std::size_t k, int calls) {
  std::vector<double> a(n * k, 0.5), b(n * k, 0.25), c(n * n, 0.0);
  auto multiply = [&](int times) {
    for (int i = 0; i < times; ++i) tcert::gemm_tile(n, n, k, 1.0, a.data(), k, b.data(), k, 1.0, c.data(), n);
  };
  multiply(1);  // warm-up: C's pages
  const double s = slowest(ctx, [&] { multiply(calls); });
  const double N = static_cast<double>(n), K = static_cast<double>(k);
  return byte_count(2.0 * N * N + 2.0 * N * K) * calls / s;
}

std::int64_t reported_to_host_kib() {
  std::ifstream in("/sys/module/page_reporting/parameters/reported_kib");
  std::int64_t kib = -1;
  if (!(in >> kib) || kib < 0) return -1;
  return kib;
}

OverlapFigures measure_overlap(const tcert::Context& ctx, const std::string& dir, std::uint64_t bytes, std::size_t n,
                               bool direct) {
  // Whole requests, so that every O_DIRECT transfer is 4 KiB-aligned in the file and in memory.
  const std::uint64_t elems = std::max<std::uint64_t>(tcert::elems_of(bytes) / kRequestElems, 1) * kRequestElems;
  std::unique_ptr<double, decltype(&std::free)> buf(
      static_cast<double*>(std::aligned_alloc(kDirectAlignBytes, tcert::bytes_of(kRequestElems))), &std::free);
  if (!buf) throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_calibrate_buffer));
  std::fill_n(buf.get(), kRequestElems, 1.0);
  tcert::DiskFile file(
      dir + "/calibrate-overlap-rank" + std::to_string(ctx.rank()) + (direct ? "-direct" : "") + ".bin", direct);
  each_request(elems, [&](std::uint64_t at, std::size_t count) { file.write(buf.get(), at, count); });
  int passes = 1;  // over the file, raised below until the reads take kOverlapSeconds
  auto read_all = [&] {
    for (int pass = 0; pass < passes; ++pass)
      each_request(elems, [&](std::uint64_t at, std::size_t count) { file.read(buf.get(), at, count); });
  };
  KernelTiles tiles(n);
  OverlapFigures out;
  tcert::IoWorker io;
  auto read_on_worker = [&] { io.wait(io.submit(read_all)); };
  read_on_worker();  // warm-up: the thread, the file's pages
  tiles.multiply(1);
  passes = std::max(1, static_cast<int>(std::ceil(kOverlapSeconds / slowest(ctx, read_on_worker))));
  out.disk_s = slowest(ctx, read_on_worker);
  out.read_bytes_per_s = byte_count(static_cast<double>(elems)) * passes / out.disk_s;
  // As many calls as take about the read's time (every rank the same number: the slowest call).
  const double call_s = slowest(ctx, [&] { tiles.multiply(1); });
  const int calls = std::max(1, static_cast<int>(std::lround(out.disk_s / call_s)));
  out.kernel_s = slowest(ctx, [&] { tiles.multiply(calls); });
  out.both_s = slowest(ctx, [&] {
    const tcert::IoWorker::Ticket t = io.submit(read_all);
    tiles.multiply(calls);
    io.wait(t);
  });
  io.drain();
  std::uint64_t held = file.direct() ? 1 : 0;
  for (std::uint64_t h : ctx.gather_u64(held)) held = std::min(held, h);
  out.direct = held == 1;
  file.remove();
  const double shorter = std::min(out.disk_s, out.kernel_s);
  out.overlap = std::clamp((out.disk_s + out.kernel_s - out.both_s) / shorter, 0.0, 1.0);
  return out;
}

}  // namespace tcec::calibrate
