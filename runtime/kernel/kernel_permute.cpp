// runtime/kernel/kernel_permute.cpp — permute() and permute_strided(): cache-blocked tensor
// transposition, out = alpha·in' + beta·out.
//
// Reader's map:
//   Dim, simplify()     the problem as dimensions in output order with both strides; extent-1
//                       dimensions dropped, dimensions that stay adjacent fused.
//   copy_row()          stride 1 in and out along the same dimension: a scaled (streaming) copy.
//   transpose_2d()      stride 1 along different dimensions: 64×64 blocks of 8×8 tiles.
//   run()               picks one of the two (or element by element) under a loop nest in input order.
//   for_each_offset()   the odometer over the remaining dimensions.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/kernel/kernel.h"

#include "runtime/kernel/kernel_simd.h"
// x86-64 kernels (TCERT_HAVE_X86_KERNELS): non-temporal stores (SSE2), and AVX-512 where the CPU
// has it. Elsewhere the portable loops run and streaming is ignored.

namespace tcert {

namespace {

/// out = alpha·in + beta·out elementwise; beta == 0 never reads out. `stream`: non-temporal stores.
struct Scale {
  double alpha = 1, beta = 0;
  bool stream = false;
  bool copy() const { return alpha == 1 && beta == 0; }
};

/// One dimension of the problem, in output order: extent and element strides in `in` and `out`.
struct Dim {
  std::int64_t extent, in_stride, out_stride;
};

#ifdef TCERT_HAVE_X86_KERNELS
using detail::has_avx512;

/// Streaming row copy with AVX-512: one 64-byte non-temporal store per aligned cache line.
__attribute__((target("avx512f"))) void stream_row_avx512(const double* in, double* out, std::int64_t count,
                                                          double alpha) {
  std::int64_t i = 0;
  for (; i < count && (reinterpret_cast<std::uintptr_t>(out + i) & 63) != 0; ++i) out[i] = alpha * in[i];
  const __m512d a = _mm512_set1_pd(alpha);
  if (alpha == 1) {
    for (; i + 8 <= count; i += 8) _mm512_stream_pd(out + i, _mm512_loadu_pd(in + i));
  } else {
    for (; i + 8 <= count; i += 8) _mm512_stream_pd(out + i, _mm512_mul_pd(a, _mm512_loadu_pd(in + i)));
  }
  for (; i < count; ++i) out[i] = alpha * in[i];
}

/// Streaming row copy with SSE2 (every x86-64 CPU): 16-byte non-temporal stores.
void stream_row_sse2(const double* in, double* out, std::int64_t count, double alpha) {
  std::int64_t i = 0;
  for (; i < count && (reinterpret_cast<std::uintptr_t>(out + i) & 15) != 0; ++i) out[i] = alpha * in[i];
  const __m128d a = _mm_set1_pd(alpha);
  for (; i + 2 <= count; i += 2) _mm_stream_pd(out + i, _mm_mul_pd(a, _mm_loadu_pd(in + i)));
  for (; i < count; ++i) out[i] = alpha * in[i];
}
#endif

/// out[i] = alpha·in[i] + beta·out[i] for i < count: one contiguous row.
void copy_row(const double* in, double* out, std::int64_t count, Scale s) {
#ifdef TCERT_HAVE_X86_KERNELS
  if (s.stream && s.beta == 0) {
    if (count >= 8 && has_avx512()) return stream_row_avx512(in, out, count, s.alpha);
    return stream_row_sse2(in, out, count, s.alpha);
  }
#endif
  if (s.copy()) {
    std::memcpy(out, in, static_cast<std::size_t>(count) * sizeof(double));
  } else if (s.beta == 0) {
    for (std::int64_t i = 0; i < count; ++i) out[i] = s.alpha * in[i];
  } else {
    for (std::int64_t i = 0; i < count; ++i) out[i] = s.alpha * in[i] + s.beta * out[i];
  }
}

/// Calls f(in_offset, out_offset) for every point of the nest `loops` (outermost first).
template <class F>
void for_each_offset(const std::vector<Dim>& loops, F&& f) {
  const int n = static_cast<int>(loops.size());
  if (n == 0) return f(std::int64_t{0}, std::int64_t{0});
  std::int64_t idx[64] = {};
  std::int64_t io = 0, oo = 0;
  const Dim inner = loops[n - 1];
  for (;;) {
    for (std::int64_t i = 0; i < inner.extent; ++i) f(io + i * inner.in_stride, oo + i * inner.out_stride);
    int d = n - 2;
    for (; d >= 0; --d) {
      io += loops[d].in_stride;
      oo += loops[d].out_stride;
      if (++idx[d] < loops[d].extent) break;
      io -= loops[d].extent * loops[d].in_stride;
      oo -= loops[d].extent * loops[d].out_stride;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

/// Drops extent-1 dimensions; fuses output-adjacent dimensions whose strides nest in both tensors.
std::vector<Dim> simplify(const std::vector<Dim>& dims) {
  std::vector<Dim> out;
  for (const Dim& d : dims) {
    if (d.extent == 1) continue;
    if (!out.empty() && out.back().in_stride == d.extent * d.in_stride &&
        out.back().out_stride == d.extent * d.out_stride) {
      out.back() = {out.back().extent * d.extent, d.in_stride, d.out_stride};
    } else {
      out.push_back(d);
    }
  }
  return out;
}

/// Scalar tile: out[c·ldo + r] = alpha·in[r·ldi + c] + beta·out[...] for r < rows, c < cols.
void transpose_tile_scalar(const double* in, std::int64_t ldi, double* out, std::int64_t ldo, std::int64_t rows,
                           std::int64_t cols, Scale s) {
  for (std::int64_t c = 0; c < cols; ++c) {
    double* o = out + c * ldo;
    if (s.beta == 0) {
      for (std::int64_t r = 0; r < rows; ++r) o[r] = s.alpha * in[r * ldi + c];
    } else {
      for (std::int64_t r = 0; r < rows; ++r) o[r] = s.alpha * in[r * ldi + c] + s.beta * o[r];
    }
  }
}

constexpr std::int64_t kTile = 8;    // register tile (elements per side)
constexpr std::int64_t kBlock = 64;  // cache block: 64 rows of in and 64 rows of out stay in the TLB

/// Visits the rows×cols slice in kBlock×kBlock blocks of kTile×kTile tiles: tile(r, c, full).
template <class Tile>
void blocked_tiles(std::int64_t rows, std::int64_t cols, Tile&& tile) {
  for (std::int64_t r0 = 0; r0 < rows; r0 += kBlock) {
    for (std::int64_t c0 = 0; c0 < cols; c0 += kBlock) {
      const std::int64_t r1 = std::min(rows, r0 + kBlock), c1 = std::min(cols, c0 + kBlock);
      for (std::int64_t r = r0; r < r1; r += kTile) {
        for (std::int64_t c = c0; c < c1; c += kTile) tile(r, c, std::min(kTile, r1 - r), std::min(kTile, c1 - c));
      }
    }
  }
}

#ifdef TCERT_HAVE_X86_KERNELS
// GCC 12 warns inside its own intrinsics (_mm512_undefined_pd) where transpose_8x8 is inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
/// 8×8 tile with AVX-512: 8 row loads, 24 shuffles, 8 row stores (streaming when `aligned`).
__attribute__((target("avx512f"))) inline void transpose_tile_avx512(const double* in, std::int64_t ldi, double* out,
                                                                     std::int64_t ldo, Scale s, bool aligned) {
  __m512d r[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm512_loadu_pd(in + i * ldi);
  detail::transpose_8x8(r);
  const __m512d alpha = _mm512_set1_pd(s.alpha), beta = _mm512_set1_pd(s.beta);
  for (int c = 0; c < 8; ++c) {
    __m512d v = s.alpha == 1 ? r[c] : _mm512_mul_pd(alpha, r[c]);
    if (s.beta != 0) {
      _mm512_storeu_pd(out + c * ldo, _mm512_fmadd_pd(beta, _mm512_loadu_pd(out + c * ldo), v));
    } else if (aligned) {
      _mm512_stream_pd(out + c * ldo, v);
    } else {
      _mm512_storeu_pd(out + c * ldo, v);
    }
  }
}

__attribute__((target("avx512f"))) void transpose_2d_avx512(const double* in, std::int64_t ldi, double* out,
                                                            std::int64_t ldo, std::int64_t rows, std::int64_t cols,
                                                            Scale s) {
  // Streaming needs every tile row 64-byte aligned: an aligned base and ldo a multiple of 8.
  const bool stream = s.stream && reinterpret_cast<std::uintptr_t>(out) % 64 == 0 && ldo % 8 == 0;
  blocked_tiles(rows, cols, [&](std::int64_t r, std::int64_t c, std::int64_t nr, std::int64_t nc) {
    if (nr == kTile && nc == kTile) {
      transpose_tile_avx512(in + r * ldi + c, ldi, out + c * ldo + r, ldo, s, stream);
    } else {
      transpose_tile_scalar(in + r * ldi + c, ldi, out + c * ldo + r, ldo, nr, nc, s);
    }
  });
}
#pragma GCC diagnostic pop
#endif

/// out(c, r) = alpha·in(r, c) + beta·out(c, r) for an rows×cols slice (row strides ldi, ldo).
void transpose_2d(const double* in, std::int64_t ldi, double* out, std::int64_t ldo, std::int64_t rows,
                  std::int64_t cols, Scale s) {
#ifdef TCERT_HAVE_X86_KERNELS
  if (has_avx512()) return transpose_2d_avx512(in, ldi, out, ldo, rows, cols, s);
#endif
  blocked_tiles(rows, cols, [&](std::int64_t r, std::int64_t c, std::int64_t nr, std::int64_t nc) {
    transpose_tile_scalar(in + r * ldi + c, ldi, out + c * ldo + r, ldo, nr, nc, s);
  });
}

void check_sizes(std::size_t rank, const std::vector<int>& perm, std::size_t strides_in, std::size_t strides_out) {
  if (perm.size() != rank || strides_in != rank || strides_out != rank) {
    throw std::invalid_argument("permute: perm/strides have " + std::to_string(perm.size()) + "/" +
                                std::to_string(strides_in) + "/" + std::to_string(strides_out) + " entries for rank " +
                                std::to_string(rank));
  }
  std::vector<bool> seen(rank, false);
  for (int p : perm) {
    if (p < 0 || p >= static_cast<int>(rank) || seen[p]) {
      throw std::invalid_argument("permute: perm is not a permutation of 0.." + std::to_string(rank - 1));
    }
    seen[p] = true;
  }
}

/// Sorts loops by decreasing input stride, so that the input is read in storage order: the
/// hardware prefetchers follow it, while the writes, whole rows at a time, may jump.
void by_input_order(std::vector<Dim>& loops) {
  std::stable_sort(loops.begin(), loops.end(), [](const Dim& x, const Dim& y) { return x.in_stride > y.in_stride; });
}

/// Runs the simplified problem: row copies, 2-D transposes, or (no stride-1 pair) element by element.
void run(const double* in, double* out, std::vector<Dim> dims, Scale s) {
  const int n = static_cast<int>(dims.size());
  int a = -1, b = -1;  // the dimensions of stride 1 in `in` and in `out`
  for (int q = 0; q < n; ++q) {
    if (dims[q].in_stride == 1 && a < 0) a = q;
    if (dims[q].out_stride == 1 && b < 0) b = q;
  }
  if (n == 0) return copy_row(in, out, 1, s);
  if (a >= 0 && a == b) {
    const std::int64_t row = dims[a].extent;
    dims.erase(dims.begin() + a);
    by_input_order(dims);
    return for_each_offset(dims, [&](std::int64_t io, std::int64_t oo) { copy_row(in + io, out + oo, row, s); });
  }
  if (a < 0 || b < 0) {
    const std::int64_t one = 1;
    return for_each_offset(dims, [&](std::int64_t io, std::int64_t oo) { copy_row(in + io, out + oo, one, s); });
  }
  const Dim da = dims[a], db = dims[b];
  dims.erase(dims.begin() + std::max(a, b));
  dims.erase(dims.begin() + std::min(a, b));
  by_input_order(dims);
  for_each_offset(dims, [&](std::int64_t io, std::int64_t oo) {
    transpose_2d(in + io, db.in_stride, out + oo, da.out_stride, db.extent, da.extent, s);
  });
}

}  // namespace

void permute_strided(const double* in, const std::vector<std::int64_t>& extents_in,
                     const std::vector<std::int64_t>& strides_in, const std::vector<int>& perm, double* out,
                     const std::vector<std::int64_t>& strides_out, double alpha, double beta, StoreHint hint) {
  const std::size_t rank = extents_in.size();
  check_sizes(rank, perm, strides_in.size(), strides_out.size());
  const std::int64_t total = element_count(extents_in);
  if (total == 0) return;
  if (rank > 64) throw std::invalid_argument("permute: rank above 64");
  std::vector<Dim> dims;
  for (std::size_t q = 0; q < rank; ++q) dims.push_back({extents_in[perm[q]], strides_in[perm[q]], strides_out[q]});
  const bool big = total * static_cast<std::int64_t>(sizeof(double)) > kStreamingBytes;
  Scale s{alpha, beta, beta == 0 && (hint == StoreHint::Streaming || (hint == StoreHint::Auto && big))};
  run(in, out, simplify(dims), s);
#ifdef TCERT_HAVE_X86_KERNELS
  if (s.stream) _mm_sfence();  // order the non-temporal stores before whatever the caller does next
#endif
}

void permute(const double* in, const std::vector<std::int64_t>& extents_in, const std::vector<int>& perm, double* out,
             double alpha, double beta, StoreHint hint) {
  check_sizes(extents_in.size(), perm, perm.size(), perm.size());
  std::vector<std::int64_t> strides_in(extents_in.size(), 1), strides_out(extents_in.size(), 1);
  for (int d = static_cast<int>(extents_in.size()) - 2; d >= 0; --d) {
    strides_in[d] = strides_in[d + 1] * extents_in[d + 1];
    strides_out[d] = strides_out[d + 1] * extents_in[perm[d + 1]];
  }
  permute_strided(in, extents_in, strides_in, perm, out, strides_out, alpha, beta, hint);
}

}  // namespace tcert
