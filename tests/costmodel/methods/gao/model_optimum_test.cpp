// tests/costmodel/methods/gao/model_optimum_test.cpp — the closed-form model optimum
// against the paper: the reproducible cells of Gao et al. Table 9 and
// hand-evaluated entries of the corrected Tables 2–4, 6, 7
// (docs/model.md).
#include <gtest/gtest.h>

#include <cmath>

#include "costmodel/methods/gao/model_optimum.h"
#include "tests/costmodel/fixtures.h"

namespace tcec::costmodel {
namespace {

using namespace fixtures;

TEST(Table9, InsideRotation) {
  const ModelPoint p =
      best_model_optimum(cube(4000, 4000, 4000), table9_machine(), Communication::Inside, Algorithm::Rotation);
  EXPECT_NEAR(p.time_s, 25.28, 0.005 * 25.28);
  EXPECT_EQ(p.order, PlacementOrder::CAB);
  EXPECT_EQ(p.case_id, 1);  // It1 = Jt1 = 2
  EXPECT_DOUBLE_EQ(p.tiles.It1, 2);
  EXPECT_DOUBLE_EQ(p.tiles.Jt1, 2);
}

TEST(Table9, InsideAccumulation) {
  const ModelPoint p =
      best_model_optimum(cube(4000, 4000, 4000), table9_machine(), Communication::Inside, Algorithm::Accumulation);
  EXPECT_NEAR(p.time_s, 53.792, 0.005 * 53.792);
  EXPECT_EQ(p.order, PlacementOrder::ABC);
  EXPECT_EQ(p.case_id, 3);  // Kt1 = 1, It1 = A/(MP) = 4
  EXPECT_DOUBLE_EQ(p.tiles.It1, 4);
  EXPECT_DOUBLE_EQ(p.tiles.Kt1, 1);
}

TEST(Table9, OutsideReplication) {
  const ModelPoint p =
      best_model_optimum(cube(4000, 4000, 4000), table9_machine(), Communication::Outside, Algorithm::Replication);
  EXPECT_NEAR(p.time_s, 56.905, 0.005 * 56.905);
  EXPECT_EQ(p.order, PlacementOrder::CAB);
  EXPECT_EQ(p.replicated, Operand::A);
  // X* = √(m·wY/wX) = √(4·16/4) = 4 = m exactly: the ⟨1⟩/⟨3⟩ boundary, reported
  // as ⟨3⟩ (Jt1 = 1). The paper's condition J < √M·P is 4000 < 4000, i.e. ⟨1⟩.
  EXPECT_EQ(p.case_id, 3);
  EXPECT_DOUBLE_EQ(p.tiles.It1, 4);
  EXPECT_DOUBLE_EQ(p.tiles.Jt1, 1);
}

TEST(BestModelOptimum, IsTheLeastOverOrdersAndOperands) {
  const Problem pr = cube(3000, 9000, 5000);
  const Machine m = paper_machine(16, 1e8, 5e8);
  for (Communication comm : {Communication::Inside, Communication::Outside})
    for (Algorithm a : {Algorithm::Rotation, Algorithm::Replication, Algorithm::Accumulation}) {
      const ModelPoint best = best_model_optimum(pr, m, comm, a);
      for (Operand r : {Operand::A, Operand::B})
        for (PlacementOrder o : kAllOrders) EXPECT_LE(best.time_s, model_optimum(pr, m, comm, a, o, r).time_s);
      EXPECT_EQ(best.time_s, model_optimum(pr, m, comm, a, best.order, best.replicated).time_s);
    }
}

TEST(BestModelOptimum, RotationOnANonSquareProcessorCount) {
  const ModelPoint p = best_model_optimum(cube(4000, 4000, 4000), paper_machine(6, 1e8, 1e9), Communication::Outside,
                                          Algorithm::Rotation);
  EXPECT_FALSE(p.feasible);
  EXPECT_EQ(p.reason, "P = 6 is not a perfect square");
  EXPECT_TRUE(std::isinf(p.time_s));
}

// Table 4 ABC ⟨1⟩ (notes): It1 = I√(2/M), Kt1 = K/(P√(2M)),
// D = C + A/P + √(8ABC/M)/P, V = f_red·C·log2 P. M = 1e6 elements.
TEST(CorrectedTables, OutsideAccumulationAbcCase1) {
  const Problem pr = cube(20000, 20000, 20000);
  const Machine m = paper_machine(4, 1e8, 1e9);
  const ModelPoint p =
      model_optimum(pr, m, Communication::Outside, Algorithm::Accumulation, PlacementOrder::ABC, Operand::A);
  const double M = 8e6, P = 4;
  EXPECT_EQ(p.case_id, 1);
  EXPECT_NEAR(p.tiles.It1, 20000 * std::sqrt(2 / 1e6), 1e-9);
  EXPECT_NEAR(p.tiles.Kt1, 20000 / (P * std::sqrt(2e6)), 1e-9);
  const double D = pr.C + pr.A / P + std::sqrt(8 * pr.A * pr.B * pr.C / M) / P;
  const double V = pr.C * 2;
  EXPECT_NEAR(p.time_s, D / 1e8 + V / 1e9, 1e-9 * p.time_s);
}

// Table 3 CAB ⟨1⟩ (notes): It1 = I/√M, Jt1 = J/(P√M), D2 = 2C/P + √(4ABC/M)/P,
// plus D1 = A and V = f_rep·A (f_rep = 1). Needs I >= √M, J >= √M·P.
TEST(CorrectedTables, OutsideReplicationCabCase1) {
  const Problem pr = cube(3000, 20000, 5000);
  const Machine m = paper_machine(4, 1e8, 1e9);
  const ModelPoint p =
      model_optimum(pr, m, Communication::Outside, Algorithm::Replication, PlacementOrder::CAB, Operand::A);
  const double M = 8e6, P = 4;
  EXPECT_EQ(p.case_id, 1);
  EXPECT_NEAR(p.tiles.It1, 3000 / 1e3, 1e-9);
  EXPECT_NEAR(p.tiles.Jt1, 20000 / (P * 1e3), 1e-9);
  const double D = pr.A + 2 * pr.C / P + std::sqrt(4 * pr.A * pr.B * pr.C / M) / P;
  EXPECT_NEAR(p.time_s, D / 1e8 + pr.A / 1e9, 1e-9 * p.time_s);
}

// Table 2 ABC ⟨3⟩: K < √(2MP): It1 = A/(MP), Kt1 = 1,
// D2 = A/√P + AB/(MP√P) + 2C/√P, D1 = 2(A+B)/√P, V = (A+B)/√P.
TEST(CorrectedTables, OutsideRotationAbcCase3) {
  const Problem pr = cube(30000, 30000, 1500);
  const Machine m = paper_machine(4, 1e8, 1e9);
  const ModelPoint p =
      model_optimum(pr, m, Communication::Outside, Algorithm::Rotation, PlacementOrder::ABC, Operand::A);
  const double M = 8e6, P = 4, sqrtP = 2;
  EXPECT_EQ(p.case_id, 3);
  EXPECT_DOUBLE_EQ(p.tiles.It1, pr.A / (M * P));
  EXPECT_DOUBLE_EQ(p.tiles.Kt1, 1);
  const double D = 2 * (pr.A + pr.B) / sqrtP + pr.A / sqrtP + pr.A * pr.B / (M * P * sqrtP) + 2 * pr.C / sqrtP;
  EXPECT_NEAR(p.time_s, D / 1e8 + (pr.A + pr.B) / sqrtP / 1e9, 1e-9 * p.time_s);
}

// Table 6 CAB ⟨1⟩ (notes): It1 = I√((1+PR)/(MP)), Jt1 = J/√(MP(1+PR)),
// EffVol = 2C/P + √(4ABC(1+PR)/(MP³)), time = EffVol/B_d, R = B_d/B_c.
TEST(CorrectedTables, InsideReplicationCabCase1) {
  const Problem pr = cube(20000, 20000, 20000);
  const Machine m = paper_machine(4, 1e8, 1e9);
  const ModelPoint p =
      model_optimum(pr, m, Communication::Inside, Algorithm::Replication, PlacementOrder::CAB, Operand::A);
  const double M = 8e6, Me = 1e6, P = 4, R = 0.1;
  EXPECT_EQ(p.case_id, 1);
  EXPECT_NEAR(p.tiles.It1, 20000 * std::sqrt((1 + P * R) / (Me * P)), 1e-9);
  EXPECT_NEAR(p.tiles.Jt1, 20000 / std::sqrt(Me * P * (1 + P * R)), 1e-9);
  const double eff = 2 * pr.C / P + std::sqrt(4 * pr.A * pr.B * pr.C * (1 + P * R) / (M * P * P * P));
  EXPECT_NEAR(p.time_s, eff / 1e8, 1e-9 * p.time_s);
}

// Table 7 ABC ⟨1⟩ and ⟨3⟩ (notes), f_red = 1, log P = log2 P:
//   ⟨1⟩ Kt1 = K/(P√(M(2+R log P))), EffVol = A/P + 2√(ABC(2+R log P)/(MP²));
//   ⟨3⟩ It1 = A/(MP), EffVol = A/P + AB/(MP²) + C(2+R log P).
TEST(CorrectedTables, InsideAccumulationAbc) {
  const Machine m = paper_machine(16, 1e8, 1e9);
  const double M = 8e6, Me = 1e6, P = 16, g = 2 + 0.1 * 4;
  Problem pr = cube(2000, 2000, 400000);
  ModelPoint p = model_optimum(pr, m, Communication::Inside, Algorithm::Accumulation, PlacementOrder::ABC, Operand::A);
  EXPECT_EQ(p.case_id, 1);
  EXPECT_NEAR(p.tiles.Kt1, 400000 / (P * std::sqrt(Me * g)), 1e-9);
  double eff = pr.A / P + 2 * std::sqrt(pr.A * pr.B * pr.C * g / (M * P * P));
  EXPECT_NEAR(p.time_s, eff / 1e8, 1e-9 * p.time_s);
  pr = cube(20000, 20000, 20000);
  p = model_optimum(pr, m, Communication::Inside, Algorithm::Accumulation, PlacementOrder::ABC, Operand::A);
  EXPECT_EQ(p.case_id, 3);
  EXPECT_DOUBLE_EQ(p.tiles.It1, pr.A / (M * P));
  eff = pr.A / P + pr.A * pr.B / (M * P * P) + pr.C * g;
  EXPECT_NEAR(p.time_s, eff / 1e8, 1e-9 * p.time_s);
}

}  // namespace
}  // namespace tcec::costmodel
