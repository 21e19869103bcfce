// Symmetry-blocked element and flop counts (ir.h "Symmetry blocks") against the table of the
// issue "Symmetry-blocked tensors": closed-shell CCSD with all electrons correlated, H2O/cc-pVDZ
// in C2v (occupied per irrep A1 A2 B1 B2: 3 0 1 1, virtual 8 2 3 6) and benzene/cc-pVDZ in D2h
// (Ag B1g B2g B3g Au B1u B2u B3u: occupied 6 3 1 1 0 1 5 4, virtual 18 15 5 8 6 8 19 14), as
// psi4 orders the irreps. Each row adds one symmetry to the one before: dense spin orbitals,
// spin blocks, restricted (no all-beta block), one order of each antisymmetric pair, point group.
// Stored: v_pppp[p1,p2,p3,p4] and t2[p1,p2,h1,h2] (8-byte elements); flops: the ladder
// r[p1,p2,h1,h2] += v[p1,p2,p3,p4] · t[p3,p4,h1,h2].
#include <gtest/gtest.h>

#include "ir/ir.h"

namespace tcec::ir {
namespace {

struct Molecule {
  std::vector<std::uint64_t> occupied, virtuals;
};

/// Indices 0–3: p1 p2 p3 p4 (virtual), 4–5: h1 h2 (occupied).
std::vector<std::vector<OrbitalGroup>> groups_of(const Molecule& m) {
  const std::vector<OrbitalGroup> V = spin_orbital_groups(m.virtuals), O = spin_orbital_groups(m.occupied);
  return {V, V, V, V, O, O};
}

const SymmetricTensor kV{{0, 1, 2, 3}, 2, {{0, 1}, {2, 3}}, 0};   // v[p1,p2,p3,p4]
const SymmetricTensor kT{{2, 3, 4, 5}, 2, {{0, 1}, {2, 3}}, 0};   // t[p3,p4,h1,h2]
const SymmetricTensor kR{{0, 1, 4, 5}, 2, {{0, 1}, {2, 3}}, 0};   // r[p1,p2,h1,h2]
const SymmetricTensor kT2{{0, 1, 4, 5}, 2, {{0, 1}, {2, 3}}, 0};  // t2[p1,p2,h1,h2]

/// The table's rows: which symmetries each counts.
std::vector<SymmetryRules> rows() {
  return {{false, false, false, false},
          {true, false, false, false},
          {true, true, false, false},
          {true, true, true, false},
          {true, true, true, true}};
}

struct Figures {
  double v_bytes, t2_bytes, ladder_flops;
};

void expect_table(const Molecule& m, const std::vector<Figures>& table, const std::vector<double>& tolerance) {
  const auto groups = groups_of(m);
  for (std::size_t row = 0; row < table.size(); ++row) {
    const SymmetryRules rules = rows()[row];
    const double v = 8.0 * static_cast<double>(stored_elements(kV, groups, rules));
    const double t2 = 8.0 * static_cast<double>(stored_elements(kT2, groups, rules));
    const double flops = contraction_flops(kR, kV, kT, {{2, 3}}, groups, rules);
    EXPECT_NEAR(v / table[row].v_bytes, 1.0, tolerance[0]) << "row " << row << ": " << v;
    EXPECT_NEAR(t2 / table[row].t2_bytes, 1.0, tolerance[1]) << "row " << row << ": " << t2;
    EXPECT_NEAR(flops / table[row].ladder_flops, 1.0, tolerance[2]) << "row " << row << ": " << flops;
  }
}

TEST(Symmetry, SpinOrbitalGroupsAreAlphaThenBetaByIrrep) {
  const std::vector<OrbitalGroup> g = spin_orbital_groups({3, 0, 1, 1});
  ASSERT_EQ(g.size(), 6u);
  EXPECT_EQ(g[0].spin, Spin::Alpha);
  EXPECT_EQ(g[0].irrep, 0);
  EXPECT_EQ(g[0].extent, 3u);
  EXPECT_EQ(g[1].irrep, 2);  // A2 has no orbital: no group
  EXPECT_EQ(g[3].spin, Spin::Beta);
  EXPECT_EQ(g[5].irrep, 3);
  EXPECT_THROW(spin_orbital_groups(std::vector<std::uint64_t>(9, 1)), std::invalid_argument);
}

TEST(Symmetry, WaterCcPvdzStoresAndMultipliesWhatTheTceDoes) {
  const Molecule water{{3, 0, 1, 1}, {8, 2, 3, 6}};
  // The table's figures (3 significant digits for bytes, 2 for flops; dense and all-symmetry rows
  // exact below).
  expect_table(water,
               {{16.7e6, 1.16e6, 417e6},
                {6.26e6, 0.43e6, 65e6},
                {5.21e6, 0.36e6, 59e6},
                {1.28e6, 86e3, 7.1e6},
                {334e3, 23e3, 0.54e6}},
               {0.005, 0.02, 0.02});
  const auto groups = groups_of(water);
  const SymmetryRules dense{false, false, false, false}, all{};
  EXPECT_EQ(stored_elements(kV, groups, dense), 38u * 38 * 38 * 38);
  EXPECT_EQ(contraction_flops(kR, kV, kT, {{2, 3}}, groups, dense), 2.0 * 38 * 38 * 38 * 38 * 10 * 10);
  // All symmetries, counted element by element over pairs p < q (one order, all-alpha for all-beta).
  EXPECT_EQ(stored_elements(kV, groups, all), 41818u);
  EXPECT_EQ(stored_elements(kT2, groups, all), 2904u);
  EXPECT_EQ(contraction_flops(kR, kV, kT, {{2, 3}}, groups, all), 542428.0);
}

TEST(Symmetry, BenzeneCcPvdzStoresAndMultipliesWhatTheTceDoes) {
  const Molecule benzene{{6, 3, 1, 1, 0, 1, 5, 4}, {18, 15, 5, 8, 6, 8, 19, 14}};
  expect_table(benzene,
               {{9.58e9, 488e6, 4.22e12},
                {3.59e9, 183e6, 660e9},
                {2.99e9, 153e6, 594e9},
                {745e6, 38e6, 74e9},
                {96e6, 5.1e6, 1.39e9}},
               {0.005, 0.01, 0.01});
  const auto groups = groups_of(benzene);
  EXPECT_EQ(stored_elements(kV, groups, {}), 11996221u);
  EXPECT_EQ(stored_elements(kT2, groups, {}), 641749u);
  EXPECT_EQ(contraction_flops(kR, kV, kT, {{2, 3}}, groups, {}), 1394334738.0);
}

TEST(Symmetry, AnAntisymmetricRunNeedsOneKindOfIndex) {
  const auto groups = groups_of({{3, 0, 1, 1}, {8, 2, 3, 6}});
  const SymmetricTensor mixed{{0, 4}, 1, {{0, 1}}, 0};  // a run over a virtual and an occupied index
  EXPECT_THROW(stored_elements(mixed, groups, {}), std::invalid_argument);
  // Without the antisymmetric rule the run is not looked at.
  EXPECT_EQ(stored_elements(mixed, groups, {true, true, false, true}),
            stored_elements(SymmetricTensor{{0, 4}, 1, {}, 0}, groups, {}));
}

TEST(Symmetry, AntisymmetricRunsAreRunsOfOneRangeWithinAHalf) {
  Tensor v{"v", {1, 1, 1, 1}};  // v[V,V,V,V]: upper V,V and lower V,V
  EXPECT_EQ(antisymmetric_runs(v), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  Tensor w{"w", {0, 1, 1, 1}};
  w.upper = 1;  // w[O | V,V,V]: one run of three in the lower half
  EXPECT_EQ(antisymmetric_runs(w), (std::vector<std::vector<int>>{{1, 2, 3}}));
  Tensor t{"t", {1, 0, 1, 0}};  // t[V,O,V,O]: no two neighbours over one range in a half
  EXPECT_TRUE(antisymmetric_runs(t).empty());
  v.dense = true;
  EXPECT_TRUE(antisymmetric_runs(v).empty());
  EXPECT_EQ(Tensor({"f", {0, 1, 1}}).upper_dims(), 2u);  // half the rank, rounded up
}

TEST(Symmetry, PointGroupsAreTheAbelianOnes) {
  EXPECT_EQ(point_group_irreps("c1"), 1);
  EXPECT_EQ(point_group_irreps("cs"), 2);
  EXPECT_EQ(point_group_irreps("c2v"), 4);
  EXPECT_EQ(point_group_irreps("d2h"), 8);
  EXPECT_EQ(point_group_irreps("c3v"), std::nullopt);
  EXPECT_EQ(point_group_irreps("C2v"), std::nullopt);  // names as written in a .tce file: lower case
}

TEST(Symmetry, TheLadderOfWaterCountsDiagonalBlocksWhole) {
  // r[p1,p2,h1,h2] += 1/2 * t[p3,p4,h1,h2] * v[p1,p2,p3,p4], water in cc-pVDZ, C2v, restricted:
  // with diagonal blocks whole, the counts examples/h2o_ccd_symmetry.tce's dry-run reports; packed,
  // the symmetry-unique ones above (v 41818, t 2904, 542428 flops).
  Program p;
  p.symmetry = PointGroup{"c2v", 4, true, {}};
  p.ranges = {{"O", 10, {}, {3, 0, 1, 1}}, {"V", 38, {}, {8, 2, 3, 6}}};
  for (const char* name : {"h1", "h2"}) p.indices.push_back({name, 0, {}});
  for (const char* name : {"p1", "p2", "p3", "p4"}) p.indices.push_back({name, 1, {}});
  p.tensors = {{"t", {1, 1, 0, 0}, TensorRole::Input},
               {"v", {1, 1, 1, 1}, TensorRole::Input},
               {"r", {1, 1, 0, 0}, TensorRole::Output}};
  Statement s;
  s.result = {2, {2, 3, 0, 1}, {}};
  s.operands = {{0, {4, 5, 0, 1}, {}}, {1, {2, 3, 4, 5}, {}}};
  const std::optional<ContractionSymmetry> sym = contraction_symmetry(p, s);
  ASSERT_TRUE(sym.has_value());
  EXPECT_EQ(sym->stored_A, 4006u);
  EXPECT_EQ(sym->stored_B, 52378u);
  EXPECT_EQ(sym->stored_C, 4006u);
  EXPECT_EQ(sym->flops, 810092.0);
  p.tensors[1].dense = true;  // a dense tensor: no counts
  EXPECT_FALSE(contraction_symmetry(p, s).has_value());
  p.tensors[1].dense = false;
  p.symmetry.reset();
  EXPECT_FALSE(contraction_symmetry(p, s).has_value());
}

}  // namespace
}  // namespace tcec::ir
