// runtime/kernel_permute.cpp — permute(): cache-blocked tensor transposition, out = alpha·in' + beta·out.
//
// Reader's map:
//   simplify()        drops extent-1 dimensions and fuses dimensions that stay adjacent.
//   for_each_offset() an odometer over a loop nest, yielding (input, output) offsets.
//   copy_rows()       the innermost dimension stays innermost: one scaled copy per row.
//   transpose_2d()    the innermost dimensions differ: 8×8 tiles (AVX-512 when the CPU has it).
#include <immintrin.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/kernel.h"

namespace tcert {

namespace {

/// out = alpha·in + beta·out elementwise; beta == 0 never reads out.
struct Scale {
  double alpha = 1, beta = 0;
  bool copy() const { return alpha == 1 && beta == 0; }
};

inline void scaled_copy(const double* in, double* out, std::int64_t count, Scale s) {
  if (s.copy()) {
    std::memcpy(out, in, static_cast<std::size_t>(count) * sizeof(double));
  } else if (s.beta == 0) {
    for (std::int64_t i = 0; i < count; ++i) out[i] = s.alpha * in[i];
  } else {
    for (std::int64_t i = 0; i < count; ++i) out[i] = s.alpha * in[i] + s.beta * out[i];
  }
}

/// One loop of a nest: its trip count and the element strides it advances in and out by.
struct Loop {
  std::int64_t extent, in_stride, out_stride;
};

/// Calls f(in_offset, out_offset) for every point of the nest `loops` (outermost first).
template <class F>
void for_each_offset(const std::vector<Loop>& loops, F&& f) {
  const int n = static_cast<int>(loops.size());
  if (n == 0) return f(std::int64_t{0}, std::int64_t{0});
  std::vector<std::int64_t> idx(n, 0);
  std::int64_t io = 0, oo = 0;
  const Loop inner = loops[n - 1];
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

/// A permutation after simplify(): input extents and perm (out dim q = in dim perm[q]).
struct Shape {
  std::vector<std::int64_t> extents;
  std::vector<int> perm;
};

void check_permutation(const std::vector<std::int64_t>& extents, const std::vector<int>& perm) {
  if (perm.size() != extents.size()) {
    throw std::invalid_argument("permute: perm has " + std::to_string(perm.size()) + " entries for rank " +
                                std::to_string(extents.size()));
  }
  std::vector<bool> seen(perm.size(), false);
  for (int p : perm) {
    if (p < 0 || p >= static_cast<int>(perm.size()) || seen[p]) {
      throw std::invalid_argument("permute: perm is not a permutation of 0.." + std::to_string(perm.size() - 1));
    }
    seen[p] = true;
  }
}

/// Drops extent-1 dimensions, then fuses input dimensions d, d+1 that are adjacent in the output too.
Shape simplify(const std::vector<std::int64_t>& extents, const std::vector<int>& perm) {
  const int n = static_cast<int>(extents.size());
  std::vector<int> renumber(n, -1);
  std::vector<std::int64_t> kept_extents;
  for (int d = 0; d < n; ++d) {
    if (extents[d] == 1) continue;
    renumber[d] = static_cast<int>(kept_extents.size());
    kept_extents.push_back(extents[d]);
  }
  std::vector<int> kept_perm;
  for (int d : perm) {
    if (renumber[d] >= 0) kept_perm.push_back(renumber[d]);
  }
  // Runs of the output whose input dimensions are consecutive become one dimension.
  const int k = static_cast<int>(kept_perm.size());
  std::vector<int> group_of_in(k, -1), group_first;  // input dim -> group; group -> first input dim
  for (int q = 0; q < k; ++q) {
    if (q > 0 && kept_perm[q] == kept_perm[q - 1] + 1) {
      group_of_in[kept_perm[q]] = group_of_in[kept_perm[q - 1]];
    } else {
      group_of_in[kept_perm[q]] = static_cast<int>(group_first.size());
      group_first.push_back(kept_perm[q]);
    }
  }
  Shape s;
  std::vector<int> fused_index(group_first.size());  // group -> fused input dimension
  for (int d = 0; d < k; ++d) {
    const int g = group_of_in[d];
    if (group_first[g] == d) {
      fused_index[g] = static_cast<int>(s.extents.size());
      s.extents.push_back(1);
    }
    s.extents[fused_index[g]] *= kept_extents[d];
  }
  for (int g = 0; g < static_cast<int>(group_first.size()); ++g) s.perm.push_back(fused_index[g]);
  return s;
}

/// Element strides of a row-major tensor of these extents.
std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& extents) {
  std::vector<std::int64_t> strides(extents.size(), 1);
  for (int d = static_cast<int>(extents.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * extents[d + 1];
  return strides;
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

void transpose_2d_scalar(const double* in, std::int64_t ldi, double* out, std::int64_t ldo, std::int64_t rows,
                         std::int64_t cols, Scale s) {
  constexpr std::int64_t kB = 8;
  for (std::int64_t r = 0; r < rows; r += kB) {
    for (std::int64_t c = 0; c < cols; c += kB) {
      transpose_tile_scalar(in + r * ldi + c, ldi, out + c * ldo + r, ldo, std::min(kB, rows - r),
                            std::min(kB, cols - c), s);
    }
  }
}

#if defined(__GNUC__) && defined(__x86_64__)
#define TCERT_HAVE_AVX512_KERNEL 1
// GCC 12 warns inside its own intrinsics (_mm512_undefined_pd); nothing here is uninitialized.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

/// 8×8 tile with AVX-512: 8 row loads, 24 shuffles, 8 row stores.
__attribute__((target("avx512f"))) inline void transpose_tile_avx512(const double* in, std::int64_t ldi,
                                                                     double* out, std::int64_t ldo, Scale s) {
  __m512d r[8], t[8], u[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm512_loadu_pd(in + i * ldi);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
  }
  const __m512i even = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i odd = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm512_permutex2var_pd(t[i], even, t[i + 2]);      // rows i..i+3 of columns 0 | 4
    u[i + 1] = _mm512_permutex2var_pd(t[i], odd, t[i + 2]);   // columns 2 | 6
    u[i + 2] = _mm512_permutex2var_pd(t[i + 1], even, t[i + 3]);  // columns 1 | 5
    u[i + 3] = _mm512_permutex2var_pd(t[i + 1], odd, t[i + 3]);   // columns 3 | 7
  }
  const int order[4] = {0, 2, 1, 3};  // u index holding columns c | c+4, for c = 0..3
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm512_shuffle_f64x2(u[order[c]], u[4 + order[c]], 0x44);
    r[c + 4] = _mm512_shuffle_f64x2(u[order[c]], u[4 + order[c]], 0xEE);
  }
  const __m512d alpha = _mm512_set1_pd(s.alpha), beta = _mm512_set1_pd(s.beta);
  for (int c = 0; c < 8; ++c) {
    __m512d v = s.alpha == 1 ? r[c] : _mm512_mul_pd(alpha, r[c]);
    if (s.beta != 0) v = _mm512_fmadd_pd(beta, _mm512_loadu_pd(out + c * ldo), v);
    _mm512_storeu_pd(out + c * ldo, v);
  }
}

__attribute__((target("avx512f"))) void transpose_2d_avx512(const double* in, std::int64_t ldi, double* out,
                                                            std::int64_t ldo, std::int64_t rows,
                                                            std::int64_t cols, Scale s) {
  constexpr std::int64_t kB = 8;
  for (std::int64_t r = 0; r < rows; r += kB) {
    for (std::int64_t c = 0; c < cols; c += kB) {
      if (rows - r >= kB && cols - c >= kB) {
        transpose_tile_avx512(in + r * ldi + c, ldi, out + c * ldo + r, ldo, s);
      } else {
        transpose_tile_scalar(in + r * ldi + c, ldi, out + c * ldo + r, ldo, std::min(kB, rows - r),
                              std::min(kB, cols - c), s);
      }
    }
  }
}
#pragma GCC diagnostic pop
#endif

/// out(c, r) = alpha·in(r, c) + beta·out(c, r) for an rows×cols slice, in 8×8 tiles.
void transpose_2d(const double* in, std::int64_t ldi, double* out, std::int64_t ldo, std::int64_t rows,
                  std::int64_t cols, Scale s) {
#ifdef TCERT_HAVE_AVX512_KERNEL
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) return transpose_2d_avx512(in, ldi, out, ldo, rows, cols, s);
#endif
  transpose_2d_scalar(in, ldi, out, ldo, rows, cols, s);
}

/// The loops over output dimensions q in `qs` (output order), with their input and output strides.
std::vector<Loop> loops_over(const Shape& sh, const std::vector<int>& qs) {
  const auto in_strides = row_major_strides(sh.extents);
  std::vector<std::int64_t> out_extents;
  for (int d : sh.perm) out_extents.push_back(sh.extents[d]);
  const auto out_strides = row_major_strides(out_extents);
  std::vector<Loop> loops;
  for (int q : qs) loops.push_back({out_extents[q], in_strides[sh.perm[q]], out_strides[q]});
  return loops;
}

}  // namespace

void permute(const double* in, const std::vector<std::int64_t>& extents_in, const std::vector<int>& perm,
             double* out, double alpha, double beta) {
  check_permutation(extents_in, perm);
  const std::int64_t total = element_count(extents_in);
  if (total == 0) return;
  const Scale s{alpha, beta};
  const Shape sh = simplify(extents_in, perm);
  const int n = static_cast<int>(sh.extents.size());
  if (n <= 1) return scaled_copy(in, out, total, s);
  std::vector<int> all(n);
  for (int q = 0; q < n; ++q) all[q] = q;
  std::vector<Loop> loops = loops_over(sh, all);
  if (sh.perm[n - 1] == n - 1) {  // innermost stays innermost: copy rows
    const std::int64_t row = sh.extents[n - 1];
    loops.pop_back();
    for_each_offset(loops, [&](std::int64_t io, std::int64_t oo) { scaled_copy(in + io, out + oo, row, s); });
    return;
  }
  // Transpose the slices spanned by input dim a (innermost in) and perm[n-1] (innermost out).
  const int a = n - 1;
  int qa = 0;
  while (sh.perm[qa] != a) ++qa;
  const Loop la = loops[qa], lb = loops[n - 1];
  loops.erase(loops.begin() + (n - 1));
  loops.erase(loops.begin() + qa);
  for_each_offset(loops, [&](std::int64_t io, std::int64_t oo) {
    transpose_2d(in + io, lb.in_stride, out + oo, la.out_stride, lb.extent, la.extent, s);
  });
}

}  // namespace tcert
