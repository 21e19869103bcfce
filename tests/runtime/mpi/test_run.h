// tests/runtime/mpi/test_run.h — a tcert::Run for the MPI tests: on every rank of the world,
// quiet, verifying, with random inputs of `seed`, planned for the world's size, unlimited memory;
// and what the tests of executors that read and write tensor files directly share: an
// independent run counter and the check of one rank's measured volumes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/program/run.h"

namespace tcert_test {

/// With `streamed`, every tensor file of the run is read and written with explicit requests
/// (RunOptions::stream_bytes 0), else through mappings.
inline std::unique_ptr<tcert::Run> make_test_run(const tcert::Context& ctx, const std::string& name, int seed,
                                                 bool streamed = false) {
  tcert::RunOptions options;
  options.quiet = true, options.verify = true, options.random_seed = static_cast<std::uint64_t>(seed);
  if (streamed) options.stream_bytes = 0;
  return std::make_unique<tcert::Run>(ctx, options, tcert::TensorLocations{},
                                      tcert::ProgramInfo{name, "test", ctx.size(), 0, {}, {}, "", 0});
}

/// Runs of consecutive elements in one pass (as tcert::RunCounter, written out here so that the
/// tests count independently of the runtime).
struct Runs {
  std::uint64_t last = 0, runs = 0;
  void at(std::uint64_t e) {
    if (runs == 0 || e != last + 1) ++runs;
    last = e;
  }
};

/// Runs of one panel pass as runtime/methods/panel_read.h makes it (written out here too): the ranges
/// `rows` (first, count) × columns [k0, k0 + kc) of a tensor whose element (row, column) is at
/// linear(row, column), row by row; or, when `by_columns` (the tensor's innermost stored dimension
/// is a row index), each range in blocks of 256 rows, each block column by column. Adds 8 bytes
/// per element to `read`.
template <class Linear>
std::uint64_t panel_runs(const std::vector<std::pair<std::int64_t, std::int64_t>>& rows, std::int64_t k0,
                         std::int64_t kc, bool by_columns, const Linear& linear, std::uint64_t& read) {
  Runs runs;
  for (const auto& [first, count] : rows) {
    const std::int64_t block = by_columns ? 256 : count;
    for (std::int64_t b0 = first; b0 < first + count; b0 += block) {
      const std::int64_t b1 = std::min(b0 + block, first + count);
      if (by_columns) {
        for (std::int64_t k = k0; k < k0 + kc; ++k)
          for (std::int64_t r = b0; r < b1; ++r) runs.at(linear(r, k)), read += 8;
      } else {
        for (std::int64_t r = b0; r < b1; ++r)
          for (std::int64_t k = k0; k < k0 + kc; ++k) runs.at(linear(r, k)), read += 8;
      }
    }
  }
  return runs.runs;
}

/// Expects rank q's measured volumes in `rec` of an executor without network or stages 1 and
/// 3: disk read and write bytes and disk requests of the compute phase as given, nothing sent or
/// received, no redistribution, and a peak tile memory of `peak` bytes. `where` names the case.
inline void expect_direct_volumes(const tcert::ContractionRecord& rec, std::int64_t q, std::uint64_t read,
                                  std::uint64_t write, std::uint64_t requests, std::uint64_t peak,
                                  const std::string& where) {
  const auto r = static_cast<std::size_t>(q);
  EXPECT_EQ(rec.measured.disk_read_bytes[r], read) << "disk read of rank " << q << ", " << where;
  EXPECT_EQ(rec.measured.disk_write_bytes[r], write) << "disk write of rank " << q << ", " << where;
  EXPECT_EQ(rec.measured.comm_sent_bytes[r], 0u) << where;
  EXPECT_EQ(rec.measured.comm_recv_bytes[r], 0u) << where;
  EXPECT_EQ(rec.measured.disk_requests[r], requests) << "disk requests of rank " << q << ", " << where;
  EXPECT_EQ(rec.peak_tile_memory_bytes[r], peak) << "peak of rank " << q << ", " << where;
  EXPECT_EQ(rec.redistribution_measured.disk_read_bytes[r], 0u) << where;
  EXPECT_EQ(rec.redistribution_measured.disk_write_bytes[r], 0u) << where;
}

}  // namespace tcert_test
