// bench/kernel_bench.cpp — the runtime's local tile kernel against cblas_dgemm on macro-GEMM
// shapes: gemm_tile() (expected ratio ≈ 1.0) and contract() on permuted tensors (TTGT overhead).
//
// Usage: kernel_bench [--reps N]   (default 5; the minimum of N interleaved runs of each is reported)
// Ratios are rates relative to cblas_dgemm(RowMajor, NoTrans, Trans) on the same m×n×k (> 1: faster).
// contract() runs as it chooses (TTGT or GETT, kernel.h) and, beside it, forced to each.
// One thread: openblas_set_num_threads(1) is called, and OPENBLAS_NUM_THREADS=1 should be set in
// the environment too (OpenBLAS reads it when it loads, before main).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernel/kernel.h"

namespace {

struct Shape {
  std::int64_t m, n, k;
};

/// Macro-GEMM shapes m×n×k (elements): square, flat, skinny, and TCCG-like tiles.
const Shape kShapes[] = {
    {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 256}, {4096, 64, 4096}, {64, 4096, 4096}, {256, 256, 8192},
    {5184, 72, 72},  {72, 5184, 5184},   {1024, 1024, 64},  {2304, 576, 24},  {384, 96, 2304},  {576, 1024, 1024},
};

double seconds(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Tensors live in aligned, huge-page-advised memory, as numpy's large arrays do.
using Tensor = std::vector<double, tcert::AlignedAllocator<double>>;

Tensor random_values(std::int64_t count, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Tensor v(static_cast<std::size_t>(count));
  for (double& x : v) x = dist(rng);
  return v;
}

/// x = x1·x2 with x1 the largest power of two ≤ sqrt(x) dividing x (x2 = x when none).
std::pair<std::int64_t, std::int64_t> split(std::int64_t x) {
  std::int64_t x1 = 1;
  while (x % (2 * x1) == 0 && (2 * x1) * (2 * x1) <= x) x1 *= 2;
  return {x1, x / x1};
}

/// A permuted contraction of the same macro-GEMM shape: I = (a,b), J = (c,d), K = (e,f), stored
/// A[e,a,f,b], B[c,f,d,e], C[c,a,d,b], so that A, B and C all need a permutation.
tcert::ContractionLayout permuted_layout(const Shape& s) {
  const auto [a, b] = split(s.m);
  const auto [c, d] = split(s.n);
  const auto [e, f] = split(s.k);
  return tcert::layout_from_labels("eafb", "cfde", "cadb",
                                   {{'a', a}, {'b', b}, {'c', c}, {'d', d}, {'e', e}, {'f', f}});
}

struct Row {
  double dgemm_s = 1e30, tile_s = 1e30, contract_s = 1e30, ttgt_s = 1e30, gett_s = 1e30;
};

/// Runs dgemm, gemm_tile, contract and contract forced to TTGT and to GETT interleaved: one warm-up each, then `reps` rounds, each in a
/// rotated order (so that none always runs right after another); keeps the minima.
Row measure(const Shape& s, int reps) {
  const auto A = random_values(s.m * s.k, 1), B = random_values(s.n * s.k, 2);
  Tensor C(static_cast<std::size_t>(s.m * s.n), 0.0);
  const auto layout = permuted_layout(s);
  tcert::Workspace ws, ws_ttgt, ws_gett;
  ws_ttgt.scheme = tcert::Workspace::Scheme::Ttgt;
  ws_gett.scheme = tcert::Workspace::Scheme::Gett;
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  auto dgemm = [&] {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, A.data(), k, B.data(), k, 0.0, C.data(), n);
  };
  auto tile = [&] { tcert::gemm_tile(s.m, s.n, s.k, 1.0, A.data(), s.k, B.data(), s.k, 0.0, C.data(), s.n); };
  auto contract = [&] { tcert::contract(layout, 1.0, A.data(), B.data(), 0.0, C.data(), ws); };
  auto ttgt = [&] { tcert::contract(layout, 1.0, A.data(), B.data(), 0.0, C.data(), ws_ttgt); };
  auto gett = [&] { tcert::contract(layout, 1.0, A.data(), B.data(), 0.0, C.data(), ws_gett); };
  Row r;
  dgemm(), tile(), contract(), ttgt(), gett();
  for (int i = 0; i < 5 * reps; ++i) {
    switch ((i + i / 5) % 5) {
      case 3: r.gett_s = std::min(r.gett_s, seconds(gett)); break;
      case 0: r.dgemm_s = std::min(r.dgemm_s, seconds(dgemm)); break;
      case 1: r.tile_s = std::min(r.tile_s, seconds(tile)); break;
      case 2: r.ttgt_s = std::min(r.ttgt_s, seconds(ttgt)); break;
      default: r.contract_s = std::min(r.contract_s, seconds(contract)); break;
    }
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  tcert::use_native_blas_kernels(argv);  // the library's kernels for this CPU (kernel.h)
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: kernel_bench [--reps N]\n");
      return 2;
    }
  }
#ifdef OPENBLAS_VERSION
  openblas_set_num_threads(1);
#endif
  std::printf("local tile kernel vs cblas_dgemm, 1 thread, double, min of %d interleaved runs\n", reps);
  std::printf("contract: A[e,a,f,b] B[c,f,d,e] -> C[c,a,d,b], I=(a,b) J=(c,d) K=(e,f) (every operand permuted)\n\n");
  std::printf("%6s %6s %6s | %9s | %9s %6s | %9s %6s | %9s %6s | %9s %6s\n", "m", "n", "k", "dgemm", "gemm_tile",
              "ratio", "contract", "ratio", "TTGT", "ratio", "GETT", "ratio");
  std::printf("%20s | %9s | %9s %6s | %9s %6s | %9s %6s | %9s %6s\n", "", "GFLOP/s", "GFLOP/s", "", "GFLOP/s", "",
              "GFLOP/s", "", "GFLOP/s", "");
  double log_tile = 0, log_contract = 0, log_ttgt = 0, log_gett = 0;
  int count = 0;
  for (const Shape& s : kShapes) {
    const Row r = measure(s, reps);
    const double gflop = 2.0 * s.m * s.n * s.k * 1e-9;
    const double tile_ratio = r.dgemm_s / r.tile_s, contract_ratio = r.dgemm_s / r.contract_s;
    const double ttgt_ratio = r.dgemm_s / r.ttgt_s, gett_ratio = r.dgemm_s / r.gett_s;
    std::printf("%6lld %6lld %6lld | %9.2f | %9.2f %6.3f | %9.2f %6.3f | %9.2f %6.3f | %9.2f %6.3f\n",
                static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k),
                gflop / r.dgemm_s, gflop / r.tile_s, tile_ratio, gflop / r.contract_s, contract_ratio, gflop / r.ttgt_s,
                ttgt_ratio, gflop / r.gett_s, gett_ratio);
    std::fflush(stdout);
    log_tile += std::log(tile_ratio);
    log_contract += std::log(contract_ratio);
    log_ttgt += std::log(ttgt_ratio);
    log_gett += std::log(gett_ratio);
    ++count;
  }
  std::printf("\ngeometric mean ratio: gemm_tile/dgemm %.3f, contract/dgemm(pre-permuted) %.3f, TTGT %.3f, GETT %.3f\n",
              std::exp(log_tile / count), std::exp(log_contract / count), std::exp(log_ttgt / count),
              std::exp(log_gett / count));
  return 0;
}
