// runtime/kernel/kernel_dot.cpp — contract() as inner products along K (kernel_dot.h).
//
// Reader's map:
//   Sides          which operand is big, its rows, its runs of K and the small side's columns.
//   sides()        the big side and its runs, or none (dot_applies()).
//   table()        offsets of an odometer over ids.
//   dot_block()    8 rows of the big operand times all columns: register transposes, N accumulators.
//   dot_avx512()   the blocks of 8 rows, the next one's lines (big operand and C) fetched ahead.
//   dot()          copies the small operand in K order, then dot_avx512().
#include "runtime/kernel/kernel_dot.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/kernel/kernel_gett.h"
#include "runtime/kernel/kernel_simd.h"

namespace tcert::detail {

namespace {

using i64 = std::int64_t;

/// The shortest run of K for dot(): a run's last 8 or fewer elements take a whole transpose, so
/// short runs pay for it (K = 10, TCCG-like I(38,38,10) J(10): 1.6 times GETT's time; K = 38 on
/// T1 × v_pppp: 0.7 times).
constexpr i64 kDotMinRun = 32;

/// The operands of dot(): the big one's rows (its outer ids, in its stored order), the small
/// one's (its outer ids, in its stored order: C's columns), the K ids outside the big operand's
/// innermost run and the ids of that run (both in its stored order), and the run's length.
struct Sides {
  bool big_is_A = true;
  std::vector<int> rows, cols, k_outer, k_run;
  i64 run = 1;
};

/// The sides with the big operand A (`big_is_A`) or B, or none.
std::optional<Sides> sides(const Indexing& x, bool big_is_A) {
  const i64 nI = product(x.extent, x.I), nJ = product(x.extent, x.J);
  Sides s;
  s.big_is_A = big_is_A;
  const i64 small = s.big_is_A ? nJ : nI, big = s.big_is_A ? nI : nJ;
  if (small < 2 || small > kDotMaxSide || big < small) return std::nullopt;
  const std::vector<int>& big_dims = s.big_is_A ? x.dims_A : x.dims_B;
  const std::vector<int>& small_dims = s.big_is_A ? x.dims_B : x.dims_A;
  auto is_k = [&](int id) { return std::find(x.K.begin(), x.K.end(), id) != x.K.end(); };
  // The run: the big operand's trailing K dimensions (those of extent 1 move nothing).
  std::size_t d = big_dims.size();
  while (d > 0 && (x.extent[big_dims[d - 1]] == 1 || is_k(big_dims[d - 1]))) {
    const int id = big_dims[--d];
    if (x.extent[id] == 1) continue;
    s.k_run.insert(s.k_run.begin(), id);
    s.run *= x.extent[id];
  }
  if (s.run < kDotMinRun) return std::nullopt;
  for (int id : big_dims) {
    if (std::find(s.k_run.begin(), s.k_run.end(), id) != s.k_run.end()) continue;
    (is_k(id) ? s.k_outer : s.rows).push_back(id);
  }
  for (int id : small_dims)
    if (!is_k(id)) s.cols.push_back(id);
  return s;
}

/// The sides of dot(): the larger operand big, or either where they are as large (A first).
std::optional<Sides> sides(const Indexing& x) {
  const std::optional<Sides> a = sides(x, true);
  return a ? a : sides(x, false);
}

/// Offsets of an odometer over `ids` (the last fastest) with strides `stride` (by id).
std::vector<i64> table(const Indexing& x, const std::vector<int>& ids, const std::vector<i64>& stride) {
  std::vector<i64> out{0};
  for (int id : ids) {
    std::vector<i64> next;
    next.reserve(out.size() * static_cast<std::size_t>(x.extent[id]));
    for (i64 o : out)
      for (i64 v = 0; v < x.extent[id]; ++v) next.push_back(o + v * stride[id]);
    out.swap(next);
  }
  return out;
}

#ifdef TCERT_HAVE_X86_KERNELS
// GCC 12 warns inside its own intrinsics (_mm512_undefined_pd) where transpose_8x8 is inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
/// C(r, col) = alpha·t[r] + beta·C(r, col) for the block's `rows` rows at offsets rc[r] + col
/// (beta == 0: C is not read); one (masked) vector when they are consecutive in C (`run`).
__attribute__((target("avx512f,fma"))) void put(double* C, const i64* rc, i64 rows, bool run, i64 col, __m512d t,
                                                double alpha, double beta) {
  t = _mm512_mul_pd(_mm512_set1_pd(alpha), t);
  if (run) {
    double* c = C + rc[0] + col;
    const auto mask = static_cast<__mmask8>((1u << rows) - 1);
    if (beta != 0) t = _mm512_fmadd_pd(_mm512_set1_pd(beta), _mm512_maskz_loadu_pd(mask, c), t);
    _mm512_mask_storeu_pd(c, mask, t);
    return;
  }
  alignas(64) double v[8];
  _mm512_store_pd(v, t);
  for (i64 r = 0; r < rows; ++r) {
    double& c = C[rc[r] + col];
    c = beta == 0 ? v[r] : v[r] + beta * c;
  }
}

/// One block of dot(): the `rows` rows (≤ 8) of the big operand at p[0..8) (a short block
/// repeats row 0), their runs of `run` elements at offsets kb[q], q < runs, times the N columns
/// of yp (yp[k·N + c], k in the same K order: one base address per step), into C (put()). Per 8
/// elements of a run (fewer at its end: masked loads), the 8 rows' vectors are transposed in
/// registers (8 loads, 24 shuffles) into one vector of the 8 rows per k, each multiplied by N
/// broadcasts of the columns' values: 8·N FMAs into N accumulators, no reduction and no store to
/// memory between.
template <int N>
__attribute__((target("avx512f,fma"))) void dot_block(const double* const* p, const i64* kb, i64 runs, i64 run,
                                                      const double* yp, double* C, const i64* rc, i64 rows, bool c_run,
                                                      const i64* col_c, double alpha, double beta) {
  __m512d acc[N];
#pragma GCC unroll 16
  for (int c = 0; c < N; ++c) acc[c] = _mm512_setzero_pd();
  for (i64 q = 0; q < runs; ++q) {
    const i64 o = kb[q];
    const double* y = yp + q * run * N;
    for (i64 l = 0; l < run; l += 8) {
      const i64 valid = std::min<i64>(8, run - l);
      const auto mask = static_cast<__mmask8>(valid == 8 ? 0xFF : (1u << valid) - 1);
      __m512d v[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) v[i] = _mm512_maskz_loadu_pd(mask, p[i] + o + l);
      transpose_8x8(v);  // v[j]: the rows' elements at k = l + j
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        if (j >= valid) break;
#pragma GCC unroll 16
        for (int c = 0; c < N; ++c) acc[c] = _mm512_fmadd_pd(v[j], _mm512_set1_pd(y[(l + j) * N + c]), acc[c]);
      }
    }
  }
#pragma GCC unroll 16
  for (int c = 0; c < N; ++c) put(C, rc, rows, c_run, col_c[c], acc[c], alpha, beta);
}

using DotBlock = void (*)(const double* const*, const i64*, i64, i64, const double*, double*, const i64*, i64, bool,
                          const i64*, double, double);

template <std::size_t... N>
constexpr std::array<DotBlock, kDotMaxSide + 1> dot_blocks(std::index_sequence<N...>) {
  return {&dot_block<static_cast<int>(N) + 1>...};
}

/// kDotBlock[n - 1]: dot_block() of n columns.
constexpr std::array<DotBlock, kDotMaxSide + 1> kDotBlock =
    dot_blocks(std::make_index_sequence<static_cast<std::size_t>(kDotMaxSide) + 1>());

/// The products of dot(): blocks of up to 8 rows of `big` (row r at big + row_b[r]; its runs of
/// `run` elements at offsets kb[q], q < runs) times the n columns of yp (dot_block()). A block ends
/// where its rows stop being consecutive in C, so that it goes to C as vectors.
__attribute__((target("avx512f,fma"))) void dot_avx512(const double* big, const i64* row_b, const i64* row_c, i64 m,
                                                       const i64* kb, i64 runs, i64 run, const double* yp, i64 n,
                                                       const i64* col_c, double alpha, double beta, double* C) {
  const DotBlock block = kDotBlock[static_cast<std::size_t>(n - 1)];
  for (i64 r0 = 0, rows = 0; r0 < m; r0 += rows) {
    rows = 1;
    while (rows < 8 && r0 + rows < m && row_c[r0 + rows] == row_c[r0] + rows) ++rows;
    const bool c_run = rows > 1;
    if (!c_run) rows = std::min<i64>(8, m - r0);  // C's rows far apart: any 8, element by element
    const double* p[8];
    for (i64 i = 0; i < 8; ++i) p[i] = big + row_b[r0 + (i < rows ? i : 0)];  // a short block repeats row 0
    // The next 8 rows' lines, fetched while this block computes: a block otherwise waits on
    // memory line by line (T1 × v_pppp on cold data: 3.6 -> 2.8 ms; |J| = 10·38²: 0.82 -> 0.58
    // ms; on data in cache 0.36 -> 0.39 ms).
    for (i64 i = r0 + rows; i < std::min(m, r0 + rows + 8); ++i)
      for (i64 q = 0; q < runs; ++q)
        for (i64 l = 0; l < run; l += 8)
          _mm_prefetch(reinterpret_cast<const char*>(big + row_b[i] + kb[q] + l), _MM_HINT_T0);
    // And the lines of C that put() reads for the next block's first row (up to 8 elements from
    // there, per column): its loads otherwise waited on memory at every column (T1 × v_pppp,
    // C = 4.4 MB: 2.8-2.9 -> 2.3-2.4 ms cold, 2.4 -> 2.1 ms warm).
    if (beta != 0 && r0 + rows < m)
      for (i64 c = 0; c < n; ++c) {
        const double* at = C + row_c[r0 + rows] + col_c[c];
        _mm_prefetch(reinterpret_cast<const char*>(at), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(at + 7), _MM_HINT_T0);
      }
    block(p, kb, runs, run, yp, C, row_c + r0, rows, c_run, col_c, alpha, beta);
  }
}
#pragma GCC diagnostic pop
#endif

/// The sides of dot() where it applies with `ws` (dot_applies()), else none.
std::optional<Sides> applicable(const Indexing& x, const Workspace& ws) {
  if (!gett_vectorized() || !ws.inner_products || ws.scheme == Workspace::Scheme::Ttgt) return std::nullopt;
  std::optional<Sides> s = sides(x);
  if (s && product(x.extent, s->big_is_A ? x.J : x.I) * product(x.extent, x.K) > ws.gett_kc * ws.gett_nc)
    return std::nullopt;
  return s;
}

}  // namespace

bool dot_applies(const Indexing& x, const Workspace& ws) { return applicable(x, ws).has_value(); }

bool dot(const Indexing& x, double alpha, const double* A, const double* B, double beta, double* C, Workspace& ws) {
  const std::optional<Sides> sides_of = applicable(x, ws);
  if (!sides_of) return false;
#ifdef TCERT_HAVE_X86_KERNELS
  const Sides& s = *sides_of;
  const double* big = s.big_is_A ? A : B;
  const double* small = s.big_is_A ? B : A;
  const std::vector<i64> big_stride = strides_by_id(x.extent, s.big_is_A ? x.dims_A : x.dims_B);
  const std::vector<i64> small_stride = strides_by_id(x.extent, s.big_is_A ? x.dims_B : x.dims_A);
  const std::vector<i64> c_stride = strides_by_id(x.extent, x.dims_C);
  const std::vector<i64> row_b = table(x, s.rows, big_stride), row_c = table(x, s.rows, c_stride);
  const std::vector<i64> col_s = table(x, s.cols, small_stride), col_c = table(x, s.cols, c_stride);
  const std::vector<i64> kb = table(x, s.k_outer, big_stride), ks = table(x, s.k_outer, small_stride);
  const std::vector<i64> ls = table(x, s.k_run, small_stride);  // a run's elements in the small operand
  const auto n = static_cast<i64>(col_s.size()), runs = static_cast<i64>(kb.size()), K = runs * s.run;
  double* yp = workspace_buffer(ws.b, n * K);  // yp[k·n + c]: per k, the n columns' values
  for (i64 q = 0; q < runs; ++q)
    for (i64 l = 0; l < s.run; ++l)
      for (i64 c = 0; c < n; ++c) yp[(q * s.run + l) * n + c] = small[col_s[c] + ks[q] + ls[l]];
  dot_avx512(big, row_b.data(), row_c.data(), static_cast<i64>(row_b.size()), kb.data(), runs, s.run, yp, n,
             col_c.data(), alpha, beta, C);
  return true;
#else
  (void)alpha, (void)A, (void)B, (void)beta, (void)C;  // not reached: dot_applies() is false
  return false;
#endif
}

}  // namespace tcert::detail
