// tests/costmodel/methods/gao/volumes_test.cpp — the model's volume expressions at given
// tile counts (costmodel/methods/gao/volumes.cpp), checked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "costmodel/methods/gao/volumes.h"
#include "tests/costmodel/fixtures.h"

namespace tcec::costmodel {
namespace {

using namespace fixtures;

// Distinct primes, so every product below is unambiguous.
TileCounts prime_tiles() { return {2, 3, 5, 7, 11, 13}; }

TEST(LoopNestCounts, MatchesFigure3ForEveryOrder) {
  const TileCounts t = prime_tiles();  // It1 2, It2 3, Jt1 5, Jt2 7, Kt1 11, Kt2 13
  struct Row {
    PlacementOrder order;
    double pA, pB, pC, nI, nJ, cA, cB, cC;
  };
  const Row rows[] = {
      {PlacementOrder::ABC, 1, 2, 11, 6, 5, 22, 55, 30},  {PlacementOrder::ACB, 1, 6, 11, 6, 5, 22, 715, 30},
      {PlacementOrder::BAC, 5, 1, 11, 2, 35, 22, 55, 70}, {PlacementOrder::BCA, 35, 1, 11, 2, 35, 286, 55, 70},
      {PlacementOrder::CAB, 5, 2, 1, 2, 35, 22, 385, 10}, {PlacementOrder::CBA, 5, 2, 1, 6, 5, 66, 55, 10},
  };
  for (const Row& r : rows) {
    const LoopNestCounts n = loop_nest_counts(r.order, t);
    SCOPED_TRACE(static_cast<int>(r.order));
    EXPECT_EQ(n.passes_A, r.pA);
    EXPECT_EQ(n.passes_B, r.pB);
    EXPECT_EQ(n.passes_C, r.pC);
    EXPECT_EQ(n.tiles_I, r.nI);
    EXPECT_EQ(n.tiles_J, r.nJ);
    EXPECT_EQ(n.cuts_A, r.cA);
    EXPECT_EQ(n.cuts_B, r.cB);
    EXPECT_EQ(n.cuts_C, r.cC);
  }
}

TEST(EvaluateModel, InsideRotationAtTable9Tiles) {
  // CAB with It1 = Jt1 = 2: D_read = 2·A/P + 2·B/P + C/P, D_write = C/P,
  // V = (A·2 + B·2)/√P; 20 s + 4 s + 1.28 s (the paper's 25.28).
  TileCounts t;
  t.It1 = t.Jt1 = 2, t.Kt1 = 4;
  const ModelPoint p = evaluate_model(table9_problem(), table9_machine(), Communication::Inside, Algorithm::Rotation,
                                      PlacementOrder::CAB, Operand::A, t);
  EXPECT_TRUE(p.feasible);
  EXPECT_DOUBLE_EQ(p.disk_read_bytes, 160e6);
  EXPECT_DOUBLE_EQ(p.disk_write_bytes, 32e6);
  EXPECT_DOUBLE_EQ(p.comm_bytes, 256e6);
  EXPECT_DOUBLE_EQ(p.time_s, 25.28);
}

TEST(EvaluateModel, OutsideMethodsIncludeTheOneTimeVolumes) {
  const Problem pr = table9_problem();
  const Machine m = table9_machine();
  const TileCounts ones;
  // Outside rotation: D1 = (A+B)/√P read and written, V = (A+B)/√P; one pass
  // of A/√P, B/√P, C/√P read and C/√P written.
  ModelPoint p =
      evaluate_model(pr, m, Communication::Outside, Algorithm::Rotation, PlacementOrder::ABC, Operand::A, ones);
  EXPECT_DOUBLE_EQ(p.disk_read_bytes, 128e6 + 3 * 64e6);
  EXPECT_DOUBLE_EQ(p.disk_write_bytes, 128e6 + 64e6);
  EXPECT_DOUBLE_EQ(p.comm_bytes, 128e6);
  // Outside replication of A: D1 = A written, V = f_rep·A, A read in full per pass.
  p = evaluate_model(pr, m, Communication::Outside, Algorithm::Replication, PlacementOrder::ABC, Operand::A, ones);
  EXPECT_DOUBLE_EQ(p.disk_read_bytes, 128e6 + 32e6 + 32e6);
  EXPECT_DOUBLE_EQ(p.disk_write_bytes, 128e6 + 32e6);
  EXPECT_DOUBLE_EQ(p.comm_bytes, std::sqrt(2.0) * 128e6);
  // Outside accumulation: D1 = C written, V = f_red·C·log2 P, C in full per pass.
  p = evaluate_model(pr, m, Communication::Outside, Algorithm::Accumulation, PlacementOrder::ABC, Operand::A, ones);
  EXPECT_DOUBLE_EQ(p.disk_read_bytes, 32e6 + 32e6 + 128e6);
  EXPECT_DOUBLE_EQ(p.disk_write_bytes, 128e6 + 128e6);
  EXPECT_DOUBLE_EQ(p.comm_bytes, 1.4 * 128e6 * 2);
}

TEST(EvaluateModel, InsideCommunicationScalesWithPasses) {
  const Problem pr = table9_problem();
  const Machine m = table9_machine();
  TileCounts t;
  t.It1 = 3, t.Jt1 = 5, t.Kt1 = 7;
  // Inside replication of A, CAB: A streamed Jt1 = 5 times, f_rep·A each.
  ModelPoint p =
      evaluate_model(pr, m, Communication::Inside, Algorithm::Replication, PlacementOrder::CAB, Operand::A, t);
  EXPECT_DOUBLE_EQ(p.comm_bytes, 5 * std::sqrt(2.0) * 128e6);
  // Replicating B instead: B streamed It1 = 3 times.
  p = evaluate_model(pr, m, Communication::Inside, Algorithm::Replication, PlacementOrder::CAB, Operand::B, t);
  EXPECT_DOUBLE_EQ(p.comm_bytes, 3 * std::sqrt(2.0) * 128e6);
  // Inside accumulation, ABC: C streamed Kt1 = 7 times, f_red·C·log2 P each.
  p = evaluate_model(pr, m, Communication::Inside, Algorithm::Accumulation, PlacementOrder::ABC, Operand::A, t);
  EXPECT_DOUBLE_EQ(p.comm_bytes, 7 * 1.4 * 128e6 * 2);
  // log2 1 = 0: no reduction on one processor.
  Machine one = m;
  one.processors = 1;
  p = evaluate_model(pr, one, Communication::Inside, Algorithm::Accumulation, PlacementOrder::ABC, Operand::A, t);
  EXPECT_EQ(p.comm_bytes, 0);
}

TEST(EvaluateModel, ReadAndWriteBandwidthsApplySeparately) {
  Machine m = table9_machine();
  m.disk_write_bytes_per_s = 2e6;
  TileCounts t;
  t.Kt1 = 2;
  const ModelPoint p = evaluate_model(table9_problem(), m, Communication::Inside, Algorithm::Accumulation,
                                      PlacementOrder::ABC, Operand::A, t);
  // Reads A/P + B/P + 2·C, writes 2·C, all-reduce 2 passes.
  EXPECT_DOUBLE_EQ(p.time_s, (64e6 + 256e6) / 8e6 + 256e6 / 2e6 + 2 * 1.4 * 128e6 * 2 / 200e6);
}

TEST(EvaluateModel, ReplicatingBMirrorsReplicatingA) {
  // Swap A↔B, I↔J, and the order ABC ↔ BAC etc.: same volumes.
  const Problem pr{300, 7000, 900, 300 * 900 * 8.0, 7000 * 900 * 8.0, 300 * 7000 * 8.0};
  const Problem mirror{7000, 300, 900, pr.B, pr.A, pr.C};
  const Machine m = table9_machine();
  const TileCounts t = prime_tiles();
  const TileCounts tm{t.Jt1, t.Jt2, t.It1, t.It2, t.Kt1, t.Kt2};
  const PlacementOrder pairs[][2] = {{PlacementOrder::ABC, PlacementOrder::BAC},
                                     {PlacementOrder::ACB, PlacementOrder::BCA},
                                     {PlacementOrder::CAB, PlacementOrder::CBA}};
  for (Communication comm : {Communication::Inside, Communication::Outside})
    for (const auto& pair : pairs)
      for (int side = 0; side < 2; ++side) {
        const ModelPoint b = evaluate_model(pr, m, comm, Algorithm::Replication, pair[side], Operand::B, t);
        const ModelPoint a = evaluate_model(mirror, m, comm, Algorithm::Replication, pair[1 - side], Operand::A, tm);
        EXPECT_DOUBLE_EQ(b.time_s, a.time_s);
        EXPECT_DOUBLE_EQ(b.comm_bytes, a.comm_bytes);
      }
}

TEST(EvaluateModel, RotationNeedsASquareProcessorCount) {
  Machine m = table9_machine();
  m.processors = 6;
  const ModelPoint p = evaluate_model(table9_problem(), m, Communication::Inside, Algorithm::Rotation,
                                      PlacementOrder::ABC, Operand::A, {});
  EXPECT_FALSE(p.feasible);
  EXPECT_EQ(p.reason, "P = 6 is not a perfect square");
  EXPECT_TRUE(is_perfect_square(1));
  EXPECT_TRUE(is_perfect_square(64));
  EXPECT_FALSE(is_perfect_square(2));
  EXPECT_FALSE(is_perfect_square(48));
}

TEST(FitsMemory, ChecksEachArrayAgainstItsThreshold) {
  const Problem pr = table9_problem();
  const Machine m = table9_machine();
  // Accumulation: a = b = A/(MP) = 4, c = C/M = 16.
  const TileThresholds th = tile_thresholds(pr, m, Algorithm::Accumulation, Operand::A);
  EXPECT_DOUBLE_EQ(th.a, 4);
  EXPECT_DOUBLE_EQ(th.b, 4);
  EXPECT_DOUBLE_EQ(th.c, 16);
  // Replication of B: b = B/M = 16.
  EXPECT_DOUBLE_EQ(tile_thresholds(pr, m, Algorithm::Replication, Operand::B).b, 16);
  TileCounts t;
  t.It1 = 4, t.Kt1 = 1, t.Jt1 = 4;  // ABC: A 4, B 4, C It1·It2·Jt1 = 16
  std::string reason;
  EXPECT_TRUE(fits_memory(pr, m, Algorithm::Accumulation, PlacementOrder::ABC, Operand::A, t, &reason));
  t.Jt1 = 2;
  EXPECT_FALSE(fits_memory(pr, m, Algorithm::Accumulation, PlacementOrder::ABC, Operand::A, t, &reason));
  EXPECT_EQ(reason, "array B is cut into 2 tiles but needs at least 4 to fit M = 8000000 bytes");
  t.Jt1 = 0.5;
  EXPECT_FALSE(fits_memory(pr, m, Algorithm::Accumulation, PlacementOrder::ABC, Operand::A, t, &reason));
  EXPECT_EQ(reason, "tile count Jt1 = 0.5 is below 1");
}

}  // namespace
}  // namespace tcec::costmodel
