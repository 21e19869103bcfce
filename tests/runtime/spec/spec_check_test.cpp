// check_spec() / step_memory(): a plan's checks and buffers per rank, without MPI, with the
// exact messages the executors stop with.
#include <gtest/gtest.h>

#include "runtime/base/error.h"
#include "runtime/comm/placement.h"
#include "runtime/spec/spec_check.h"

namespace {

using tcert::GemmSpec;

/// C[i,j] = A[i,k] · B[j,k] with extents 10, 8, 6 under inside replication of A.
GemmSpec replication() {
  GemmSpec s;
  tcert::GaoSpec& gao = s.method.emplace<tcert::GaoSpec>();
  gao.algorithm = tcert::Algorithm::Replication;
  s.I = {{{10, 1, 1}}, -1};
  s.J = {{{8, 2, 1}}, 0};
  s.K = {{{6, 1, 1}}, 0};
  s.A = {{"A", {10, 6}}, {0, 1}};
  s.B = {{"B", {8, 6}}, {0, 1}};
  s.C = {{"C", {10, 8}}, {0, 1}};
  gao.capacity_A = 60, gao.capacity_B = 12, gao.capacity_C = 20;
  return s;
}

std::string error_of(const GemmSpec& s, std::int64_t ranks, std::uint64_t memory) {
  try {
    tcert::check_spec(s, ranks, memory);
  } catch (const tcert::Error& e) {
    return e.what();
  }
  return "";
}

TEST(SpecCheck, TilesAndTheirPeak) {
  const tcert::StepMemory m = tcert::check_spec(replication(), 4, 1000);
  ASSERT_EQ(m.parts.size(), 3u);
  EXPECT_EQ(m.parts[0].what, "tile of A");
  EXPECT_EQ(m.parts[0].bytes, 480u);
  EXPECT_EQ(m.peak_bytes, 8u * (60 + 12 + 20));
  EXPECT_EQ(tcert::parts_text(m), "tile of A 480 + tile of B 96 + tile of C 160");
}

TEST(SpecCheck, HandOffRoundsAreALoadStagePartThatFitsTheMemory) {
  GemmSpec s = replication();
  s.take_A = true;  // A (60 elements) taken rank to rank
  tcert::StepMemory m = tcert::check_spec(s, 4, 1000);
  EXPECT_EQ(m.parts[0].what, "hand-off rounds");
  EXPECT_TRUE(m.parts[0].load_stage);
  EXPECT_EQ(m.parts[0].bytes, 24u * 41);  // ⌊1000 / 24⌋ elements a round, fewer than A's 60
  EXPECT_EQ(m.peak_bytes, 984u);          // the load stage is the larger
  EXPECT_EQ(m.parts[0].bytes, tcert::handoff_round_bytes(1000, 60));
  EXPECT_EQ(tcert::parts_text(m), "tile of A 480 + tile of B 96 + tile of C 160; hand-off rounds 984 (load stage)");
  m = tcert::check_spec(s, 4, 0);  // unlimited: the whole tensor in one round
  EXPECT_EQ(m.parts[0].bytes, 24u * 60);
}

TEST(SpecCheck, RefusalsNameTheRule) {
  GemmSpec s = replication();
  EXPECT_EQ(error_of(s, 4, 700),
            "the plan needs 736 bytes per rank (tile of A 480 + tile of B 96 + tile of C 160) "
            "but the memory per rank is 700 bytes");
  s.planned_memory_bytes = 700;
  EXPECT_EQ(error_of(s, 4, 0),
            "internal error: the plan said 700 bytes per rank but the step needs 736 (tile of A "
            "480 + tile of B 96 + tile of C 160)");
  s.planned_memory_bytes = 736;
  EXPECT_EQ(error_of(s, 4, 736), "");
  std::get<tcert::GaoSpec>(s.method).algorithm = tcert::Algorithm::Rotation;
  EXPECT_EQ(error_of(s, 6, 0), "rotation needs a square number of ranks, not 6");
}

TEST(SpecCheck, CosmaRoundsAtMostTheFewestKColumnsOfARank) {
  GemmSpec s = replication();
  tcert::CosmaSpec& cosma = s.method.emplace<tcert::CosmaSpec>();
  s.K = {{{5, 1, 1}}, -1};
  cosma.grid[0] = 1, cosma.grid[1] = 1, cosma.grid[2] = 2;  // K columns per rank: 3 and 2
  cosma.rounds = 2;
  const tcert::StepMemory m = tcert::check_spec(s, 2, 0);
  // C block 10x8; two slice buffers each (two rounds) of ⌈3/2⌉ columns: 2 x 10x2 and 2 x 8x2
  EXPECT_EQ(tcert::parts_text(m), "C block 640 + A slices 320 + B slices 256");
  cosma.rounds = 3;
  EXPECT_EQ(error_of(s, 2, 0), "invalid cosma grid 1x1x2 with 3 rounds for 2 ranks and m, n, k = 10, 8, 5");
  s.K = {{{std::int64_t{1} << 21, 1, 1}}, -1};
  cosma.rounds = tcert::kMaxCosmaRounds + 1;  // at most 2^20 rounds, whatever the K columns
  EXPECT_EQ(error_of(s, 2, 0), "invalid cosma grid 1x1x2 with 1048577 rounds for 2 ranks and m, n, k = 10, 8, 2097152");
  s.K = {{{5, 1, 1}}, -1};
  cosma.rounds = 1;
  s.keep_result = true;
  EXPECT_EQ(error_of(s, 2, 0),
            "cosma reads its operands from the store and stores its result; it takes and keeps nothing");
}

}  // namespace
