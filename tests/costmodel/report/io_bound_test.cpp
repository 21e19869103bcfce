// The I/O lower bound of a contraction from files to a file (costmodel/analysis.h IoBound):
// the compulsory I/O and Theorem 1 of Kwasniewski et al., which binds, and the plan against it.
#include <cmath>

#include <gtest/gtest.h>

#include "costmodel/analysis.h"
#include "frontend/frontend.h"
#include "tests/costmodel/fixtures.h"

namespace tcec::costmodel {
namespace {

TEST(IoBound, MatmulOnTable8TheoremOneBindsTheBytesAndTheDiskTheTime) {
  // Gao et al. Eq. 6.1 on their Table 8 machine: N = 4000, P = 4, 64 MB, 200 MB/s, 8 MB/s.
  const ir::Program p = fixtures::example_program("matmul.tce");
  const Machine m = machine_from(*p.machine);
  const ContractionAnalysis a = analyze(p, p.statements[0], m, {});
  ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
  const IoBound b = io_bound(a, m);
  EXPECT_DOUBLE_EQ(b.compulsory_read_bytes, 2 * 4000.0 * 4000 * 8 / 4);  // A and B, a quarter each
  EXPECT_DOUBLE_EQ(b.compulsory_write_bytes, 4000.0 * 4000 * 8 / 4);
  // Theorem 1: 2mnk/(P√S) + mn/P words, S = 64 MB / 8 B.
  const double q = (2 * 64e9 / (4 * std::sqrt(8e6)) + 16e6 / 4) * 8;
  EXPECT_DOUBLE_EQ(b.theorem1_bytes, q);
  EXPECT_EQ(b.binds, IoBound::Binds::theorem1);  // 122.5 MB against 64 + 32 MB and 77.3 MB
  // All four memories as one: (2mnk/√(4S) + mn)/4 words.
  EXPECT_DOUBLE_EQ(b.aggregate_bytes, (2 * 64e9 / std::sqrt(4 * 8e6) + 16e6) / 4 * 8);
  EXPECT_DOUBLE_EQ(b.bytes, q);
  // Theorem 1's words at the network's 200 MB/s take 0.6 s, less than the compulsory reads at
  // 8 MB/s: 8 s reading, 4 s writing.
  EXPECT_DOUBLE_EQ(b.time_s, 64e6 / 8e6 + 32e6 / 8e6);
  EXPECT_GE(b.plan_bytes, b.bytes);
  EXPECT_GE(b.plan_time_s, b.time_s);
  const nlohmann::json j = io_bound_json(b);
  EXPECT_EQ(j["binds"], "theorem1");
  EXPECT_DOUBLE_EQ(j["time_ratio"].get<double>(), b.plan_time_s / b.time_s);
  EXPECT_EQ(io_bound_text(b).rfind("    I/O lower bound per rank: 123 MB (Theorem 1 binds: compulsory reads 64 MB + "
                                   "writes 32 MB; Theorem 1 123 MB; disks of all memories 77.3 MB), 12 s "
                                   "(compulsory I/O binds); the plan moves ",
                                   0),
            0u)
      << io_bound_text(b);
}

TEST(IoBound, AStreamedOperandMakesTheCompulsoryReadsBind) {
  // C[i,j] = A[i,k] * B[k,j] with a long K and a small C: reading A and B once is the bound.
  auto r = frontend::parse_source("t.tce",
                                  "range M = 40, K = 200000;\nindex i, j : M;\nindex k : K;\n"
                                  "tensor A[M,K] input;\ntensor B[K,M] input;\ntensor C[M,M] output;\n"
                                  "C[i,j] = A[i,k] * B[k,j];\n"
                                  "machine m { processors 2; memory 8 MB; network 1 GB/s; disk 100 MB/s; }\n",
                                  {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const ir::Program& p = *r.program;
  const Machine m = machine_from(*p.machine);
  const IoBound b = io_bound(analyze(p, p.statements[0], m, {}), m);
  EXPECT_EQ(b.binds, IoBound::Binds::compulsory);
  EXPECT_DOUBLE_EQ(b.compulsory_read_bytes, 2 * 40.0 * 200000 * 8 / 2);
  EXPECT_DOUBLE_EQ(b.compulsory_write_bytes, 40.0 * 40 * 8 / 2);
  EXPECT_DOUBLE_EQ(b.bytes, b.compulsory_read_bytes + b.compulsory_write_bytes);
  EXPECT_DOUBLE_EQ(b.time_s, b.compulsory_read_bytes / 100e6 + 40.0 * 40 * 8 / 2 / 100e6);
}

TEST(IoBound, WithLittleMemoryTheDisksOfAllMemoriesBindTheTime) {
  // The same product with 24 MB per rank: A and B cannot be read once each, since all four
  // memories together hold 12e6 words: the disks carry (2mnk/√(4S) + mn)/4 words per rank at
  // least, of which mn/4 are writes: 105.9 MB, 13.24 s at 8 MB/s against 12 s compulsory.
  const ir::Program p = fixtures::example_program("matmul.tce");
  Machine m = machine_from(*p.machine);
  m.memory_bytes = 24e6;
  const IoBound b = io_bound(analyze(p, p.statements[0], m, {}), m);
  const double aggregate = (2 * 64e9 / std::sqrt(4 * 3e6) + 16e6) / 4 * 8;
  EXPECT_DOUBLE_EQ(b.aggregate_bytes, aggregate);
  EXPECT_EQ(b.binds, IoBound::Binds::theorem1);  // 180 MB in bytes, at the network's speed
  EXPECT_DOUBLE_EQ(b.time_s, aggregate / 8e6);   // B_dr = B_dw: every byte at 8 MB/s
  EXPECT_EQ(b.time_binds, IoBound::Binds::aggregate);
  EXPECT_GT(b.time_s, 12.0);
  EXPECT_EQ(io_bound_json(b)["aggregate_bytes"].get<double>(), aggregate);
}

}  // namespace
}  // namespace tcec::costmodel
