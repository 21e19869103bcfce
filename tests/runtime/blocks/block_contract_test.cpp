// tests/runtime/blocks/block_contract_test.cpp — block-sparse layouts and contractions against
// dense spin-orbital tensors that have the symmetries (antisymmetric runs, spin and irrep
// conservation, restricted spin flip), contracted element by element.
#include "runtime/blocks/block_contract.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tcert::BlockGroup;
using tcert::BlockLayout;
using tcert::BlockSymmetry;
using Groups = std::vector<BlockGroup>;

/// A range's groups as the TCE orders them: alpha then beta, each by irrep (no empty group).
Groups groups_of(const std::vector<std::int64_t>& per_irrep) {
  Groups out;
  for (int spin : {0, 1})
    for (std::size_t g = 0; g < per_irrep.size(); ++g)
      if (per_irrep[g] > 0) out.push_back({spin, static_cast<int>(g), per_irrep[g]});
  return out;
}

/// One orbital's group, spin and irrep within a dimension's full range.
struct Orbital {
  int group, spin, irrep;
};
std::vector<Orbital> orbitals(const Groups& groups) {
  std::vector<Orbital> out;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::int64_t q = 0; q < groups[g].extent; ++q)
      out.push_back({static_cast<int>(g), groups[g].spin, groups[g].irrep});
  return out;
}

/// A dense tensor (row-major over the dimensions' full ranges) of layout's symmetry, from
/// random values: averaged with its spin flip (restricted), antisymmetrized over each run, and
/// zero where spin or irrep is not conserved. Element by element, not through the layout.
std::vector<double> symmetric_dense(const BlockSymmetry& s, unsigned seed) {
  const std::size_t r = s.groups.size();
  std::vector<std::vector<Orbital>> orb;
  std::vector<std::int64_t> full;
  for (const Groups& g : s.groups) {
    orb.push_back(orbitals(g));
    full.push_back(static_cast<std::int64_t>(orb.back().size()));
  }
  std::int64_t n = 1;
  for (std::int64_t f : full) n *= f;
  auto linear = [&](const std::vector<std::int64_t>& at) {
    std::int64_t x = 0;
    for (std::size_t d = 0; d < r; ++d) x = x * full[d] + at[d];
    return x;
  };
  auto unlinear = [&](std::int64_t x) {
    std::vector<std::int64_t> at(r);
    for (std::size_t d = r; d-- > 0;) at[d] = x % full[d], x /= full[d];
    return at;
  };
  // The other spin's orbital of the same irrep at the same place among that irrep's orbitals
  // (whatever the tiles).
  auto flip = [&](std::size_t d, std::int64_t i) {
    const std::vector<Orbital>& o = orb[d];
    const Orbital& x = o[static_cast<std::size_t>(i)];
    std::int64_t place = 0;
    for (std::int64_t q = 0; q < i; ++q)
      place += o[static_cast<std::size_t>(q)].spin == x.spin && o[static_cast<std::size_t>(q)].irrep == x.irrep;
    for (std::size_t q = 0; q < o.size(); ++q)
      if (o[q].spin != x.spin && o[q].irrep == x.irrep && place-- == 0) return static_cast<std::int64_t>(q);
    return i;
  };
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = dist(rng);
  if (s.restricted) {
    std::vector<double> w = v;
    for (std::int64_t x = 0; x < n; ++x) {
      std::vector<std::int64_t> at = unlinear(x);
      for (std::size_t d = 0; d < r; ++d) at[d] = flip(d, at[d]);
      w[static_cast<std::size_t>(x)] = 0.5 * (v[static_cast<std::size_t>(x)] + v[static_cast<std::size_t>(linear(at))]);
    }
    v = w;
  }
  for (const std::vector<int>& run : s.antisymmetric) {
    std::vector<double> w(v.size(), 0.0);
    std::vector<int> order(run.size());
    for (std::int64_t x = 0; x < n; ++x) {
      const std::vector<std::int64_t> at = unlinear(x);
      std::iota(order.begin(), order.end(), 0);
      double sum = 0, count = 0;
      do {
        std::vector<std::int64_t> p = at;
        for (std::size_t q = 0; q < run.size(); ++q)
          p[static_cast<std::size_t>(run[q])] = at[static_cast<std::size_t>(run[static_cast<std::size_t>(order[q])])];
        int inversions = 0;
        for (std::size_t i = 0; i < order.size(); ++i)
          for (std::size_t j = i + 1; j < order.size(); ++j) inversions += order[i] > order[j];
        sum += (inversions % 2 ? -1.0 : 1.0) * v[static_cast<std::size_t>(linear(p))];
        count += 1;
      } while (std::next_permutation(order.begin(), order.end()));
      w[static_cast<std::size_t>(x)] = sum / count;
    }
    v = w;
  }
  for (std::int64_t x = 0; x < n; ++x) {
    const std::vector<std::int64_t> at = unlinear(x);
    int spin = 0, irrep = 0;
    for (std::size_t d = 0; d < r; ++d) {
      const Orbital& o = orb[d][static_cast<std::size_t>(at[d])];
      spin += (d < s.upper ? 1 : -1) * (o.spin == 0 ? 1 : -1);
      irrep ^= o.irrep;
    }
    if (spin != 0 || irrep != s.irrep) v[static_cast<std::size_t>(x)] = 0;
  }
  return v;
}

/// Dense C[c] += A[a] · B[b] (einsum letters), element by element; extents by letter.
std::vector<double> dense_contract(const std::string& a, const std::vector<double>& A, const std::string& b,
                                   const std::vector<double>& B, const std::string& c, std::map<char, std::int64_t> n) {
  std::string letters;
  for (const auto& [x, e] : n) letters += x;
  auto offset = [&](const std::string& t, const std::map<char, std::int64_t>& at) {
    std::int64_t o = 0;
    for (char x : t) o = o * n.at(x) + at.at(x);
    return o;
  };
  std::int64_t size_c = 1;
  for (char x : c) size_c *= n.at(x);
  std::vector<double> C(static_cast<std::size_t>(size_c), 0.0);
  std::map<char, std::int64_t> at;
  for (char x : letters) at[x] = 0;
  while (true) {
    C[static_cast<std::size_t>(offset(c, at))] +=
        A[static_cast<std::size_t>(offset(a, at))] * B[static_cast<std::size_t>(offset(b, at))];
    std::size_t q = 0;
    for (; q < letters.size(); ++q) {
      if (++at[letters[q]] < n.at(letters[q])) break;
      at[letters[q]] = 0;
    }
    if (q == letters.size()) break;
  }
  return C;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t x = 0; x < got.size(); ++x) EXPECT_NEAR(got[x], want[x], 1e-13) << "element " << x;
}

// Water-like groups in C2v, small: occupied 2,0,1,1 per irrep, virtual 2,1,0,2.
const Groups kO = groups_of({2, 0, 1, 1});
const Groups kV = groups_of({2, 1, 0, 2});

BlockSymmetry symmetry(const std::vector<const Groups*>& dims, std::size_t upper, std::vector<std::vector<int>> runs,
                       int irrep, bool restricted) {
  BlockSymmetry s;
  for (const Groups* g : dims) s.groups.push_back(*g);
  s.upper = upper;
  s.antisymmetric = std::move(runs);
  s.irrep = irrep;
  s.restricted = restricted;
  return s;
}

TEST(BlockLayout, StoresTheConservingBlocksInKeyOrderOnceEachRun) {
  // t2[a,b,i,j], antisymmetric in (a,b) and (i,j), totally symmetric.
  const BlockLayout t2(symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 0, false));
  std::int64_t elements = 0;
  for (std::size_t b = 0; b < t2.blocks(); ++b) {
    const std::vector<int> key = t2.key(b);
    EXPECT_TRUE(t2.nonzero(key));
    EXPECT_LE(key[0], key[1]);
    EXPECT_LE(key[2], key[3]);
    if (b > 0) {
      EXPECT_TRUE(t2.key(b - 1) < key);  // sorted
    }
    EXPECT_EQ(t2.offset(b), elements);
    EXPECT_EQ(t2.find(key), b);
    elements += t2.block_elements(b);
  }
  EXPECT_EQ(t2.elements(), elements);
  // Counted by hand over all group tuples: spin and irrep conserved, ordered along both runs.
  std::int64_t want = 0;
  for (std::size_t a = 0; a < kV.size(); ++a)
    for (std::size_t b = a; b < kV.size(); ++b)
      for (std::size_t i = 0; i < kO.size(); ++i)
        for (std::size_t j = i; j < kO.size(); ++j) {
          const int spin = (kV[a].spin == 0) + (kV[b].spin == 0) - (kO[i].spin == 0) - (kO[j].spin == 0);
          if (spin != 0 || (kV[a].irrep ^ kV[b].irrep ^ kO[i].irrep ^ kO[j].irrep) != 0) continue;
          want += kV[a].extent * kV[b].extent * kO[i].extent * kO[j].extent;
        }
  EXPECT_EQ(t2.elements(), want);
  EXPECT_EQ(t2.find({1, 0, 0, 0}), std::nullopt);  // not in stored order
}

TEST(BlockLayout, ReadsTheOtherOrderWithItsSignAndAllBetaFromAllAlpha) {
  const BlockLayout v(symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 0, true));
  // Groups 0 and 2 of both V and O are alpha of irreps 0 and 3.
  const std::optional<BlockLayout::Source> swapped = v.source({2, 0, 0, 2});
  ASSERT_TRUE(swapped);
  EXPECT_EQ(v.key(swapped->block), (std::vector<int>{0, 2, 0, 2}));
  EXPECT_EQ(swapped->perm, (std::vector<int>{1, 0, 2, 3}));
  EXPECT_EQ(swapped->sign, -1);
  const std::optional<BlockLayout::Source> both = v.source({2, 0, 2, 0});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->perm, (std::vector<int>{1, 0, 3, 2}));
  EXPECT_EQ(both->sign, 1);
  // All beta (V's beta groups are 3.., O's 3..): the all-alpha block, not stored itself.
  EXPECT_EQ(v.find({3, 3, 3, 3}), std::nullopt);
  const std::optional<BlockLayout::Source> beta = v.source({3, 3, 3, 3});
  ASSERT_TRUE(beta);
  EXPECT_EQ(v.key(beta->block), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(v.source({0, 3, 0, 0}), std::nullopt);  // spin not conserved
  EXPECT_EQ(v.source({0, 1, 0, 0}), std::nullopt);  // irrep 1 ≠ 0
}

TEST(BlockLayout, RejectsRunsOverDifferentGroupsAndAcrossHalves) {
  EXPECT_THROW(BlockLayout(symmetry({&kV, &kO}, 1, {{0, 1}}, 0, false)), std::invalid_argument);
  EXPECT_THROW(BlockLayout(symmetry({&kV, &kV}, 1, {{0, 1}}, 0, false)), std::invalid_argument);
  EXPECT_THROW(BlockLayout(symmetry({&kV, &kV}, 3, {}, 0, false)), std::invalid_argument);
}

TEST(BlockLayout, PackThenUnpackIsTheDenseTensor) {
  for (bool restricted : {false, true}) {
    const BlockSymmetry s = symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 2, restricted);
    const BlockLayout layout(s);
    const std::vector<double> dense = symmetric_dense(s, 7);
    const std::vector<double> packed = tcert::pack_dense(layout, dense.data());
    ASSERT_EQ(static_cast<std::int64_t>(packed.size()), layout.elements());
    expect_near_all(tcert::unpack_dense(layout, packed.data()), dense);
  }
}

/// C = A·B block by block equals the dense contraction of the dense tensors, on every element.
void expect_blocks_equal_dense(const BlockSymmetry& sa, const BlockSymmetry& sb, const BlockSymmetry& sc,
                               const tcert::BlockLabels& labels, const std::map<char, std::int64_t>& n) {
  const BlockLayout A(sa), B(sb), C(sc);
  const std::vector<double> dense_a = symmetric_dense(sa, 11), dense_b = symmetric_dense(sb, 12);
  const std::vector<double> a = tcert::pack_dense(A, dense_a.data()), b = tcert::pack_dense(B, dense_b.data());
  const std::vector<tcert::BlockProduct> products = tcert::block_products(A, B, C, labels);
  ASSERT_FALSE(products.empty());
  std::vector<double> want = dense_contract(labels.a, dense_a, labels.b, dense_b, labels.c, n);
  for (double& x : want) x *= 0.5;
  // Every product through contract(), then every one as permutes and one dgemm.
  for (std::int64_t kernel_product : {std::int64_t{1}, std::numeric_limits<std::int64_t>::max()}) {
    std::vector<double> c(static_cast<std::size_t>(C.elements()), 0.0);
    tcert::Workspace ws;
    tcert::BlockContraction(A, B, C, labels, products, kernel_product).run(0.5, a.data(), b.data(), c.data(), ws);
    expect_near_all(tcert::unpack_dense(C, c.data()), want);
  }
}

TEST(BlockContract, TheLadderOverOneOrderOfTheSummedPair) {
  const std::int64_t o = static_cast<std::int64_t>(orbitals(kO).size()),
                     v = static_cast<std::int64_t>(orbitals(kV).size());
  for (bool restricted : {false, true}) {
    // i0[a,b,i,j] += 0.5 · t[e,f,i,j] · v[a,b,e,f], t of irrep 1 (so is i0).
    expect_blocks_equal_dense(symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 1, restricted),
                              symmetry({&kV, &kV, &kV, &kV}, 2, {{0, 1}, {2, 3}}, 0, restricted),
                              symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 1, restricted),
                              {"efij", "abef", "abij", {"ef"}},
                              {{'a', v}, {'b', v}, {'e', v}, {'f', v}, {'i', o}, {'j', o}});
  }
}

TEST(BlockContract, TilesThatCutTheGroups) {
  // V's groups of 2 cut into tiles of 1 (so is O's): diagonal blocks of a pair are then one
  // orbital of each; restricted reads each all-beta tile block from the same alpha tiles.
  const Groups O = tcert::tiles_of(kO, 1), V = tcert::tiles_of(kV, 1);
  EXPECT_EQ(V.size(), 10u);
  EXPECT_EQ(tcert::tiles_of({{0, 3, 5}}, 2).size(), 3u);
  EXPECT_EQ(tcert::tiles_of({{0, 3, 5}}, 2)[0].extent, 2);
  EXPECT_EQ(tcert::tiles_of({{0, 3, 5}}, 2)[2].extent, 1);
  const std::int64_t o = static_cast<std::int64_t>(orbitals(O).size()),
                     v = static_cast<std::int64_t>(orbitals(V).size());
  for (bool restricted : {false, true})
    expect_blocks_equal_dense(symmetry({&V, &V, &O, &O}, 2, {{0, 1}, {2, 3}}, 0, restricted),
                              symmetry({&V, &V, &V, &V}, 2, {{0, 1}, {2, 3}}, 0, restricted),
                              symmetry({&V, &V, &O, &O}, 2, {{0, 1}, {2, 3}}, 0, restricted),
                              {"efij", "abef", "abij", {"ef"}},
                              {{'a', v}, {'b', v}, {'e', v}, {'f', v}, {'i', o}, {'j', o}});
}

TEST(BlockContract, SummedIndicesOfDifferentRunsAndAHalfOfOne) {
  const std::int64_t o = static_cast<std::int64_t>(orbitals(kO).size()),
                     v = static_cast<std::int64_t>(orbitals(kV).size());
  // i0[a,i] += f[e,m] · v[a,m,i,e]: e and m summed, in no common run; v antisymmetric in no
  // pair here (upper a,m of different ranges).
  expect_blocks_equal_dense(symmetry({&kV, &kO}, 1, {}, 0, true), symmetry({&kV, &kO, &kO, &kV}, 2, {}, 0, true),
                            symmetry({&kV, &kO}, 1, {}, 0, true), {"em", "amie", "ai", {}},
                            {{'a', v}, {'e', v}, {'i', o}, {'m', o}});
  // i0[a,b,i,j] += t[a,b,m,n] · v[m,n,i,j]: the hole ladder, unrestricted.
  expect_blocks_equal_dense(symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 0, false),
                            symmetry({&kO, &kO, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 0, false),
                            symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 0, false),
                            {"abmn", "mnij", "abij", {"mn"}},
                            {{'a', v}, {'b', v}, {'i', o}, {'j', o}, {'m', o}, {'n', o}});
}

TEST(BlockContract, AResultWhoseOrderMixesTheOperandsIndices) {
  // r[a,b,i,j] += t[a,e,i,m] · v[m,b,e,j] (the ring term, r without antisymmetric runs): the
  // product's [I, J] = [a, i, b, j] is permuted into r's block.
  const std::int64_t o = static_cast<std::int64_t>(orbitals(kO).size()),
                     v = static_cast<std::int64_t>(orbitals(kV).size());
  for (bool restricted : {false, true})
    expect_blocks_equal_dense(symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 0, restricted),
                              symmetry({&kO, &kV, &kV, &kO}, 2, {}, 0, restricted),
                              symmetry({&kV, &kV, &kO, &kO}, 2, {}, 0, restricted), {"aeim", "mbej", "abij", {}},
                              {{'a', v}, {'b', v}, {'e', v}, {'i', o}, {'j', o}, {'m', o}});
}

TEST(BlockContract, FlopsAreTheProductsOfTheBlocksMultiplied) {
  const BlockLayout t(symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 0, true));
  const BlockLayout v(symmetry({&kV, &kV, &kV, &kV}, 2, {{0, 1}, {2, 3}}, 0, true));
  const std::vector<tcert::BlockProduct> products = tcert::block_products(t, v, t, {"efij", "abef", "abij", {"ef"}});
  double flops = 0;
  for (const tcert::BlockProduct& p : products) {
    const std::vector<std::int64_t> e = v.extents(p.b.block);
    EXPECT_EQ(p.flops, 2.0 * static_cast<double>(t.block_elements(p.c)) * static_cast<double>(e[2] * e[3]));
    flops += p.flops;
  }
  std::vector<double> zeros_t(static_cast<std::size_t>(t.elements()), 0.0),
      zeros_v(static_cast<std::size_t>(v.elements()), 0.0);
  std::vector<double> out(zeros_t.size(), 0.0);
  tcert::Workspace ws;
  EXPECT_EQ(tcert::contract_blocks(products, {"efij", "abef", "abij", {"ef"}}, 1.0, t, zeros_t.data(), v,
                                   zeros_v.data(), t, out.data(), ws),
            flops);
}

TEST(BlockContract, RejectsLettersThatDoNotMatch) {
  const BlockLayout t(symmetry({&kV, &kV, &kO, &kO}, 2, {{0, 1}, {2, 3}}, 0, false));
  const BlockLayout f(symmetry({&kO, &kO}, 1, {}, 0, false));
  EXPECT_THROW(tcert::block_products(t, f, t, {"abij", "ij", "abij", {}}), std::invalid_argument);  // in all three
  EXPECT_THROW(tcert::block_products(t, f, t, {"abim", "mj", "abi", {}}), std::invalid_argument);   // rank
  EXPECT_THROW(tcert::block_products(t, t, f, {"abij", "abkl", "ij", {}}), std::invalid_argument);  // a summed once
  EXPECT_THROW(tcert::block_products(t, f, t, {"abim", "mj", "abij", {"mx"}}), std::invalid_argument);
  EXPECT_THROW(tcert::block_products(t, t, t, {"abij", "ijcd", "abcd", {}}), std::invalid_argument);  // groups differ
}

}  // namespace
