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
  ASSERT_TRUE(a.plan.feasible) << a.plan.reason;
  const IoBound b = io_bound(a, m);
  EXPECT_DOUBLE_EQ(b.compulsory_read_bytes, 2 * 4000.0 * 4000 * 8 / 4);   // A and B, a quarter each
  EXPECT_DOUBLE_EQ(b.compulsory_write_bytes, 4000.0 * 4000 * 8 / 4);
  // Theorem 1: 2mnk/(P√S) + mn/P words, S = 64 MB / 8 B.
  const double q = (2 * 64e9 / (4 * std::sqrt(8e6)) + 16e6 / 4) * 8;
  EXPECT_DOUBLE_EQ(b.theorem1_bytes, q);
  EXPECT_TRUE(b.theorem1_binds);   // 122.5 MB against 64 + 32 MB
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
                                   "writes 32 MB; Theorem 1 123 MB), 12 s; the plan moves ",
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
  EXPECT_FALSE(b.theorem1_binds);
  EXPECT_DOUBLE_EQ(b.compulsory_read_bytes, 2 * 40.0 * 200000 * 8 / 2);
  EXPECT_DOUBLE_EQ(b.compulsory_write_bytes, 40.0 * 40 * 8 / 2);
  EXPECT_DOUBLE_EQ(b.bytes, b.compulsory_read_bytes + b.compulsory_write_bytes);
  EXPECT_DOUBLE_EQ(b.time_s, b.compulsory_read_bytes / 100e6 + 40.0 * 40 * 8 / 2 / 100e6);
}

}  // namespace
}  // namespace tcec::costmodel
