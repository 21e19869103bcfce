// bench/blocks_bench.cpp — block-sparse contractions (tcert::contract_blocks, the TCE's block
// loops) against the dense spin-orbital contraction they replace, and against cblas_dgemm's rate.
//
// Usage: blocks_bench [--reps N]   (default 3; the minimum of N interleaved runs of each is reported)
// Cases: the CCSD particle ladder r[a,b,i,j] += 1/2 t[e,f,i,j] v[a,b,e,f] and hole ladder
// r[a,b,i,j] += 1/2 t[a,b,m,n] v[m,n,i,j], restricted closed shell, for H2O/cc-pVDZ in C2v and
// benzene/cc-pVDZ in D2h (orbitals per irrep from psi4's SCF), with whole groups and with tiles of 6
// orbitals (tcert::tiles_of). Per case: block products, flops, seconds, GFLOP/s and that rate over
// cblas_dgemm's on a square product of as many flops (the blocks' efficiency); for water also the
// dense contraction (tcert::contract on the full spin-orbital tensors) and dense / blocks (the speedup).
// One thread (OPENBLAS_NUM_THREADS=1 should be set too).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "runtime/blocks/block_contract.h"

extern "C" void openblas_set_num_threads(int threads);

namespace {

using Groups = std::vector<tcert::BlockGroup>;
using Tensor = std::vector<double, tcert::AlignedAllocator<double>>;

double seconds(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Groups groups_of(const std::vector<std::int64_t>& per_irrep) {
  Groups out;
  for (int spin : {0, 1})
    for (std::size_t g = 0; g < per_irrep.size(); ++g)
      if (per_irrep[g] > 0) out.push_back({spin, static_cast<int>(g), per_irrep[g]});
  return out;
}

Tensor random_values(std::int64_t count, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Tensor v(static_cast<std::size_t>(count));
  for (double& x : v) x = dist(rng);
  return v;
}

struct Molecule {
  const char* name;
  std::vector<std::int64_t> occupied, virtuals;
  bool dense;  ///< also run the dense spin-orbital contraction
};

struct Term {
  const char* name;
  tcert::BlockLabels labels;  // letters: a b e f virtual, i j m n occupied
};

tcert::BlockLayout layout(const std::string& letters, const Groups& O, const Groups& V) {
  tcert::BlockSymmetry s;
  for (char x : letters) s.groups.push_back(std::strchr("abef", x) ? V : O);
  s.upper = 2;
  s.antisymmetric = {{0, 1}, {2, 3}};
  s.restricted = true;
  return tcert::BlockLayout(s);
}

/// cblas_dgemm's rate (flop/s) on an n×n×n product with about `flops` flops (n at least 256).
double dgemm_rate(double flops, int reps) {
  const auto n = static_cast<std::int64_t>(std::max(256.0, std::cbrt(flops / 2)));
  const Tensor a = random_values(n * n, 1), b = random_values(n * n, 2);
  Tensor c(static_cast<std::size_t>(n * n), 0.0);
  double best = 1e30;
  for (int r = 0; r < reps; ++r)
    best = std::min(best, seconds([&] {
                      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(n), static_cast<int>(n),
                                  static_cast<int>(n), 1.0, a.data(), static_cast<int>(n), b.data(),
                                  static_cast<int>(n), 0.0, c.data(), static_cast<int>(n));
                    }));
  return 2.0 * static_cast<double>(n * n * n) / best;
}

void run(const Molecule& m, const Term& t, std::int64_t tile, int reps) {
  const Groups O0 = groups_of(m.occupied), V0 = groups_of(m.virtuals);
  const Groups O = tile > 0 ? tcert::tiles_of(O0, tile) : O0, V = tile > 0 ? tcert::tiles_of(V0, tile) : V0;
  const tcert::BlockLayout A = layout(t.labels.a, O, V), B = layout(t.labels.b, O, V), C = layout(t.labels.c, O, V);
  const std::vector<tcert::BlockProduct> products = tcert::block_products(A, B, C, t.labels);
  const Tensor a = random_values(A.elements(), 3), b = random_values(B.elements(), 4);
  Tensor c(static_cast<std::size_t>(C.elements()), 0.0);
  tcert::Workspace ws;
  double flops = 0, best = 1e30;
  for (int r = 0; r < reps; ++r)
    best = std::min(best, seconds([&] {
                      flops =
                          tcert::contract_blocks(products, t.labels, 0.5, A, a.data(), B, b.data(), C, c.data(), ws);
                    }));
  const double rate = flops / best, peak = dgemm_rate(flops, reps);
  std::printf("| %s | %s | %s | %zu | %.3g | %.4f | %.2f | %.2f |", m.name, t.name,
              tile > 0 ? std::to_string(tile).c_str() : "groups", products.size(), flops, best, rate * 1e-9,
              rate / peak);
  if (m.dense && tile == 0) {
    std::map<char, std::int64_t> extents;
    std::int64_t no = 0, nv = 0;
    for (const tcert::BlockGroup& g : O0) no += g.extent;
    for (const tcert::BlockGroup& g : V0) nv += g.extent;
    for (char x : std::string("abef")) extents[x] = nv;
    for (char x : std::string("ijmn")) extents[x] = no;
    const tcert::ContractionLayout dense = tcert::layout_from_labels(t.labels.a, t.labels.b, t.labels.c, extents);
    const Tensor da = random_values(tcert::element_count(dense.extents_A()), 5),
                 db = random_values(tcert::element_count(dense.extents_B()), 6);
    Tensor dc(static_cast<std::size_t>(tcert::element_count(dense.extents_C())), 0.0);
    double dense_best = 1e30;
    for (int r = 0; r < reps; ++r)
      dense_best =
          std::min(dense_best, seconds([&] { tcert::contract(dense, 0.5, da.data(), db.data(), 1.0, dc.data(), ws); }));
    std::printf(" %.3g | %.4f | %.0f |\n", dense.flops(), dense_best, dense_best / best);
  } else {
    std::printf(" | | |\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  for (int q = 1; q < argc; ++q) {
    if (std::strcmp(argv[q], "--reps") == 0 && q + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++q]));
    } else {
      std::fprintf(stderr, "usage: blocks_bench [--reps N]\n");
      return 2;
    }
  }
  openblas_set_num_threads(1);
  const Molecule molecules[] = {
      {"H2O/cc-pVDZ (C2v)", {3, 0, 1, 1}, {8, 2, 3, 6}, true},
      {"benzene/cc-pVDZ (D2h)", {6, 3, 1, 1, 0, 1, 5, 4}, {18, 15, 5, 8, 6, 8, 19, 14}, false},
  };
  const Term terms[] = {{"particle ladder", {"efij", "abef", "abij", {"ef"}}},
                        {"hole ladder", {"abmn", "mnij", "abij", {"mn"}}}};
  std::printf("Block-sparse contractions (restricted closed shell), one thread, min of %d runs\n\n", reps);
  std::printf(
      "| molecule | term | tiles | products | flops | s | GFLOP/s | / dgemm | dense flops | dense s | dense / blocks "
      "|\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Molecule& m : molecules)
    for (const Term& t : terms)
      for (std::int64_t tile : {std::int64_t{0}, std::int64_t{6}}) run(m, t, tile, reps);
  return 0;
}
