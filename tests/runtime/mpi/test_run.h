// tests/runtime/mpi/test_run.h — a tcert::Run for the MPI tests: on every rank of the world,
// quiet, verifying, with random inputs of `seed`, planned for the world's size, unlimited memory;
// and what the tests of executors that read and write tensor files directly share: an
// independent run counter and the check of one rank's measured volumes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/run.h"

namespace tcert_test {

inline std::unique_ptr<tcert::Run> make_test_run(const tcert::Context& ctx, const std::string& name, int seed) {
  tcert::RunOptions options;
  options.quiet = true, options.verify = true, options.random_seed = static_cast<std::uint64_t>(seed);
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

/// Expects rank q's measured volumes in `rec` of an executor without network or stages 1 and
/// 3: disk read and write bytes and disk requests of the compute phase as given, nothing sent or
/// received, no redistribution, and a peak tile memory of `peak` bytes. `where` names the case.
inline void expect_direct_volumes(const tcert::ContractionRecord& rec, std::int64_t q, std::uint64_t read,
                                  std::uint64_t write, std::uint64_t requests, std::uint64_t peak,
                                  const std::string& where) {
  const auto r = static_cast<std::size_t>(q);
  EXPECT_EQ(rec.measured[0][r], read) << "disk read of rank " << q << ", " << where;
  EXPECT_EQ(rec.measured[1][r], write) << "disk write of rank " << q << ", " << where;
  EXPECT_EQ(rec.measured[2][r], 0u) << where;
  EXPECT_EQ(rec.measured[3][r], 0u) << where;
  EXPECT_EQ(rec.measured[4][r], requests) << "disk requests of rank " << q << ", " << where;
  EXPECT_EQ(rec.peak_tile_memory_bytes[r], peak) << "peak of rank " << q << ", " << where;
  EXPECT_EQ(rec.redistribution_measured[0][r], 0u) << where;
  EXPECT_EQ(rec.redistribution_measured[1][r], 0u) << where;
}

}  // namespace tcert_test
