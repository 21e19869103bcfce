// runtime/kernel/kernel_gett.cpp — gett(): the blocked GEMM over scatter tables (kernel_gett.h).
//
// Reader's map:
//   gett_tables()         offsets of every macro-index value in X, Y and C.
//   pack_panel()          one panel of X (kGettMr rows) or Y (kGettNr rows) × a K block, k-major.
//   micro_*()             the register tile: kGettMr × kGettNr of C over a K block, from a
//                         packed panel of X or straight from X (direct panels).
//   update_tile()         C = alpha·tile + beta·C through the tables.
//   gett()                the loop nest: N blocks, K blocks (pack Y), M blocks (pack X), tiles.
#include "runtime/kernel/kernel_gett.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "runtime/kernel/kernel_plan.h"
#include "runtime/kernel/kernel_simd.h"

namespace tcert::detail {

namespace {

using i64 = std::int64_t;
constexpr i64 kMr = kGettMr, kNr = kGettNr;
/// Chains pack k-outer when X's innermost K index steps this many elements (64 KiB) or more, and
/// a block then holds up to kChainRun rows per value of the last row index (gett_blocks()).
/// Measured on TCCG's intensli cases: steps of 384 KiB (06, 08) pack 3x faster k-outer, steps
/// of 41 KiB (04) 10% faster k-inner.
constexpr i64 kChainFarElements = 8192, kChainRun = 128;
/// A direct panel's K step must not be a multiple of this many elements (2 KiB) when more than
/// kDirectAliasCols columns reuse it: its 2·kc lines would fall into at most 1/16 of L2's sets
/// and evict each other between reuses (gett_direct_step()).
constexpr i64 kDirectAliasElements = 256, kDirectAliasCols = 2 * kNr;
/// gett_direct() holds when the runs of X's rows are a multiple of kMr long, or of 8 and at least
/// this long (then at most 1 panel in 4 straddles two runs and is packed).
constexpr i64 kDirectLongRun = 4 * kMr;
/// gett() computes both column tiles of an N block of 2 at once over direct panels whose K step is
/// a multiple of this many elements (512 bytes: a panel's lines then fall into 1/8 of L2's sets or
/// fewer, and a second pass would reload them). Measured on TCCG intensli, side by side: steps of
/// 2^9·odd and more bytes (02, 04, 05, 06, 08) 45 -> 49, 36 -> 40, 49 -> 48, 26 -> 30 and 31;
/// steps of 64·odd bytes (01, 03) 47 -> 44 and 45.5 -> 44 (two passes from L2 are faster there).
constexpr i64 kWideStepElements = 64;
/// Rows of a group of C's rows (GettTables::c_groups): 8 values of C's innermost index × 8 of X's.
constexpr i64 kGroupRows = 64;

/// Multiplies the list out[0..) by `extent` values `step` apart: entry o becomes the entries
/// o·extent + v, v < extent, each out[o] + v·step (in place, from the back: o·extent + v ≥ o).
void expand(std::vector<i64>& out, i64 extent, i64 step) {
  if (extent <= 0) return out.clear();  // an empty group: no entries
  const std::size_t n = out.size();
  out.resize(n * static_cast<std::size_t>(extent));
  for (std::size_t o = n; o-- > 0;) {
    const i64 base = out[o];
    for (i64 v = extent; v-- > 0;)
      out[o * static_cast<std::size_t>(extent) + static_cast<std::size_t>(v)] = base + v * step;
  }
}

/// Offsets of an odometer over `ids` (last fastest) in a tensor stored in order `dims`, into
/// `out` (its memory kept).
void offsets(const std::vector<i64>& extent, const std::vector<int>& ids, const std::vector<int>& dims,
             std::vector<i64>& out) {
  const std::vector<i64> stride = strides_by_id(extent, dims);
  out.assign(1, 0);
  out.reserve(static_cast<std::size_t>(product(extent, ids)));
  for (int id : ids) expand(out, extent[id], stride[id]);  // outer ids first: the last id is fastest
}

/// Offsets of rows [others..., xi, ci] (`ids`) in a tensor stored in order `dims`, enumerated as
/// [others, xi / 8, ci, xi % 8] (GettTables::c_groups; xi's extent a multiple of 8), into `out`.
void group_offsets(const std::vector<i64>& extent, const std::vector<int>& ids, const std::vector<int>& dims,
                   std::vector<i64>& out) {
  const int xi = ids[ids.size() - 2], ci = ids.back();
  const std::vector<i64> stride = strides_by_id(extent, dims);
  offsets(extent, std::vector<int>(ids.begin(), ids.end() - 2), dims, out);
  out.reserve(static_cast<std::size_t>(product(extent, ids)));
  expand(out, extent[xi] / 8, 8 * stride[xi]);
  expand(out, extent[ci], stride[ci]);
  expand(out, 8, stride[xi]);
}

/// True when t[0..n) are consecutive offsets (t[r] = t[0] + r).
bool is_run(const i64* t, i64 n) {
  for (i64 r = 1; r < n; ++r) {
    if (t[r] != t[0] + r) return false;
  }
  return true;
}

#ifdef TCERT_HAVE_X86_KERNELS
// GCC 12 warns inside its own intrinsics (_mm512_undefined_pd) where transpose_8x8 is inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
/// Packs rows r0 .. r0+n (n ≤ 8, all valid) of a panel: when they are consecutive in memory, per
/// k one (masked) vector copy; otherwise, per 8 consecutive k (col[k..k+8) a run), an 8×8
/// register transpose when n ≥ 4 (masked stores of n), and for a last run of fewer than 8 k
/// (K = 38: 6 of every 38) one transpose of masked loads; element by element where none holds.
__attribute__((target("avx512f"))) void pack_group_avx512(const double* src, const i64* row, i64 n, i64 R,
                                                          const i64* col, i64 kc, double* out) {
  if (is_run(row, n)) {
    const double* base = src + row[0];
    const auto mask = static_cast<__mmask8>(n == 8 ? 0xFF : (1u << n) - 1);
    for (i64 k = 0; k < kc; ++k) {
      // Each k is its own stream (too many for the hardware prefetchers when k's stride is
      // large): fetch the line the panel after next reads at this k.
      _mm_prefetch(reinterpret_cast<const char*>(base + col[k] + 2 * R), _MM_HINT_T0);
      _mm512_mask_storeu_pd(out + k * R, mask, _mm512_maskz_loadu_pd(mask, base + col[k]));
    }
    return;
  }
  i64 k = 0;
  if (n >= 4) {  // a group of fewer than 8 rows (a panel's last) loads row 0 again and stores n
    const auto mask = static_cast<__mmask8>(n == 8 ? 0xFF : (1u << n) - 1);
    for (; k + 8 <= kc; k += 8) {
      if (!is_run(col + k, 8)) {
        for (i64 q = k; q < k + 8; ++q) {
          for (i64 r = 0; r < n; ++r) out[q * R + r] = src[row[r] + col[q]];
        }
        continue;
      }
      __m512d v[8];
      for (i64 i = 0; i < 8; ++i) {
        const double* at = src + row[i < n ? i : 0] + col[k];
        _mm_prefetch(reinterpret_cast<const char*>(at + 64), _MM_HINT_T0);  // 8 lines ahead
        v[i] = _mm512_loadu_pd(at);
      }
      transpose_8x8(v);
      for (int c = 0; c < 8; ++c) _mm512_mask_storeu_pd(out + (k + c) * R, mask, v[c]);
    }
    if (const i64 left = kc - k; left > 0 && is_run(col + k, left)) {  // left < 8: masked loads
      const auto kmask = static_cast<__mmask8>((1u << left) - 1);
      __m512d v[8];
      for (i64 i = 0; i < 8; ++i) v[i] = _mm512_maskz_loadu_pd(kmask, src + row[i < n ? i : 0] + col[k]);
      transpose_8x8(v);
      for (i64 c = 0; c < left; ++c) _mm512_mask_storeu_pd(out + (k + c) * R, mask, v[c]);
      k = kc;
    }
  }
  for (; k < kc; ++k) {
    for (i64 r = 0; r < n; ++r) out[k * R + r] = src[row[r] + col[k]];
  }
}

/// pack_block() when every group of 8 rows of every panel is a run: per k, per panel, per group
/// one masked vector copy; a last panel's missing rows are zero.
__attribute__((target("avx512f"))) void pack_runs_k_outer(const double* src, const i64* row, i64 rows, i64 R,
                                                          const i64* col, i64 kc, double* out) {
  for (i64 k = 0; k < kc; ++k) {
    const double* s = src + col[k];
    for (i64 p = 0; p < rows; p += R) {
      double* o = out + p * kc + k * R;
      const i64 n = std::min(R, rows - p);
      for (i64 g = 0; g < n; g += 8) {
        const i64 m = std::min<i64>(8, n - g);
        const auto mask = static_cast<__mmask8>(m == 8 ? 0xFF : (1u << m) - 1);
        _mm512_mask_storeu_pd(o + g, mask, _mm512_maskz_loadu_pd(mask, s + row[p + g]));
      }
      if (n < R) std::fill(o + n, o + R, 0.0);
    }
  }
}

/// Packs the chain of 8 groups of 8 rows h + j·cs + (0..7), j < 8, of a block of X (panels of
/// kMr rows at out + p·kMr·ldk, k < kc of them here) whose row h + i + j·cs lies j elements
/// after row h + i in memory: per k, 8 vector loads (8 consecutive elements of X each) and an
/// 8×8 register transpose give one vector per group.
__attribute__((target("avx512f"))) void pack_chain(const double* src, const i64* row, i64 h, i64 cs, const i64* col,
                                                   i64 kc, i64 ldk, double* out) {
  double* dst[8];
  for (i64 j = 0; j < 8; ++j) {
    const i64 q = h + j * cs;
    dst[j] = out + q / kMr * kMr * ldk + q % kMr;
  }
  for (i64 k = 0; k < kc; ++k) {
    __m512d v[8];
    for (i64 i = 0; i < 8; ++i) v[i] = _mm512_loadu_pd(src + row[h + i] + col[k]);
    transpose_8x8(v);
    for (i64 j = 0; j < 8; ++j) _mm512_storeu_pd(dst[j] + k * kMr, v[j]);
  }
}
#pragma GCC diagnostic pop
#endif

/// out[k·R + r] = src[row[r] + col[k]] for r < rows, k < kc; rows r in [rows, R) are zero.
/// With AVX-512 in groups of 8 rows (pack_group_avx512), else element by element.
void pack_panel(const double* src, const i64* row, i64 rows, i64 R, const i64* col, i64 kc, bool vectorized,
                double* out) {
  if (rows < R) {
    for (i64 k = 0; k < kc; ++k) std::fill(out + k * R + rows, out + k * R + R, 0.0);
  }
#ifdef TCERT_HAVE_X86_KERNELS
  if (vectorized) {
    for (i64 r = 0; r < rows; r += 8) pack_group_avx512(src, row + r, std::min<i64>(8, rows - r), R, col, kc, out + r);
    return;
  }
#else
  (void)vectorized;
#endif
  for (i64 r = 0; r < rows; ++r) {
    const double* s = src + row[r];
    for (i64 k = 0; k < kc; ++k) out[k * R + r] = s[col[k]];
  }
}

/// Packs `rows` rows of a block (panels of R rows, each R·kc elements at out + p·R·kc, as
/// pack_panel()). When every group of 8 rows (within a panel) is consecutive in memory and K is
/// not, k is the outer loop: per k the block's rows are read as the runs they are, instead of one
/// far-apart stream per k and panel, which the hardware prefetchers cannot follow.
void pack_block(const double* src, const i64* row, i64 rows, i64 R, const i64* col, i64 kc, bool vectorized,
                double* out) {
  bool runs = vectorized && kc > 1 && !is_run(col, std::min<i64>(kc, 8));
  for (i64 p = 0; runs && p < rows; p += R) {
    for (i64 g = p; runs && g < std::min(rows, p + R); g += 8)
      runs = is_run(row + g, std::min<i64>({8, rows - g, p + R - g}));
  }
  if (!runs) {
    for (i64 p = 0; p < rows; p += R)
      pack_panel(src, row + p, std::min(R, rows - p), R, col, kc, vectorized, out + p * kc);
    return;
  }
#ifdef TCERT_HAVE_X86_KERNELS
  pack_runs_k_outer(src, row, rows, R, col, kc, out);
#endif
}

/// Packs `rows` rows of X starting at row `first` (panels of kMr rows, as pack_block()). With
/// t.x_chain (X's stride-1 index is the second-to-last row index), every group of 8 rows whose
/// chain (gett_tables()) lies in the block packs by pack_chain(); the other groups, and every
/// group without AVX-512, as pack_panel() would.
void pack_x_block(const GettTables& t, const double* src, i64 first, i64 rows, const i64* col, i64 kc, bool vectorized,
                  double* out) {
  const i64* row = t.row_x.data() + first;
  const i64 cs = t.x_chain, ce = t.x_chain_extent;
  if (!vectorized || cs == 0) return pack_block(src, row, rows, kMr, col, kc, vectorized, out);
#ifdef TCERT_HAVE_X86_KERNELS
  if (rows % kMr != 0) {  // a last panel's missing rows are zero
    double* last = out + rows / kMr * kMr * kc;
    for (i64 k = 0; k < kc; ++k) std::fill(last + k * kMr + rows % kMr, last + (k + 1) * kMr, 0.0);
  }
  std::vector<i64> heads;  // of the chains in the block
  for (i64 g = 0; g < rows; g += 8) {
    const i64 value = (first + g) / cs % ce, head = g - value % 8 * cs;  // the index's value; its chain's head
    if (g + 8 <= rows && value - value % 8 + 8 <= ce && head >= 0 && head + 7 * cs + 8 <= rows) {
      if (value % 8 == 0) heads.push_back(g);
      continue;
    }
    pack_group_avx512(src, row + g, std::min<i64>(8, rows - g), kMr, col, kc, out + g / kMr * kMr * kc + g % kMr);
  }
  if (!t.x_chain_k_outer) {  // k inner: each chain's 8 planes advance along K, a short step
    for (i64 g : heads) pack_chain(src, row, g, cs, col, kc, kc, out);
    return;
  }
  // k outer, the chains in memory order: per k, the block's part of each of the 8 planes is
  // read as the runs it is (rows in X's order before the chain, best_gett_plan()).
  std::sort(heads.begin(), heads.end(), [&](i64 x, i64 y) { return row[x] < row[y]; });
  for (i64 k = 0; k < kc; ++k)
    for (i64 g : heads) pack_chain(src, row, g, cs, col + k, 1, kc, out + k * kMr);
#endif
}

#ifdef TCERT_HAVE_X86_KERNELS
/// One vector of C's update: *c = t + beta·*c (beta == 0: C is not read). `stream` (beta == 0
/// only): a vector that fills a cache line is stored past the caches (no read for ownership).
__attribute__((target("avx512f,fma"), always_inline)) inline void store_c(double* c, __m512d t, __m512d vb, bool beta0,
                                                                          bool stream) {
  if (stream && (reinterpret_cast<std::uintptr_t>(c) & 63) == 0) {
    _mm512_stream_pd(c, t);
  } else {
    _mm512_storeu_pd(c, beta0 ? t : _mm512_fmadd_pd(vb, _mm512_loadu_pd(c), t));
  }
}

/// A direct panel's layout in X (micro_avx512()): elements from one k to the next, from the
/// first run of 8 rows to the second, and from this panel to the next.
struct DirectX {
  i64 lda, group, next;
};

/// Where micro_avx512 puts its register tile: into `tile` (tile[j·kMr + r]), or, when the
/// tile's rows are a run in C, straight into C: C(r, j) = alpha·tile(r, j) + beta·C(r, j) at
/// c0[col_c[j] + r] (store_c()), which saves the tile's trip through memory (K = 24: 10%).
struct TileOut {
  double* tile;
  double* c0;
  const i64* col_c;
  double alpha, beta;
  bool stream;
};

/// The register tile Σ_k a[k·lda + r]·b[k·kNr + j] for r < 8·V, j < NR (V ≤ 2 vectors of rows,
/// NR ≤ kNr columns; the rest of the tile is not written), to `out` (kToC: into C, else into
/// out.tile): V·NR ≤ 28 accumulators in registers, per k V vector loads of a and NR broadcasts
/// of b. Packed (kDirect false): a is a 64-byte aligned panel and `x` is ignored. Direct: a is X
/// itself, the panel's rows V runs of 8 elements, x.group apart, at each k, x.lda elements apart;
/// per k the lines of the next panel at that k (x.next elements on) are fetched into L2 while
/// this one computes, so X streams from memory at the pace of the FMAs (TCCG intensli 01, read
/// at 8 GB/s without: 31 -> 44 GFLOP/s). A panel's last tile computes only its rows and
/// columns, not a full kMr × kNr.
template <int V, int NR, bool kToC, bool kDirect>
__attribute__((target("avx512f,fma"))) void micro_avx512(i64 kc, const double* __restrict a, const DirectX& x,
                                                         const double* __restrict b, const TileOut& out) {
  __m512d c[NR][V];
#pragma GCC unroll 16
  for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) c[j][v] = _mm512_setzero_pd();
  }
  for (i64 k = 0; k < kc; ++k, a += kDirect ? x.lda : kMr, b += kNr) {
    __m512d av[V];
    if constexpr (kDirect) {
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) av[v] = _mm512_loadu_pd(a + v * x.group);
      _mm_prefetch(reinterpret_cast<const char*>(a + x.next), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char*>(a + x.next + x.group), _MM_HINT_T1);
    } else {
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) av[v] = _mm512_load_pd(a + 8 * v);
    }
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
      const __m512d bj = _mm512_set1_pd(b[j]);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) c[j][v] = _mm512_fmadd_pd(av[v], bj, c[j][v]);
    }
  }
  if constexpr (kToC) {
    const __m512d va = _mm512_set1_pd(out.alpha), vb = _mm512_set1_pd(out.beta);
    const bool beta0 = out.beta == 0;
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
      double* cj = out.c0 + out.col_c[j];
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) store_c(cj + 8 * v, _mm512_mul_pd(va, c[j][v]), vb, beta0, out.stream);
    }
  } else {
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) _mm512_storeu_pd(out.tile + j * kMr + 8 * v, c[j][v]);
    }
  }
}

using MicroKernel = void (*)(i64, const double*, const DirectX&, const double*, const TileOut&);
using MicroRow = std::array<MicroKernel, kNr>;

template <int V, bool kToC, bool kDirect, std::size_t... J>
constexpr MicroRow micro_row(std::index_sequence<J...>) {
  return {&micro_avx512<V, static_cast<int>(J) + 1, kToC, kDirect>...};
}

template <bool kToC, bool kDirect>
constexpr std::array<MicroRow, 2> micro_rows() {
  return {micro_row<1, kToC, kDirect>(std::make_index_sequence<kNr>()),
          micro_row<2, kToC, kDirect>(std::make_index_sequence<kNr>())};
}

/// The wide register tile: 8 rows by kNr + NR1 columns (both column tiles of an N block of at most
/// 2·kNr), Σ_k a[k·x.lda + r]·b[k·kNr + j] from b0 (j < kNr) and b1 (j < NR1), into t0[j·kMr + r]
/// and t1[j·kMr + r]: kNr + NR1 ≤ 28 accumulators, per k one vector load of a and kNr + NR1
/// broadcasts. Each element of X is loaded once for both column tiles, where two 16-row tiles
/// would load it twice: the second time from L2, or, where X's K step is a multiple of 512 bytes
/// (kWideStepElements) and a panel's lines crowd a few of L2's sets, from memory again (TCCG
/// intensli 06 and 08, steps of 384 KiB). Direct: lines of the next panel are fetched as
/// micro_avx512() does.
template <int NR1, bool kDirect>
__attribute__((target("avx512f,fma"))) void micro_wide(i64 kc, const double* __restrict a, const DirectX& x,
                                                       const double* __restrict b0, const double* __restrict b1,
                                                       double* t0, double* t1) {
  __m512d c0[kNr], c1[NR1];
#pragma GCC unroll 16
  for (int j = 0; j < kNr; ++j) c0[j] = _mm512_setzero_pd();
#pragma GCC unroll 16
  for (int j = 0; j < NR1; ++j) c1[j] = _mm512_setzero_pd();
  for (i64 k = 0; k < kc; ++k, a += x.lda, b0 += kNr, b1 += kNr) {
    const __m512d av = _mm512_loadu_pd(a);
    if constexpr (kDirect) {
      _mm_prefetch(reinterpret_cast<const char*>(a + x.next), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char*>(a + x.next + 7), _MM_HINT_T1);
    }
#pragma GCC unroll 16
    for (int j = 0; j < kNr; ++j) c0[j] = _mm512_fmadd_pd(av, _mm512_set1_pd(b0[j]), c0[j]);
#pragma GCC unroll 16
    for (int j = 0; j < NR1; ++j) c1[j] = _mm512_fmadd_pd(av, _mm512_set1_pd(b1[j]), c1[j]);
  }
#pragma GCC unroll 16
  for (int j = 0; j < kNr; ++j) _mm512_storeu_pd(t0 + j * kMr, c0[j]);
#pragma GCC unroll 16
  for (int j = 0; j < NR1; ++j) _mm512_storeu_pd(t1 + j * kMr, c1[j]);
}

using WideKernel = void (*)(i64, const double*, const DirectX&, const double*, const double*, double*, double*);

template <bool kDirect, std::size_t... J>
constexpr std::array<WideKernel, kNr> wide_row(std::index_sequence<J...>) {
  return {&micro_wide<static_cast<int>(J) + 1, kDirect>...};
}

/// kWide[direct][NR1 - 1].
constexpr std::array<std::array<WideKernel, kNr>, 2> kWide = {wide_row<false>(std::make_index_sequence<kNr>()),
                                                              wide_row<true>(std::make_index_sequence<kNr>())};

/// kMicro[direct][to C][V - 1][NR - 1]: the register tile of V vectors of rows by NR columns.
constexpr std::array<std::array<std::array<MicroRow, 2>, 2>, 2> kMicro = {
    {{micro_rows<false, false>(), micro_rows<true, false>()}, {micro_rows<false, true>(), micro_rows<true, true>()}}};

// GCC 12 warns inside its own intrinsics where transpose_8x8 is inlined (as above).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
/// The tiles of 4 panels of C's row groups (GettTables::c_groups; tiles[p·kMr·kNr + j·kMr + r]):
/// row r of panel p is value 2p + r / 8 of C's innermost index for value r % 8 of X's, so per
/// column an 8×8 register transpose gives, for each of the 8 values of X's innermost index
/// (rows row_c[0..8) of the group), 8 consecutive elements of C, one vector update each.
__attribute__((target("avx512f,fma"))) void update_groups_avx512(const double* tiles, double* C, const i64* row_c,
                                                                 const i64* col_c, i64 cols, double alpha, double beta,
                                                                 bool stream) {
  const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
  for (i64 j = 0; j < cols; ++j) {
    __m512d v[8];
    for (int q = 0; q < 8; ++q) v[q] = _mm512_loadu_pd(tiles + q / 2 * kMr * kNr + j * kMr + q % 2 * 8);
    transpose_8x8(v);
    for (int r = 0; r < 8; ++r) store_c(C + row_c[r] + col_c[j], _mm512_mul_pd(va, v[r]), vb, beta == 0, stream);
  }
}
#pragma GCC diagnostic pop

/// C's rows r0 .. r0+8 consecutive: per column one vector update (store_c()).
__attribute__((target("avx512f,fma"))) void update_run_avx512(const double* tile, double* c0, const i64* col_c,
                                                              i64 cols, double alpha, double beta, bool stream) {
  const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
  for (i64 j = 0; j < cols; ++j)
    store_c(c0 + col_c[j], _mm512_mul_pd(va, _mm512_loadu_pd(tile + j * kMr)), vb, beta == 0, stream);
}
#endif

/// The portable register tile (same result as micro_avx512).
void micro_portable(i64 kc, const double* a, const double* b, double* tile) {
  std::fill(tile, tile + kMr * kNr, 0.0);
  for (i64 k = 0; k < kc; ++k, a += kMr, b += kNr) {
    for (i64 j = 0; j < kNr; ++j) {
      for (i64 r = 0; r < kMr; ++r) tile[j * kMr + r] += a[r] * b[j];
    }
  }
}

/// C(i0 + r, j0 + j) = alpha·tile[j·kMr + r] + beta·C(…) for r < rows, j < cols (beta == 0: C
/// is not read).
void update_tile(const GettTables& t, i64 i0, i64 rows, i64 j0, i64 cols, const double* tile, double alpha, double beta,
                 bool vectorized, bool stream, double* C) {
  const i64* row_c = t.row_c.data() + i0;
  const i64* col_c = t.col_c.data() + j0;
  if (cols > 1 && is_run(col_c, cols) && !is_run(row_c, std::min<i64>(rows, 8))) {
    for (i64 r = 0; r < rows; ++r) {  // C's columns consecutive: along them, row by row
      double* c = C + row_c[r] + col_c[0];
      if (beta == 0) {
        for (i64 j = 0; j < cols; ++j) c[j] = alpha * tile[j * kMr + r];
      } else {
        for (i64 j = 0; j < cols; ++j) c[j] = alpha * tile[j * kMr + r] + beta * c[j];
      }
    }
    return;
  }
  for (i64 h = 0; h < rows; h += 8) {  // groups of 8 rows
    const i64 n = std::min<i64>(8, rows - h);
#ifdef TCERT_HAVE_X86_KERNELS
    if (vectorized && n == 8 && is_run(row_c + h, 8)) {
      update_run_avx512(tile + h, C + row_c[h], col_c, cols, alpha, beta, stream);
      continue;
    }
#else
    (void)vectorized, (void)stream;
#endif
    for (i64 j = 0; j < cols; ++j) {
      double* c = C + col_c[j];
      const double* s = tile + j * kMr;
      if (beta == 0) {
        for (i64 r = h; r < h + n; ++r) c[row_c[r]] = alpha * s[r];
      } else {
        for (i64 r = h; r < h + n; ++r) c[row_c[r]] = alpha * s[r] + beta * c[row_c[r]];
      }
    }
  }
}

i64 round_up(i64 x, i64 to) { return std::max(to, (x + to - 1) / to * to); }

}  // namespace

GettTables gett_tables(const std::vector<i64>& extent, const std::vector<int>& rows, const std::vector<int>& cols,
                       const std::vector<int>& k, const std::vector<int>& dims_x, const std::vector<int>& dims_y,
                       const std::vector<int>& dims_c, bool c_groups) {
  GettTables t;
  fill_gett_tables(t, extent, rows, cols, k, dims_x, dims_y, dims_c, c_groups);
  return t;
}

void fill_gett_tables(GettTables& t, const std::vector<i64>& extent, const std::vector<int>& rows,
                      const std::vector<int>& cols, const std::vector<int>& k, const std::vector<int>& dims_x,
                      const std::vector<int>& dims_y, const std::vector<int>& dims_c, bool c_groups) {
  t.c_groups = c_groups && gett_groups(extent, rows, dims_x, dims_c);
  const auto row_offsets = t.c_groups ? group_offsets : offsets;
  row_offsets(extent, rows, dims_x, t.row_x);
  offsets(extent, k, dims_x, t.col_x);
  offsets(extent, cols, dims_y, t.row_y);
  offsets(extent, k, dims_y, t.col_y);
  row_offsets(extent, rows, dims_c, t.row_c);
  offsets(extent, cols, dims_c, t.col_c);
  t.x_chain = t.c_groups ? 0 : gett_chain(extent, rows, dims_x);
  t.x_chain_extent = t.x_chain > 0 ? extent[rows[rows.size() - 2]] : 0;
  t.x_chain_k_outer = t.x_chain > 0 && gett_chain_k_outer(extent, k, dims_x);
}

std::int64_t gett_chain(const std::vector<i64>& extent, const std::vector<int>& rows, const std::vector<int>& dims_x) {
  const std::size_t n = rows.size();
  const bool chain = n >= 2 && !dims_x.empty() && dims_x.back() == rows[n - 2] && extent[rows[n - 1]] % 8 == 0 &&
                     extent[rows[n - 2]] >= 8;
  return chain ? extent[rows[n - 1]] : 0;
}

bool gett_chain_k_outer(const std::vector<i64>& extent, const std::vector<int>& k, const std::vector<int>& dims_x) {
  return !k.empty() && strides_by_id(extent, dims_x)[k.back()] >= kChainFarElements;
}

namespace {

/// Whether panels read in place at a K step of `step` elements, reused by `cols` columns, keep
/// their lines in L2 (gett_direct_step()).
bool direct_step_fits(i64 step, i64 cols) {
  return step > 0 && (cols <= kDirectAliasCols || step % kDirectAliasElements != 0);
}

}  // namespace

i64 gett_direct_step(const i64* col_x, i64 kc, i64 cols) {
  if (!gett_vectorized() || kc < 1) return 0;
  if (kc == 1) return 1;  // one k: no step is taken
  const i64 step = col_x[1] - col_x[0];
  for (i64 k = 2; k < kc; ++k) {
    if (col_x[k] - col_x[k - 1] != step) return 0;
  }
  return direct_step_fits(step, cols) ? step : 0;
}

bool gett_groups(const std::vector<i64>& extent, const std::vector<int>& rows, const std::vector<int>& dims_x,
                 const std::vector<int>& dims_c) {
  const std::size_t n = rows.size();
  return gett_vectorized() && n >= 2 && !dims_x.empty() && !dims_c.empty() && dims_x.back() == rows[n - 2] &&
         dims_c.back() == rows[n - 1] && rows[n - 2] != rows[n - 1] && extent[rows[n - 2]] % 8 == 0 &&
         extent[rows[n - 1]] % 8 == 0;
}

bool gett_direct(const std::vector<i64>& extent, const std::vector<int>& rows, const std::vector<int>& k,
                 const std::vector<int>& dims_x, const GettBlocks& blocks, i64 N, bool c_groups) {
  if (rows.empty() || dims_x.empty() || (!c_groups && dims_x.back() != rows.back())) return false;
  const i64 run = c_groups ? kMr : extent[rows.back()];  // panels straddle two runs only at multiples of it
  if (run % kMr != 0 && (run % 8 != 0 || run < kDirectLongRun)) return false;
  if (!gett_vectorized()) return false;
  const i64 kc = std::min(blocks.kc, product(extent, k));
  if (kc <= 1) return true;  // one k: no step is taken
  // The first kc values of K's odometer (last id fastest; ids of one value take no step) advance
  // by the innermost stride while they stay within its id, and on past it only where each id
  // reached is merged with the one inside it in X (its stride that id's span times the step):
  // what gett_direct_step() finds on the first block's offsets, without listing them.
  const std::vector<i64> stride = strides_by_id(extent, dims_x);
  i64 step = 0, span = 1;
  for (std::size_t i = k.size(); i-- > 0 && span < kc;) {
    if (extent[k[i]] == 1) continue;
    if (step == 0) {
      step = stride[k[i]];
    } else if (stride[k[i]] != step * span) {
      return false;
    }
    span *= extent[k[i]];
  }
  return direct_step_fits(step, std::min(blocks.nc, N));
}

GettBlocks gett_blocks(const Workspace& ws, i64 x_chain, bool k_outer, i64 K) {
  i64 mc = round_up(ws.gett_mc, kMr), kc = std::max<i64>(1, ws.gett_kc);
  if (x_chain > 0) {
    // k-outer: up to kChainRun rows (1 KiB of X) per value of the last row index, so that each
    // of the 8 planes of a transpose is read in runs the prefetchers follow (runs of 64 bytes
    // -> 1 KiB: 2.2 -> 14.5 GB/s here, a test program on intensli 06's A), in up to 4x mc·kc
    // (L3), fewer rows rather than a second K block.
    const i64 budget = (k_outer ? 4 : 1) * mc * kc;
    const i64 run = k_outer ? std::clamp<i64>(budget / (x_chain * std::max<i64>(K, 1)) / 8 * 8, 8, kChainRun) : 0;
    const i64 chain_mc = round_up(std::max(mc, run * x_chain), round_up(8 * x_chain, kMr));
    kc = std::max<i64>(8, std::min(kc, budget / chain_mc));
    mc = chain_mc;
  }
  return {mc, kc, round_up(ws.gett_nc, kNr)};
}

bool gett_streams(const Workspace& ws, const GettBlocks& blocks, i64 M, i64 N, i64 K, bool c_written_once) {
  return gett_vectorized() && c_written_once && K <= blocks.kc &&
         M * N * static_cast<i64>(sizeof(double)) > ws.gett_stream_bytes;
}

bool gett_vectorized() {
#ifdef TCERT_HAVE_X86_KERNELS
  return has_avx512();
#else
  return false;
#endif
}

void gett(const GettTables& t, double alpha, const double* X, const double* Y, double beta, double* C, Workspace& ws) {
  const i64 M = static_cast<i64>(t.row_x.size()), N = static_cast<i64>(t.row_y.size());
  const i64 K = static_cast<i64>(t.col_x.size());
  GettBlocks blocks = gett_blocks(ws, t.x_chain, t.x_chain_k_outer, K);
  const bool vec = gett_vectorized(), groups = vec && t.c_groups;
  if (groups) blocks.mc = round_up(blocks.mc, kGroupRows);  // blocks of whole groups
  const auto [mc, kc, nc] = blocks;
  double* Ap = workspace_buffer(ws.a, mc * kc);
  double* Bp = workspace_buffer(ws.b, nc * kc);
  alignas(64) double tile[kGroupRows / kMr * kMr * kNr];   // one tile, or a group's 4
  alignas(64) double tile1[kGroupRows / kMr * kMr * kNr];  // the same of the second column tile (wide)
  std::vector<char> to_c(static_cast<std::size_t>(mc / kMr + 1)), direct(to_c.size());
  std::vector<i64> group(to_c.size()), next(to_c.size());  // of direct panels: DirectX
  // One K block writing a C larger than the caches: C is only written, once, so its lines skip
  // the caches (no read for ownership: 20 -> 25 GB/s of stores here, ccsd_t's TCCG cases 1.4x).
  const bool stream = gett_streams(ws, blocks, M, N, K, beta == 0);
  for (i64 jc = 0; jc < N; jc += nc) {
    const i64 ncols = std::min(nc, N - jc);
    for (i64 pc = 0; pc < K; pc += kc) {
      const i64 kk = std::min(kc, K - pc);
      const i64 *col_x = t.col_x.data() + pc, *col_y = t.col_y.data() + pc;
      pack_block(Y, t.row_y.data() + jc, ncols, kNr, col_y, kk, vec, Bp);
      const double b = pc == 0 ? beta : 1.0;  // later K blocks add to what the first wrote
      const i64 lda = vec && t.x_chain == 0 ? gett_direct_step(col_x, kk, ncols) : 0;
      for (i64 ic = 0; ic < M; ic += mc) {
        const i64 nrows = std::min(mc, M - ic);
        // Panels of one or two runs of 8 rows in X, at a K step that does not alias, are read
        // straight from X (direct); the others are packed.
        std::fill(direct.begin(), direct.end(), 0);
        bool any = false;
        for (i64 ir = 0; lda > 0 && ir < nrows; ir += kMr) {
          const i64 rows = std::min(kMr, nrows - ir), *row = t.row_x.data() + ic + ir;
          const auto q = static_cast<std::size_t>(ir / kMr);
          any |= direct[q] = rows % 8 == 0 && is_run(row, 8) && (rows == 8 || is_run(row + 8, 8));
          group[q] = rows > 8 ? row[8] - row[0] : 8;
          next[q] = ir + kMr < nrows ? row[kMr] - row[0] : kMr;
        }
        if (!any) {
          pack_x_block(t, X, ic, nrows, col_x, kk, vec, Ap);
        } else {
          for (i64 ir = 0; ir < nrows; ir += kMr) {
            if (!direct[static_cast<std::size_t>(ir / kMr)])
              pack_block(X, t.row_x.data() + ic + ir, std::min(kMr, nrows - ir), kMr, col_x, kk, vec, Ap + ir * kk);
          }
        }
        // Panels whose rows are a run in C, whole vectors of them: their tiles go straight to C.
        for (i64 ir = 0; ir < nrows; ir += kMr) {
          const i64 rows = std::min(kMr, nrows - ir);
          to_c[static_cast<std::size_t>(ir / kMr)] = vec && rows % 8 == 0 && is_run(t.row_c.data() + ic + ir, rows);
        }
#ifdef TCERT_HAVE_X86_KERNELS
        // Two column tiles over a block with direct panels whose K step crowds L2's sets: both at
        // once, X loaded once (micro_wide()).
        if (any && lda % kWideStepElements == 0 && ncols > kNr && ncols <= 2 * kNr && nrows % 8 == 0) {
          for (i64 ir = 0; ir < nrows; ir += kMr) {
            const i64 rows = std::min(kMr, nrows - ir);
            const auto q = static_cast<std::size_t>(ir / kMr);
            const bool dx = direct[q];
            const DirectX x = dx ? DirectX{lda, group[q], next[q]} : DirectX{kMr, 8, 0};
            const double* a = dx ? X + t.row_x[ic + ir] + col_x[0] : Ap + ir * kk;
            const i64 slot = groups ? ir / kMr % (kGroupRows / kMr) : 0;
            double *t0 = tile + slot * kMr * kNr, *t1 = tile1 + slot * kMr * kNr;
            for (i64 v = 0; v < rows / 8; ++v)
              kWide[dx][static_cast<std::size_t>(ncols - kNr - 1)](kk, a + v * x.group, x, Bp, Bp + kNr * kk,
                                                                   t0 + 8 * v, t1 + 8 * v);
            for (const i64 jr : {i64{0}, kNr}) {
              const i64 cols = std::min(kNr, ncols - jr);
              if (!groups) {
                update_tile(t, ic + ir, rows, jc + jr, cols, jr == 0 ? t0 : t1, alpha, b, vec, stream, C);
              } else if (slot + 1 == kGroupRows / kMr) {
                update_groups_avx512(jr == 0 ? tile : tile1, C, t.row_c.data() + ic + ir + kMr - kGroupRows,
                                     t.col_c.data() + jc + jr, cols, alpha, b, stream);
              }
            }
          }
          continue;
        }
#endif
        for (i64 jr = 0; jr < ncols; jr += kNr) {
          for (i64 ir = 0; ir < nrows; ir += kMr) {
#ifdef TCERT_HAVE_X86_KERNELS
            if (vec) {
              const i64 rows = std::min(kMr, nrows - ir), cols = std::min(kNr, ncols - jr);
              const auto q = static_cast<std::size_t>(ir / kMr);
              const bool into_c = to_c[q], dx = direct[q];
              const i64 slot = groups ? ir / kMr % (kGroupRows / kMr) : 0;  // the panel's place in its group
              const TileOut out{
                  tile + slot * kMr * kNr, C + t.row_c[ic + ir], t.col_c.data() + jc + jr, alpha, b, stream};
              const double* a = dx ? X + t.row_x[ic + ir] + col_x[0] : Ap + ir * kk;
              kMicro[dx][into_c][rows > 8 ? 1 : 0][static_cast<std::size_t>(cols - 1)](
                  kk, a, DirectX{lda, group[q], next[q]}, Bp + jr * kk, out);
              if (groups && slot + 1 == kGroupRows / kMr) {  // the group's 4 tiles are done
                update_groups_avx512(tile, C, t.row_c.data() + ic + ir + kMr - kGroupRows, t.col_c.data() + jc + jr,
                                     cols, alpha, b, stream);
                continue;
              }
              if (into_c || groups) continue;
            } else {
              micro_portable(kk, Ap + ir * kk, Bp + jr * kk, tile);
            }
#else
            micro_portable(kk, Ap + ir * kk, Bp + jr * kk, tile);
#endif
            update_tile(t, ic + ir, std::min(kMr, nrows - ir), jc + jr, std::min(kNr, ncols - jr), tile, alpha, b, vec,
                        stream, C);
          }
        }
      }
    }
  }
#ifdef TCERT_HAVE_X86_KERNELS
  if (stream) _mm_sfence();  // streamed stores are visible before gett() returns
#endif
}

}  // namespace tcert::detail
