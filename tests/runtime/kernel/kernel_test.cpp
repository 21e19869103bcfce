// tests/runtime/kernel/kernel_test.cpp — permute(), contract() and gemm_tile() against naive loops.
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/kernel_dot.h"
#include "runtime/kernel/kernel_gett.h"
#include "runtime/kernel/kernel_plan.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

extern "C" int openblas_get_num_threads(void);  // OpenBLAS, which the tests link
extern "C" void openblas_set_num_threads(int threads);

namespace {

using Extents = std::vector<std::int64_t>;

std::vector<double> random_values(std::int64_t count, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(count));
  for (double& x : v) x = dist(rng);
  return v;
}

/// out[perm-ordered] = alpha·in + beta·out, one element at a time.
void naive_permute(const std::vector<double>& in, const Extents& extents, const std::vector<int>& perm,
                   std::vector<double>& out, double alpha, double beta) {
  const int n = static_cast<int>(extents.size());
  Extents out_stride(n, 1);  // stride in `out` of input dimension d
  for (int q = n - 1, s = 1; q >= 0; --q) {
    out_stride[perm[q]] = s;
    s *= static_cast<int>(extents[perm[q]]);
  }
  Extents idx(n, 0);
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::int64_t o = 0;
    for (int d = 0; d < n; ++d) o += idx[d] * out_stride[d];
    out[o] = alpha * in[i] + beta * out[o];
    for (int d = n - 1; d >= 0 && ++idx[d] == extents[d]; --d) idx[d] = 0;
  }
}

/// Checks permute() against naive_permute() for every permutation of `extents`' rank.
void check_all_permutations(const Extents& extents, double alpha, double beta) {
  const std::int64_t count = tcert::element_count(extents);
  const auto in = random_values(count, 7);
  const auto out0 = random_values(count, 8);
  std::vector<int> perm(extents.size());
  std::iota(perm.begin(), perm.end(), 0);
  do {
    auto expected = out0, actual = out0;
    naive_permute(in, extents, perm, expected, alpha, beta);
    tcert::permute(in.data(), extents, perm, actual.data(), alpha, beta);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      ASSERT_NEAR(actual[i], expected[i], 1e-15 * (1 + std::abs(expected[i]))) << "element " << i;
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(Permute, AllPermutationsOfRanks1To6) {
  const std::vector<Extents> shapes = {{13},          {17, 11},         {9, 19, 5},
                                       {11, 3, 9, 7}, {5, 9, 3, 11, 3}, {3, 9, 5, 3, 11, 3}};
  for (const Extents& e : shapes) {
    SCOPED_TRACE("rank " + std::to_string(e.size()));
    check_all_permutations(e, 1.0, 0.0);
  }
}

TEST(Permute, AlphaBetaAndUnitExtents) {
  check_all_permutations({1, 17, 1, 9}, -0.5, 0.0);
  check_all_permutations({19, 1, 23}, 2.0, 0.75);
  check_all_permutations({33, 41}, 1.0, -1.0);
  check_all_permutations({7, 5, 3}, 0.5, 1.5);
}

TEST(Permute, StridedSubBoxes) {
  // The box [1:6, 2:11, 3:13] of a 7×12×14 tensor, transposed (2,0,1) into a padded 11×6×10 buffer.
  const auto in = random_values(7 * 12 * 14, 4);
  for (double beta : {0.0, 0.5}) {
    auto out = random_values(11 * 6 * 10, 5), expected = out;
    tcert::permute_strided(in.data() + 1 * 168 + 2 * 14 + 3, {5, 9, 10}, {168, 14, 1}, {2, 0, 1}, out.data(),
                           {60, 10, 1}, 2.0, beta);
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 9; ++j) {
        for (int k = 0; k < 10; ++k) {
          double& e = expected[k * 60 + i * 10 + j];
          e = 2.0 * in[(i + 1) * 168 + (j + 2) * 14 + (k + 3)] + beta * e;
        }
      }
    }
    for (std::size_t i = 0; i < out.size(); ++i) ASSERT_DOUBLE_EQ(out[i], expected[i]) << "element " << i;
  }
}

TEST(Permute, StreamingStores) {
  // Non-temporal stores on a 64-byte aligned output and on one shifted by an element (no 8×8
  // tile is then aligned), for transposes and row copies, with and without alpha.
  for (const Extents& e : {Extents{40, 48, 24}, Extents{13, 17, 9}}) {
    const std::int64_t count = tcert::element_count(e);
    const auto in = random_values(count, 9);
    std::vector<double, tcert::AlignedAllocator<double>> buffer(static_cast<std::size_t>(count + 8));
    for (const std::vector<int>& perm : {std::vector<int>{2, 1, 0}, {1, 0, 2}, {0, 2, 1}, {0, 1, 2}}) {
      for (std::int64_t shift : {0, 1}) {
        std::vector<double> expected(static_cast<std::size_t>(count), 0.0);
        naive_permute(in, e, perm, expected, -2.0, 0.0);
        double* out = buffer.data() + shift;
        tcert::permute(in.data(), e, perm, out, -2.0, 0.0, tcert::StoreHint::Streaming);
        for (std::int64_t i = 0; i < count; ++i) ASSERT_EQ(out[i], expected[i]) << "element " << i;
      }
    }
  }
}

TEST(Permute, BetaZeroIgnoresNaN) {
  const Extents e = {24, 16};
  const auto in = random_values(24 * 16, 3);
  std::vector<double> out(in.size(), std::nan(""));
  tcert::permute(in.data(), e, {1, 0}, out.data());
  for (double v : out) EXPECT_FALSE(std::isnan(v));
}

TEST(Permute, RejectsBadPermutation) {
  std::vector<double> buf(6);
  EXPECT_THROW(tcert::permute(buf.data(), {2, 3}, {0, 0}, buf.data()), std::invalid_argument);
  EXPECT_THROW(tcert::permute(buf.data(), {2, 3}, {0}, buf.data()), std::invalid_argument);
  EXPECT_THROW(tcert::permute(buf.data(), {2, -3}, {1, 0}, buf.data()), std::invalid_argument);
}

/// Max over C of |C - ref| / (|alpha|·Σ|a·b| + |beta·c0|), with ref in long double.
/// `chunk_bytes`: the workspace's chunk target; up to 4096 bytes, chunking is forced (always_chunk)
/// so that small tensors exercise every chunked path.
/// `gett_blocks`, when set, forces GETT with cache blocks of {mc, kc, nc} elements.
/// `reused`, when set, is the workspace the call runs in (kept for the next call); else a new one.
using tcert::detail::GettBlocks;

double contract_error(const std::string& a, const std::string& b, const std::string& c,
                      const std::map<char, std::int64_t>& ext, double alpha, double beta,
                      std::int64_t chunk_bytes = std::int64_t{2} << 20, const GettBlocks* gett_blocks = nullptr,
                      tcert::Workspace* reused = nullptr) {
  const auto layout = tcert::layout_from_labels(a, b, c, ext);
  const auto A = random_values(tcert::element_count(layout.extents_A()), 1);
  const auto B = random_values(tcert::element_count(layout.extents_B()), 2);
  const auto C0 = random_values(tcert::element_count(layout.extents_C()), 3);
  auto C = C0;
  tcert::Workspace own;
  tcert::Workspace& ws = reused != nullptr ? *reused : own;
  ws.chunk_bytes = chunk_bytes;
  ws.always_chunk = chunk_bytes <= 4096;
  ws.min_chunk_side = ws.always_chunk ? 1 : ws.min_chunk_side;
  if (gett_blocks) {
    ws.scheme = tcert::Workspace::Scheme::Gett;
    ws.inner_products = false;  // GETT itself, also where inner products would apply
    ws.gett_mc = gett_blocks->mc, ws.gett_kc = gett_blocks->kc, ws.gett_nc = gett_blocks->nc;
  }
  tcert::contract(layout, alpha, A.data(), B.data(), beta, C.data(), ws);
  std::string all = a + b + c;
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  using ByLetter = std::array<std::int64_t, 128>;
  auto strides = [&](const std::string& t) {  // element stride of each letter in t (0 if absent)
    ByLetter st{};
    std::int64_t s = 1;
    for (int i = static_cast<int>(t.size()) - 1; i >= 0; --i) st[t[i]] = s, s *= ext.at(t[i]);
    return st;
  };
  const ByLetter sa = strides(a), sb = strides(b), sc = strides(c);
  std::vector<long double> sum(C.size(), 0), mag(C.size(), 0);
  ByLetter idx{};
  for (;;) {
    std::int64_t oa = 0, ob = 0, oc = 0;
    for (char ch : all) oa += idx[ch] * sa[ch], ob += idx[ch] * sb[ch], oc += idx[ch] * sc[ch];
    const long double p = static_cast<long double>(A[oa]) * B[ob];
    sum[oc] += p;
    mag[oc] += std::fabs(p);
    int d = static_cast<int>(all.size()) - 1;
    for (; d >= 0 && ++idx[all[d]] == ext.at(all[d]); --d) idx[all[d]] = 0;
    if (d < 0) break;
  }
  double worst = 0;
  for (std::size_t i = 0; i < C.size(); ++i) {
    const long double ref = alpha * sum[i] + beta * static_cast<long double>(C0[i]);
    const long double scale = std::fabs(alpha) * mag[i] + std::fabs(beta * C0[i]) + 1e-300L;
    worst = std::max(worst, static_cast<double>(std::fabs(C[i] - ref) / scale));
  }
  return worst;
}

TEST(Contract, DocExample) {
  const std::map<char, std::int64_t> e = {{'a', 5}, {'b', 7}, {'c', 3}, {'d', 9}, {'p', 11}};
  EXPECT_LE(contract_error("abcp", "pd", "abcd", e, 1.0, 0.0), 1e-12);
  const auto l = tcert::layout_from_labels("abcp", "pd", "abcd", e);
  EXPECT_EQ(l.perm_A, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(l.perm_B, (std::vector<int>{1, 0}));
  EXPECT_EQ(l.perm_C, (std::vector<int>{0, 1, 2, 3}));
}

/// Calls check(a, b, c) for C[i,j,b] = A[i,j,k]·B[k,b] with every order of A, B and C
/// (6 × 2 × 6 layouts), under a SCOPED_TRACE naming the layout.
void for_each_three_by_two_layout(
    const std::function<void(const std::string&, const std::string&, const std::string&)>& check) {
  std::string a = "ijk";
  do {
    for (const std::string b : {"kb", "bk"}) {
      std::string c = "bij";
      do {
        SCOPED_TRACE(a + "," + b + "->" + c);
        check(a, b, c);
      } while (std::next_permutation(c.begin(), c.end()));
    }
  } while (std::next_permutation(a.begin(), a.end()));
}

const std::map<char, std::int64_t> kThreeByTwo = {{'i', 9}, {'j', 13}, {'k', 11}, {'b', 10}};

TEST(Contract, AllOrdersOfThreeIndexTimesTwoIndex) {
  for_each_three_by_two_layout([](const std::string& a, const std::string& b, const std::string& c) {
    EXPECT_LE(contract_error(a, b, c, kThreeByTwo, 1.0, 0.0), 1e-12);
    EXPECT_LE(contract_error(a, b, c, kThreeByTwo, -0.75, 1.25), 1e-12);
  });
}

TEST(Contract, InterleavedResultNeedsPermutation) {
  const std::map<char, std::int64_t> e = {{'a', 6}, {'b', 5}, {'c', 7}, {'d', 4}, {'e', 9}, {'f', 3}, {'g', 8}};
  EXPECT_LE(contract_error("aebf", "fdec", "abcd", e, 0.5, -2.0), 1e-12);
  EXPECT_LE(contract_error("dega", "gfbc", "abcdef", e, -1.0, 0.5), 1e-12);
  EXPECT_LE(contract_error("bda", "dc", "abc", e, 2.0, 1.0), 1e-12);
  EXPECT_LE(contract_error("eafd", "fbec", "abcd", e, 1.0, 0.0), 1e-12);
}

TEST(Contract, MatricesOuterProductsAndDots) {
  const std::map<char, std::int64_t> e = {{'i', 31}, {'j', 17}, {'k', 23}};
  for (const auto& [a, b, c] : std::vector<std::array<std::string, 3>>{{"ik", "kj", "ij"},
                                                                       {"ki", "jk", "ij"},
                                                                       {"ik", "jk", "ji"},
                                                                       {"ki", "kj", "ji"},
                                                                       {"i", "j", "ij"},
                                                                       {"i", "j", "ji"},
                                                                       {"k", "k", ""},
                                                                       {"ik", "k", "i"},
                                                                       {"k", "jk", "j"}}) {
    SCOPED_TRACE(a + "," + b + "->" + c);
    EXPECT_LE(contract_error(a, b, c, e, 1.5, 0.5), 1e-12);
  }
}

TEST(Contract, ChunkedPermutations) {
  // Tiny chunks (64 bytes) force blocking of every permuted operand and of C in every layout.
  for_each_three_by_two_layout([](const std::string& a, const std::string& b, const std::string& c) {
    EXPECT_LE(contract_error(a, b, c, kThreeByTwo, -0.75, 1.25, 64), 1e-12);
  });
  const std::map<char, std::int64_t> f = {{'a', 6}, {'b', 5}, {'c', 7}, {'d', 4}, {'e', 9}, {'f', 3}, {'g', 8}};
  for (std::int64_t bytes : {64, 512, 4096}) {
    EXPECT_LE(contract_error("aebf", "fdec", "acbd", f, 0.5, -2.0, bytes), 1e-12);
    EXPECT_LE(contract_error("dega", "gfbc", "abcdef", f, 1.0, 0.0, bytes), 1e-12);
    EXPECT_LE(contract_error("gfbc", "dega", "fabdce", f, -1.0, 0.5, bytes), 1e-12);
  }
}

TEST(Contract, LargeOperandsWithDefaultWorkspace) {
  // Temporaries of several MiB, where the time model blocks the permutation of C (CCSD(T)-like).
  const std::map<char, std::int64_t> t = {{'a', 16}, {'b', 8}, {'c', 8}, {'d', 16}, {'e', 8}, {'f', 8}, {'g', 8}};
  EXPECT_LE(contract_error("dega", "gfbc", "abcdef", t, 1.0, 0.0), 1e-12);
  EXPECT_LE(contract_error("gfbc", "dega", "abcdef", t, 0.5, 2.0), 1e-12);
  const std::map<char, std::int64_t> e = {{'a', 5}, {'b', 128}, {'c', 4}, {'d', 128}, {'e', 2}, {'f', 3}};
  EXPECT_LE(contract_error("aebf", "fdec", "acbd", e, 0.5, -1.5), 1e-12);
  const std::map<char, std::int64_t> w = {{'a', 4}, {'b', 160}, {'d', 8}, {'e', 16}, {'f', 40}};
  EXPECT_LE(contract_error("aebf", "dfe", "abd", w, -1.0, 1.0), 1e-12);
}

// GETT, forced, with the default cache blocks and with blocks of one register tile and 5 of K,
// so that every edge (partial tiles, several K, M and N blocks, each packing path) is crossed.
TEST(Contract, GettEveryLayoutAndBlockEdge) {
  const GettBlocks blocks[] = {{192, 384, 2016}, {16, 5, 14}, {48, 8, 28}};
  for (const GettBlocks& g : blocks) {
    SCOPED_TRACE("blocks " + std::to_string(g.mc) + "," + std::to_string(g.kc) + "," + std::to_string(g.nc));
    for_each_three_by_two_layout([&](const std::string& a, const std::string& b, const std::string& c) {
      EXPECT_LE(contract_error(a, b, c, kThreeByTwo, 1.0, 0.0, 2 << 20, &g), 1e-12);
      EXPECT_LE(contract_error(a, b, c, kThreeByTwo, -0.75, 1.25, 2 << 20, &g), 1e-12);
    });
    const std::map<char, std::int64_t> e = {{'a', 6}, {'b', 5}, {'c', 7}, {'d', 4}, {'e', 9}, {'f', 3}, {'g', 8}};
    EXPECT_LE(contract_error("aebf", "fdec", "abcd", e, 0.5, -2.0, 2 << 20, &g), 1e-12);
    EXPECT_LE(contract_error("dega", "gfbc", "abcdef", e, -1.0, 0.5, 2 << 20, &g), 1e-12);
    EXPECT_LE(contract_error("bda", "dc", "abc", e, 2.0, 1.0, 2 << 20, &g), 1e-12);
    const std::map<char, std::int64_t> m = {{'i', 37}, {'j', 33}, {'k', 41}};
    for (const auto& [a, b, c] : std::vector<std::array<std::string, 3>>{{"ik", "kj", "ij"},
                                                                         {"ki", "jk", "ij"},
                                                                         {"ik", "jk", "ji"},
                                                                         {"i", "j", "ij"},
                                                                         {"k", "k", ""},
                                                                         {"ik", "k", "i"}}) {
      SCOPED_TRACE(a + "," + b + "->" + c);
      EXPECT_LE(contract_error(a, b, c, m, 1.5, 0.5, 2 << 20, &g), 1e-12);
    }
    // TCCG's intensli layouts, where A's innermost index (d, a) is a row index but not C's
    // innermost (e, d): A packs by chains of transposes, whole (d = 16) and partly (d = 11).
    for (const std::int64_t d : {16, 11}) {
      const std::map<char, std::int64_t> n = {{'a', 9}, {'b', 3}, {'c', 5}, {'d', d}, {'e', 16}, {'f', 7}};
      EXPECT_LE(contract_error("efbad", "cf", "abcde", n, 1.0, 0.0, 2 << 20, &g), 1e-12);
      EXPECT_LE(contract_error("efbad", "cf", "abcde", n, 0.5, -1.0, 2 << 20, &g), 1e-12);
      const std::map<char, std::int64_t> o = {{'a', d}, {'b', 3}, {'c', 5}, {'d', 8}, {'e', 7}};
      EXPECT_LE(contract_error("dbea", "ec", "abcd", o, 1.0, 0.0, 2 << 20, &g), 1e-12);
    }
    // Runs of 16 rows and of 8 K in memory: the vector packing paths and C's vector update.
    const std::map<char, std::int64_t> v = {{'a', 3}, {'b', 32}, {'c', 5}, {'d', 16}, {'p', 24}, {'q', 2}};
    EXPECT_LE(contract_error("qapb", "cpqd", "acbd", v, 1.0, 0.0, 2 << 20, &g), 1e-12);
    EXPECT_LE(contract_error("aqbp", "cdqp", "cadb", v, -0.5, 1.0, 2 << 20, &g), 1e-12);
  }
}

// |I| = 1 or |J| = 1 run as matrix-vector products (kernel_gemv.h), whatever the scheme: every
// order of the matrix (runs of K summed against a strided vector, runs of C's indices updated
// with a stride, short runs by plain loops, inner dimensions merged into longer runs), indices
// of extent 1, the CCSD energy's permuted dot, and beta = 0 over a C holding NaN.
TEST(Contract, MatrixVectorProductsInEveryOrder) {
  const std::map<char, std::int64_t> e = {{'j', 10}, {'i', 3}, {'p', 9}, {'q', 3}, {'u', 1}};
  const GettBlocks gett = {192, 384, 2016};
  std::string mat = "ijpq";
  do {
    for (const std::string vec : {"pq", "qp", "upq", "qup"}) {
      for (const std::string c : {"ij", "ji"}) {
        const std::string cu = vec.find('u') == std::string::npos ? c : "u" + c;
        SCOPED_TRACE(vec + "," + mat + "->" + cu);
        EXPECT_LE(contract_error(vec, mat, cu, e, 1.5, 0.5), 1e-12);                  // |I| = 1: B is the matrix
        EXPECT_LE(contract_error(mat, vec, cu, e, -0.5, 0.0), 1e-12);                 // |J| = 1: A is
        EXPECT_LE(contract_error(mat, vec, cu, e, 1.0, 1.0, 2 << 20, &gett), 1e-12);  // GETT forced
      }
    }
  } while (std::next_permutation(mat.begin(), mat.end()));
  const std::map<char, std::int64_t> ccsd = {{'a', 38}, {'b', 38}, {'h', 10}, {'k', 10}};
  EXPECT_LE(contract_error("abhk", "hkab", "", ccsd, 0.25, 1.0), 1e-12);
  EXPECT_LE(contract_error("abhk", "bhak", "", ccsd, 1.0, 0.0), 1e-12);
  const auto layout = tcert::layout_from_labels("kp", "jkp", "j", {{'j', 5}, {'k', 4}, {'p', 9}});
  const std::vector<double> A(36, 1.0), B(180, 2.0);
  std::vector<double> C(5, std::nan(""));
  tcert::Workspace ws;
  tcert::contract(layout, 1.0, A.data(), B.data(), 0.0, C.data(), ws);
  EXPECT_EQ(C, std::vector<double>(5, 72.0));
}

// Products with 2 … 16 elements on one side whose other operand holds K innermost, in runs of 32
// or more, run as inner products along K (kernel_dot.h): runs with a last part of fewer than 8
// elements (38) or none (32), merged K indices (k·l = 114) or runs apart (3 runs of 38), the small
// operand's K in another order (copied element by element), C's rows consecutive in blocks of 8,
// of fewer (5, 12) or apart, the big operand A or B (both small: the larger), odd and even
// columns (2, 5, 16), beta = 0.
TEST(Contract, InnerProductsAlongKInnermost) {
  if (!tcert::detail::gett_vectorized()) GTEST_SKIP() << "inner products need AVX-512";
  struct Case {
    std::string a, b, c;
  };
  const std::vector<Case> cases = {
      {"ki", "abck", "aibc"},  // T1 × v_pppp's form: C's rows in runs of |c|
      {"ik", "abck", "abci"},  // C's rows |I| apart
      {"abck", "ik", "abci"},  // the big operand is A
      {"kli", "ablk", "bia"},  // K = (l, k): 3 runs of 38 in B; A's K in the other order
      {"lki", "abkl", "abi"},  // K = (k, l) innermost in B: one run of 114
      {"ik", "ck", "ci"},      // both sides small: the big one is the larger (A at |i| = 16)
  };
  for (const std::int64_t n : {2, 5, 16})
    for (const std::int64_t k : {38, 32})
      for (const Case& t : cases) {
        const std::map<char, std::int64_t> e = {{'i', n}, {'a', 7}, {'b', 9}, {'c', 12}, {'k', k}, {'l', 3}};
        SCOPED_TRACE(t.a + "," + t.b + "->" + t.c + " |i| = " + std::to_string(n) + " |k| = " + std::to_string(k));
        const tcert::detail::Indexing x = tcert::detail::index_layout(tcert::layout_from_labels(t.a, t.b, t.c, e));
        EXPECT_TRUE(tcert::detail::dot_applies(x, tcert::Workspace{}));
        EXPECT_LE(contract_error(t.a, t.b, t.c, e, 1.5, 0.5), 1e-12);
        EXPECT_LE(contract_error(t.a, t.b, t.c, e, -1.0, 0.0), 1e-12);
      }
  // Not inner products: runs of 10 (GETT is faster there), 17 columns, K not innermost, TTGT forced.
  auto applies = [](const std::string& a, const std::string& b, const std::string& c,
                    const std::map<char, std::int64_t>& e, tcert::Workspace ws = {}) {
    return tcert::detail::dot_applies(tcert::detail::index_layout(tcert::layout_from_labels(a, b, c, e)), ws);
  };
  const std::map<char, std::int64_t> e = {{'i', 10}, {'a', 38}, {'b', 38}, {'k', 10}, {'p', 17}, {'q', 38}};
  EXPECT_FALSE(applies("ki", "abk", "iab", e));
  EXPECT_FALSE(applies("qp", "abq", "pab", e));
  EXPECT_FALSE(applies("qi", "aqb", "iab", e));
  tcert::Workspace ttgt;
  ttgt.scheme = tcert::Workspace::Scheme::Ttgt;
  EXPECT_TRUE(applies("qi", "abq", "iab", e));
  EXPECT_FALSE(applies("qi", "abq", "iab", e, ttgt));
  const auto layout = tcert::layout_from_labels("qi", "abq", "iab", e);
  const std::vector<double> A(380, 0.5), B(38 * 38 * 38, 2.0);
  std::vector<double> C(10 * 38 * 38, std::nan(""));
  tcert::Workspace ws;
  tcert::contract(layout, 1.0, A.data(), B.data(), 0.0, C.data(), ws);
  EXPECT_EQ(C, std::vector<double>(C.size(), 38.0));
}

// One workspace through products of other shapes: its buffers and GETT's tables (refilled in
// place, Workspace::gett_tables) shrink and grow from one call to the next, through chains and
// groups of C's rows, and trim() frees them only beyond its bound.
TEST(Contract, WorkspaceIsReusedAcrossShapes) {
  const std::map<char, std::int64_t> big = {{'a', 20}, {'b', 30}, {'c', 10}, {'d', 12}};
  const std::map<char, std::int64_t> small = {{'a', 3}, {'b', 4}, {'c', 5}, {'d', 2}};
  const std::map<char, std::int64_t> dot = {{'a', 40}, {'b', 38}, {'c', 10}, {'d', 9}};
  const std::map<char, std::int64_t> rows = {{'a', 3}, {'b', 32}, {'c', 5}, {'d', 16}, {'p', 24}, {'q', 2}};
  const std::map<char, std::int64_t> groups = {{'a', 24}, {'b', 3}, {'c', 6}, {'d', 8}, {'e', 7}};
  for (const bool gett : {false, true}) {
    SCOPED_TRACE(gett ? "GETT" : "any scheme");
    tcert::Workspace ws;
    const GettBlocks blocks{32, 16, 28};
    const GettBlocks* g = gett && tcert::detail::gett_vectorized() ? &blocks : nullptr;
    const std::int64_t chunk = std::int64_t{2} << 20;
    EXPECT_LE(contract_error("adb", "cd", "cab", big, 1.0, 0.0, chunk, g, &ws), 1e-12);
    EXPECT_LE(contract_error("adb", "cd", "cab", small, 1.0, 0.0, chunk, g, &ws), 1e-12);
    EXPECT_LE(contract_error("abcd", "cdab", "", dot, 1.0, 1.0, chunk, g, &ws), 1e-12);  // a dot: long K
    EXPECT_LE(contract_error("qapb", "cpqd", "acbd", rows, 1.0, 0.0, chunk, g, &ws), 1e-12);
    EXPECT_LE(contract_error("dbea", "ec", "abcd", groups, 1.0, 0.0, chunk, g, &ws), 1e-12);
    EXPECT_LE(contract_error("adb", "cd", "cab", small, -0.5, 1.0, chunk, g, &ws), 1e-12);
    ws.trim(std::size_t{1} << 30);  // keeps what it holds
    EXPECT_FALSE(ws.gett_tables.col_x.empty() && gett);
    ws.trim(0);
    EXPECT_EQ(ws.a.capacity() + ws.b.capacity() + ws.c.capacity(), 0U);
    EXPECT_EQ(ws.gett_tables.col_x.capacity() + ws.gett_tables.row_c.capacity(), 0U);
    EXPECT_LE(contract_error("adb", "cd", "cab", big, 1.0, 0.0, chunk, g, &ws), 1e-12);
  }
}

TEST(Contract, RejectsInconsistentLayouts) {
  tcert::ContractionLayout l;
  l.extents_I = {2};
  l.extents_J = {3};
  l.extents_K = {4};
  l.perm_A = {0, 1};
  l.perm_B = {1, 0};
  l.perm_C = {0, 0};
  std::vector<double> buf(64);
  tcert::Workspace ws;
  EXPECT_THROW(tcert::contract(l, 1, buf.data(), buf.data(), 0, buf.data(), ws), std::invalid_argument);
  l.perm_C = {0, 1, 2};
  EXPECT_THROW(l.extents_C(), std::invalid_argument);
  l.perm_C = {1, 0};
  l.extents_K = {-4};
  EXPECT_THROW(l.validate(), std::invalid_argument);
  EXPECT_THROW(tcert::layout_from_labels("ab", "bc", "abc", {{'a', 1}, {'b', 2}, {'c', 3}}), std::invalid_argument);
  const auto good = tcert::layout_from_labels("ab", "bc", "ac", {{'a', 2}, {'b', 3}, {'c', 4}});
  tcert::ConstTensorView A{buf.data(), {2, 3}}, B{buf.data(), {3, 4}};
  tcert::TensorView C{buf.data() + 32, {2, 4}};
  EXPECT_NO_THROW(tcert::contract(good, 1, A, B, 0, C, ws));
  B.extents = {4, 3};
  EXPECT_THROW(tcert::contract(good, 1, A, B, 0, C, ws), std::invalid_argument);
  EXPECT_THROW(tcert::layout_from_labels("ab", "bc", "ac", {{'a', 1}, {'b', 2}}), std::invalid_argument);
}

// The BLAS gets the cores over the ranks of the node, and no more than the process may run on:
// bound to one CPU (as mpirun binds one rank), one thread.
TEST(ShareCores, NoMoreThreadsThanTheProcessMayRunOn) {
  cpu_set_t allowed;
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int before = openblas_get_num_threads();
  std::vector<std::pair<std::string, std::string>> saved;  // the user's setting overrides share_cores
  for (const char* name : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const char* v = std::getenv(name)) saved.emplace_back(name, v), ::unsetenv(name);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(tcert::share_cores(1), std::min(cores, CPU_COUNT(&allowed)));
  EXPECT_EQ(tcert::share_cores(2 * cores), 1);
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) {
      CPU_SET(cpu, &one);
      break;
    }
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(tcert::share_cores(1), 1);
  EXPECT_EQ(openblas_get_num_threads(), 1);
  ::sched_setaffinity(0, sizeof allowed, &allowed);
  for (const auto& [name, value] : saved) ::setenv(name.c_str(), value.c_str(), 1);
  openblas_set_num_threads(before);
}

TEST(GemmTile, MatchesNaiveWithLeadingDimensions) {
  const std::size_t m = 13, n = 9, k = 7, lda = 10, ldb = 8, ldc = 12;
  const auto A = random_values(m * lda, 4), B = random_values(n * ldb, 5), C0 = random_values(m * ldc, 6);
  auto C = C0;
  tcert::gemm_tile(m, n, k, 2.0, A.data(), lda, B.data(), ldb, -1.0, C.data(), ldc);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < ldc; ++j) {
      long double ref = C0[i * ldc + j];
      if (j < n) {
        long double s = 0;
        for (std::size_t p = 0; p < k; ++p) s += static_cast<long double>(A[i * lda + p]) * B[j * ldb + p];
        ref = 2 * s - ref;
      }
      EXPECT_NEAR(C[i * ldc + j], static_cast<double>(ref), 1e-13) << i << "," << j;
    }
  }
  EXPECT_THROW(tcert::gemm_tile(m, n, k, 1, A.data(), 6, B.data(), ldb, 0, C.data(), ldc), std::invalid_argument);
}

}  // namespace

// Rows (o, x, y) of X stored [k, o, y, x]: x is X's stride-1 index, so row r + 16·j lies j
// elements after row r (gett_tables() finds the chains). x = 11 leaves groups outside whole
// chains, and blocks of 128 rows cut some chains (those pack group by group). Chains pack k
// inner and k outer (GettTables::x_chain_k_outer, set by hand: K's step is short here).
/// Runs gett() on the tables `t` with workspace `ws` into a copy of C0 (64-byte aligned, so that
/// some stores stream) and checks every element of C against alpha·X·Yᵀ + beta·C0, summed in
/// long double, within 1e-12; `what` names the case in a failure.
void check_gett(const tcert::detail::GettTables& t, tcert::Workspace ws, double alpha, double beta,
                const std::vector<double>& X, const std::vector<double>& Y, const std::vector<double>& C0,
                const std::string& what) {
  tcert::Workspace::Buffer C(C0.begin(), C0.end());
  tcert::detail::gett(t, alpha, X.data(), Y.data(), beta, C.data(), ws);
  const auto M = static_cast<std::int64_t>(t.row_x.size()), N = static_cast<std::int64_t>(t.row_y.size());
  const auto K = static_cast<std::int64_t>(t.col_x.size());
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) {
      long double ref = 0;
      for (std::int64_t q = 0; q < K; ++q)
        ref += static_cast<long double>(X[t.row_x[i] + t.col_x[q]]) * Y[t.row_y[j] + t.col_y[q]];
      const std::int64_t at = t.row_c[i] + t.col_c[j];
      ASSERT_NEAR(C[at], static_cast<double>(alpha * ref + beta * C0[at]), 1e-12)
          << what << ", beta " << beta << ": " << i << "," << j;
    }
  }
}

TEST(Gett, ChainsOfTransposes) {
  const std::vector<std::int64_t> extent = {3, 11, 16, 7, 5};  // o x y | k | j
  const std::vector<int> rows = {0, 1, 2}, cols = {4}, k = {3};
  const std::vector<int> dims_x = {3, 0, 2, 1}, dims_y = {4, 3}, dims_c = {4, 0, 1, 2};
  const auto t = tcert::detail::gett_tables(extent, rows, cols, k, dims_x, dims_y, dims_c);
  ASSERT_EQ(t.x_chain, 16);
  ASSERT_EQ(t.x_chain_extent, 11);
  ASSERT_FALSE(t.x_chain_k_outer);
  // k outer from K steps of 8192 elements (64 KiB) on: K steps o·y·x = 16·32·16 = 8192, or 7936.
  EXPECT_TRUE(tcert::detail::gett_chain_k_outer({16, 16, 32, 7, 5}, k, dims_x));
  EXPECT_FALSE(tcert::detail::gett_chain_k_outer({16, 16, 32 - 1, 7, 5}, k, dims_x));
  const std::int64_t M = 3 * 11 * 16, N = 5, K = 7;
  const auto X = random_values(M * K, 7), Y = random_values(N * K, 8), C0 = random_values(M * N, 9);
  struct Blocks {
    std::int64_t mc, kc;
    bool k_outer;
    std::int64_t block_rows;  // gett_blocks(): whole chains of 8·16 rows; k outer, 8 to 128 per y
  };
  for (const Blocks b : {Blocks{16, 384, false, 128}, Blocks{192, 384, false, 256}, Blocks{16, 8, true, 128},
                         Blocks{192, 384, true, 2048}}) {
    auto tk = t;
    tk.x_chain_k_outer = b.k_outer;
    tcert::Workspace sizes;
    sizes.gett_mc = b.mc, sizes.gett_kc = b.kc;
    EXPECT_EQ(tcert::detail::gett_blocks(sizes, 16, b.k_outer, K).mc, b.block_rows);
    for (const double beta : {0.0, 2.0})
      check_gett(tk, sizes, 1.5, beta, X, Y, C0,
                 std::to_string(b.mc) + "," + std::to_string(b.kc) + (b.k_outer ? " k outer" : ""));
  }
}

// Direct panels: X's innermost index r is the last row index, so panels whose 8 or 16 rows lie
// within one r range are read straight from X where the K block steps evenly (K blocks inside
// k1), and packed where they straddle two (r = 24, 72) or the block does not step evenly (one K
// block over k2 and k1). The model counts on direct panels from r = 64 on where r is not a
// multiple of 16. N of 20 and 28 in blocks of 28 columns with K steps of 64 elements (r = 64):
// both column tiles at once (micro_wide()).
TEST(Gett, DirectPanelsReadXInPlace) {
  using tcert::detail::gett_direct_step;
  const std::int64_t even[] = {0, 37, 74, 111}, uneven[] = {0, 5, 10, 16}, aliased[] = {0, 256, 512};
  EXPECT_EQ(gett_direct_step(even, 4, 2016), tcert::detail::gett_vectorized() ? 37 : 0);
  EXPECT_EQ(gett_direct_step(uneven, 4, 14), 0);
  EXPECT_EQ(gett_direct_step(uneven, 3, 14), tcert::detail::gett_vectorized() ? 5 : 0);
  EXPECT_EQ(gett_direct_step(uneven, 1, 14), tcert::detail::gett_vectorized() ? 1 : 0);
  EXPECT_EQ(gett_direct_step(aliased, 3, 28), tcert::detail::gett_vectorized() ? 256 : 0);  // 2 column tiles
  EXPECT_EQ(gett_direct_step(aliased, 3, 29), 0);  // more columns reuse it: 2 KiB steps alias in L2
  for (const auto& [r, n] :
       std::vector<std::array<std::int64_t, 2>>{{24, 5}, {32, 5}, {72, 5}, {24, 20}, {64, 20}, {64, 28}}) {
    const std::vector<std::int64_t> extent = {3, r, n, 3, 8};  // o r | j | k2 k1
    const std::vector<int> rows = {0, 1}, cols = {2}, k = {3, 4};
    const std::vector<int> dims_x = {3, 0, 4, 1}, dims_y = {2, 3, 4}, dims_c = {2, 0, 1};
    const auto t = tcert::detail::gett_tables(extent, rows, cols, k, dims_x, dims_y, dims_c);
    ASSERT_EQ(t.x_chain, 0);
    const GettBlocks inside_k1{32, 4, 14}, whole_k{192, 384, 2016}, both_tiles{32, 4, 28};
    EXPECT_EQ(tcert::detail::gett_direct(extent, rows, k, dims_x, inside_k1, n),
              r != 24 && tcert::detail::gett_vectorized());
    EXPECT_FALSE(tcert::detail::gett_direct(extent, rows, k, dims_x, whole_k, n));
    // k2 just outside k1 in X: the two merge, so one K block over both steps evenly.
    EXPECT_EQ(tcert::detail::gett_direct(extent, rows, k, {0, 3, 4, 1}, whole_k, n),
              r != 24 && tcert::detail::gett_vectorized());
    const std::int64_t M = 3 * r, N = n, K = 24;
    const auto X = random_values(M * K, 10), Y = random_values(N * K, 11), C0 = random_values(M * N, 12);
    for (const GettBlocks& g : {inside_k1, whole_k, both_tiles}) {
      tcert::Workspace ws;
      ws.gett_mc = g.mc, ws.gett_kc = g.kc, ws.gett_nc = g.nc;
      for (const double beta : {0.0, -0.5})
        check_gett(t, ws, 2.0, beta, X, Y, C0,
                   "r " + std::to_string(r) + ", n " + std::to_string(n) + ", kc " + std::to_string(g.kc) + ", nc " +
                       std::to_string(g.nc));
    }
  }
}

// Groups of C's rows: X's innermost index x and C's innermost c both row indices, the rows taken
// as [o, x / 8, c, x % 8]: panels of two runs of 8 in X (direct where the K block steps evenly,
// inside k2; packed where it does not), every 4 panels written to C through register transposes;
// with N blocks of 17-28 columns (nc 28) and K steps of 64 elements (x = 64), both column tiles
// at once (micro_wide()).
TEST(Gett, GroupsOfCRows) {
  const std::vector<int> rows = {0, 1, 2}, cols = {3}, k = {4, 5};  // o x c | j | k1 k2
  const std::vector<int> dims_x = {2, 4, 0, 5, 1}, dims_y = {3, 4, 5}, dims_c = {3, 0, 1, 2};
  EXPECT_EQ(tcert::detail::gett_groups({3, 16, 8, 5, 2, 4}, rows, dims_x, dims_c), tcert::detail::gett_vectorized());
  EXPECT_FALSE(tcert::detail::gett_groups({3, 12, 8, 5, 2, 4}, rows, dims_x, dims_c));  // x not a multiple of 8
  EXPECT_FALSE(tcert::detail::gett_groups({3, 16, 8, 5, 2, 4}, {0, 2, 1}, dims_x, dims_c));
  if (!tcert::detail::gett_vectorized()) GTEST_SKIP() << "groups need AVX-512";
  for (const auto& [x, c, n] : std::vector<std::array<std::int64_t, 3>>{
           {16, 8, 5}, {16, 16, 5}, {24, 8, 5}, {24, 16, 5}, {16, 8, 24}, {64, 8, 24}, {64, 16, 17}}) {
    const std::vector<std::int64_t> extent = {3, x, c, n, 2, 4};
    const auto t = tcert::detail::gett_tables(extent, rows, cols, k, dims_x, dims_y, dims_c, true);
    ASSERT_TRUE(t.c_groups);
    ASSERT_EQ(t.x_chain, 0);
    const std::int64_t c_step_x = 2 * 3 * 4 * x;  // c's stride in X
    EXPECT_EQ(t.row_x[7] - t.row_x[0], 7);        // [o, x / 8, c, x % 8]
    EXPECT_EQ(t.row_x[8] - t.row_x[0], c_step_x);
    EXPECT_EQ(t.row_c[8] - t.row_c[0], 1);
    EXPECT_EQ(t.row_c[8 * c] - t.row_c[0], 8 * c);  // the next 8 values of x
    const std::int64_t M = 3 * x * c, N = n, K = 8;
    const auto X = random_values(M * K, 13), Y = random_values(N * K, 14), C0 = random_values(M * N, 15);
    for (const GettBlocks& g :
         {GettBlocks{64, 4, 14}, GettBlocks{16, 5, 28}, GettBlocks{192, 384, 2016}, GettBlocks{64, 4, 28}}) {
      tcert::Workspace ws;
      ws.gett_mc = g.mc, ws.gett_kc = g.kc, ws.gett_nc = g.nc, ws.gett_stream_bytes = 0;
      for (const double beta : {0.0, 1.5})
        check_gett(t, ws, -0.5, beta, X, Y, C0,
                   "x " + std::to_string(x) + ", c " + std::to_string(c) + ", n " + std::to_string(n) + ", kc " +
                       std::to_string(g.kc) + ", nc " + std::to_string(g.nc));
    }
  }
}

// gett() on hand-made tables: C's rows consecutive (vector updates, element by element at the
// edge), C's columns consecutive (row-by-row updates); X and Y with runs of rows or of K; blocks
// smaller than the problem so that every edge is crossed.
TEST(Gett, TablesOfEveryKind) {
  const std::int64_t M = 37, N = 29, K = 19;
  const auto X = random_values(M * K, 4), Y = random_values(N * K, 5), C0 = random_values(M * N, 6);
  auto seq = [](std::int64_t n, std::int64_t stride) {
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i * stride;
    return v;
  };
  struct Kind {
    std::int64_t x_row, x_col, y_row, y_col, c_row, c_col;
  };
  const Kind kinds[] = {{K, 1, K, 1, N, 1}, {1, M, 1, N, 1, M}, {K, 1, 1, N, 1, M}, {1, M, K, 1, N, 1}};
  for (const Kind& kind : kinds) {
    // The second block size holds K in one K block: with beta 0 and ws.gett_stream_bytes 0, C's
    // vector stores that fill a cache line go past the caches.
    for (const auto& [mc, kc, nc] : std::vector<std::array<std::int64_t, 3>>{{16, 5, 14}, {192, 384, 2016}}) {
      for (const double beta : {-1.5, 0.0}) {
        tcert::detail::GettTables t{seq(M, kind.x_row), seq(K, kind.x_col), seq(N, kind.y_row),
                                    seq(K, kind.y_col), seq(M, kind.c_row), seq(N, kind.c_col)};
        tcert::Workspace ws;
        ws.gett_mc = mc, ws.gett_kc = kc, ws.gett_nc = nc, ws.gett_stream_bytes = 0;
        tcert::Workspace::Buffer C(C0.begin(), C0.end());  // 64-byte aligned, so some stores stream
        tcert::detail::gett(t, 0.5, X.data(), Y.data(), beta, C.data(), ws);
        for (std::int64_t i = 0; i < M; ++i) {
          for (std::int64_t j = 0; j < N; ++j) {
            long double ref = 0;
            for (std::int64_t k = 0; k < K; ++k)
              ref += static_cast<long double>(X[i * kind.x_row + k * kind.x_col]) * Y[j * kind.y_row + k * kind.y_col];
            const std::int64_t at = i * kind.c_row + j * kind.c_col;
            ASSERT_NEAR(C[at], static_cast<double>(0.5L * ref + beta * C0[at]), 1e-12) << i << "," << j;
          }
        }
      }
    }
  }
}
