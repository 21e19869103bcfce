// tests/costmodel/methods/gao/rotation_test.cpp — inside rotation (costmodel/methods/gao/rotation.cpp):
// the joint optimum of time against the paper's §5.1 analysis (Table 5 and
// Eqs. 5.2–5.6 as corrected in docs/model.md "Table 5").
#include <gtest/gtest.h>

#include <cmath>

#include "costmodel/methods/gao/model_optimum.h"
#include "tests/costmodel/fixtures.h"

namespace tcec::costmodel {
namespace {

using namespace fixtures;

ModelPoint inside_rotation(const Problem& pr, const Machine& m, PlacementOrder order) {
  return model_optimum(pr, m, Communication::Inside, Algorithm::Rotation, order, Operand::A);
}

// Table 5 (3), ACB with I < √(MP): It1 = 1, Jt1 = C/(MP), Kt1 = A/(MP),
// D = A/P + B/P + 2AC/(MP²), V = AC/(MP√P) + B/√P.
TEST(InsideRotation, Table5Entry3IsAcbWithIt1One) {
  const Problem pr = cube(500, 20000, 20000);
  const Machine m = paper_machine(4, 1e8, 1e9);
  const double M = 8e6, P = 4, sqrtP = 2;
  const ModelPoint p = inside_rotation(pr, m, PlacementOrder::ACB);
  EXPECT_EQ(p.case_id, 2);
  EXPECT_DOUBLE_EQ(p.tiles.It1, 1);
  EXPECT_DOUBLE_EQ(p.tiles.Jt1, pr.C / (M * P));
  EXPECT_DOUBLE_EQ(p.tiles.Kt1, pr.A / (M * P));
  const double D = pr.A / P + pr.B / P + 2 * pr.A * pr.C / (M * P * P);
  const double V = pr.A * pr.C / (M * P * sqrtP) + pr.B / sqrtP;
  EXPECT_NEAR(p.time_s, D / 1e8 + V / 1e9, 1e-9 * p.time_s);
}

// With communication free, ABC is the disk optimum of Eq. 5.4,
// A/P + √(8ABC/(MP³)); with disk free, the communication optimum of Eq. 5.2,
// (2/P)·√(ABC/M).
TEST(InsideRotation, AbcLimitsAreThePapersSeparateOptima) {
  const Problem pr = cube(40000, 40000, 40000);
  const double M = 8e6, P = 4, abc = pr.A * pr.B * pr.C;
  ModelPoint p = inside_rotation(pr, paper_machine(4, 1e8, 1e30), PlacementOrder::ABC);
  EXPECT_NEAR(p.time_s * 1e8, pr.A / P + std::sqrt(8 * abc / (M * P * P * P)), 1e-9 * p.time_s * 1e8);
  p = inside_rotation(pr, paper_machine(4, 1e30, 1e8), PlacementOrder::ABC);
  EXPECT_NEAR(p.time_s * 1e8, 2 / P * std::sqrt(abc / M), 1e-9 * p.time_s * 1e8);
}

// The paper keeps the communication-optimal tiles (Eqs. 5.5, 5.6):
// D = A/P + 3√(ABC/(MP³)), V = 2√(ABC/(MP²)). The joint optimum is never worse;
// when disk dominates (R = B_d/B_c = 0.01) it is >5% better (→ 6% as A/P
// vanishes: 3 against √8), and once communication matters (R = 1) the two agree.
TEST(InsideRotation, JointOptimumBeatsCommunicationOptimalTiles) {
  const Problem pr = cube(40000, 40000, 40000);
  const double M = 8e6, P = 4, abc = pr.A * pr.B * pr.C;
  const double D = pr.A / P + 3 * std::sqrt(abc / (M * P * P * P));
  const double V = 2 * std::sqrt(abc / (M * P * P));
  for (double R : {0.01, 0.1, 1.0}) {
    const ModelPoint p = inside_rotation(pr, paper_machine(4, 1e8, 1e8 / R), PlacementOrder::ABC);
    const double paper = D / 1e8 + V * R / 1e8;
    EXPECT_LE(p.time_s, paper * (1 + 1e-12)) << "R = " << R;
    if (R == 0.01) {
      EXPECT_GT(paper / p.time_s, 1.05);
    }
    if (R == 1.0) {
      EXPECT_NEAR(p.time_s, paper, 1e-9 * paper);
    }
  }
}

// BAC/BCA are ABC/ACB with A↔B and I↔J.
TEST(InsideRotation, BacAndBcaMirrorAbcAndAcb) {
  const Problem pr = cube(3000, 70000, 9000), mirror = cube(70000, 3000, 9000);
  for (double network : {1e7, 1e8, 1e9}) {
    const Machine m = paper_machine(16, 1e8, network);
    const ModelPoint bac = inside_rotation(pr, m, PlacementOrder::BAC);
    const ModelPoint abc = inside_rotation(mirror, m, PlacementOrder::ABC);
    EXPECT_NEAR(bac.time_s, abc.time_s, 1e-12 * abc.time_s);
    EXPECT_EQ(bac.case_id, abc.case_id);
    EXPECT_DOUBLE_EQ(bac.tiles.Jt1, abc.tiles.It1);
    const ModelPoint bca = inside_rotation(pr, m, PlacementOrder::BCA);
    const ModelPoint acb = inside_rotation(mirror, m, PlacementOrder::ACB);
    EXPECT_NEAR(bca.time_s, acb.time_s, 1e-12 * acb.time_s);
    EXPECT_EQ(bca.case_id, acb.case_id);
  }
}

}  // namespace
}  // namespace tcec::costmodel
