// The runtime's block products (runtime/spec/block_layout.h, what a block-sparse program runs)
// against ir's counts of the TCE's loops (ir.h "Symmetry blocks", what the dry-run reports): the
// same stored elements and the same flops, diagonal blocks whole, for H2O/cc-pVDZ in C2v
// (occupied per irrep 3 0 1 1, virtual 8 2 3 6) and benzene/cc-pVDZ's occupied space in D2h.
#include <gtest/gtest.h>

#include "ir/ir.h"
#include "runtime/spec/block_layout.h"

namespace tcec::ir {
namespace {

struct Case {
  const char* name;
  SymmetricTensor C, A, B;               // ir's view: index ids 0.. (letters 'a' + id)
  std::vector<std::vector<int>> summed;  // summed antisymmetric runs (index ids)
};

std::vector<tcert::BlockGroup> block_groups(const std::vector<OrbitalGroup>& g) {
  std::vector<tcert::BlockGroup> out;
  for (const OrbitalGroup& x : g)
    out.push_back({x.spin == Spin::Alpha ? 0 : 1, x.irrep, static_cast<std::int64_t>(x.extent)});
  return out;
}

tcert::BlockLayout layout_of(const SymmetricTensor& t, const std::vector<std::vector<OrbitalGroup>>& groups,
                             bool restricted) {
  tcert::BlockSymmetry s;
  for (int i : t.indices) s.groups.push_back(block_groups(groups[static_cast<std::size_t>(i)]));
  s.upper = t.upper;
  s.antisymmetric = t.antisymmetric;
  s.irrep = t.irrep;
  s.restricted = restricted;
  return tcert::BlockLayout(s);
}

std::string letters(const std::vector<int>& ids) {
  std::string out;
  for (int i : ids) out += static_cast<char>('a' + i);
  return out;
}

void expect_same_counts(const std::vector<std::uint64_t>& occupied, const std::vector<std::uint64_t>& virtuals) {
  const std::vector<OrbitalGroup> O = spin_orbital_groups(occupied), V = spin_orbital_groups(virtuals);
  // Ids 0-3 virtual (a b e f), 4-7 occupied (i j m n).
  const std::vector<std::vector<OrbitalGroup>> groups{V, V, V, V, O, O, O, O};
  const std::vector<std::vector<int>> pairs{{0, 1}, {2, 3}};
  const std::vector<Case> cases{
      {"ladder r[a,b,i,j] += t[e,f,i,j] v[a,b,e,f]",
       {{0, 1, 4, 5}, 2, pairs, 0},
       {{2, 3, 4, 5}, 2, pairs, 0},
       {{0, 1, 2, 3}, 2, pairs, 0},
       {{2, 3}}},
      {"hole ladder r[a,b,i,j] += t[a,b,m,n] v[m,n,i,j]",
       {{0, 1, 4, 5}, 2, pairs, 0},
       {{0, 1, 6, 7}, 2, pairs, 0},
       {{6, 7, 4, 5}, 2, pairs, 0},
       {{6, 7}}},
      {"ring r[a,b,i,j] += t[a,e,i,m] v[m,b,e,j]",
       {{0, 1, 4, 5}, 2, pairs, 0},
       {{0, 2, 4, 6}, 2, pairs, 0},
       {{6, 1, 2, 5}, 2, {}, 0},
       {}},
      {"irrep 1: r[a,i] += f[e,m] t[a,e,i,m]", {{0, 4}, 1, {}, 1}, {{2, 6}, 1, {}, 1}, {{0, 2, 4, 6}, 2, pairs, 0}, {}},
  };
  for (bool restricted : {false, true}) {
    SymmetryRules rules;
    rules.restricted = restricted;
    rules.packed_diagonal = false;
    for (const Case& c : cases) {
      const tcert::BlockLayout A = layout_of(c.A, groups, restricted), B = layout_of(c.B, groups, restricted),
                               C = layout_of(c.C, groups, restricted);
      EXPECT_EQ(static_cast<std::uint64_t>(C.elements()), stored_elements(c.C, groups, rules)) << c.name;
      EXPECT_EQ(static_cast<std::uint64_t>(A.elements()), stored_elements(c.A, groups, rules)) << c.name;
      tcert::BlockLabels labels{letters(c.A.indices), letters(c.B.indices), letters(c.C.indices), {}};
      for (const std::vector<int>& run : c.summed) labels.summed_runs.push_back(letters(run));
      double flops = 0;
      for (const tcert::BlockProduct& p : tcert::block_products(A, B, C, labels)) flops += p.flops;
      EXPECT_EQ(flops, contraction_flops(c.C, c.A, c.B, c.summed, groups, rules))
          << c.name << (restricted ? ", restricted" : "");
    }
  }
}

TEST(BlockProducts, CountTheFlopsIrCountsForWater) { expect_same_counts({3, 0, 1, 1}, {8, 2, 3, 6}); }

TEST(BlockProducts, CountTheFlopsIrCountsInD2h) {
  expect_same_counts({6, 3, 1, 1, 0, 1, 5, 4}, {3, 2, 1, 2, 1, 1, 3, 2});
}

// Tiles of at most 6 orbitals (tiles_of) bring the stored elements of benzene's t2 and v_pppp,
// diagonal blocks whole, within 10% of the symmetry-unique (packed) counts: 699,635 against
// 641,749 and 12,409,420 against 11,996,221 (whole groups: 736,570 and 13,312,045). Water's t2 is
// 13% over even with one orbital per tile (3,291 against 2,904: its pairs i = j and a = b).
TEST(BlockProducts, TilesOfSixStoreBenzeneWithin10PercentOfTheUniqueCounts) {
  const std::vector<std::uint64_t> o{6, 3, 1, 1, 0, 1, 5, 4}, v{18, 15, 5, 8, 6, 8, 19, 14};
  const std::vector<tcert::BlockGroup> O = tcert::tiles_of(block_groups(spin_orbital_groups(o)), 6),
                                       V = tcert::tiles_of(block_groups(spin_orbital_groups(v)), 6);
  const tcert::BlockLayout t2({{V, V, O, O}, 2, {{0, 1}, {2, 3}}, 0, true});
  const tcert::BlockLayout vv({{V, V, V, V}, 2, {{0, 1}, {2, 3}}, 0, true});
  EXPECT_EQ(t2.elements(), 699635);
  EXPECT_EQ(vv.elements(), 12409420);
  const SymmetricTensor t2_view{{0, 1, 4, 5}, 2, {{0, 1}, {2, 3}}, 0}, v_view{{0, 1, 2, 3}, 2, {{0, 1}, {2, 3}}, 0};
  const std::vector<OrbitalGroup> Og = spin_orbital_groups(o), Vg = spin_orbital_groups(v);
  const std::vector<std::vector<OrbitalGroup>> groups{Vg, Vg, Vg, Vg, Og, Og};
  const double unique_t2 = static_cast<double>(stored_elements(t2_view, groups, SymmetryRules{}));
  const double unique_v = static_cast<double>(stored_elements(v_view, groups, SymmetryRules{}));
  EXPECT_EQ(unique_t2, 641749);
  EXPECT_EQ(unique_v, 11996221);
  EXPECT_LE(static_cast<double>(t2.elements()), 1.10 * unique_t2);
  EXPECT_LE(static_cast<double>(vv.elements()), 1.10 * unique_v);
}

}  // namespace
}  // namespace tcec::ir
