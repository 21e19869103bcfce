// runtime/kernel/kernel_gemv.cpp — contract() where |I| = 1 or |J| = 1 (kernel_gemv.h).
//
// Reader's map:
//   Run            the innermost runs of the matrix: length, strides in the vector and in C.
//   innermost()    merges the matrix's inner dimensions that stay consecutive in both.
//   gemv()         scales C by beta, then one ddot or daxpy per run, the outer ids by odometer.
#include "runtime/kernel/kernel_gemv.h"

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tcert::detail {

namespace {

/// The runs of the matrix: `length` consecutive elements whose vector elements are `v_stride`
/// apart and whose C elements are `c_stride` apart (0: summed into one element of C; then
/// v_stride ≠ 0 unless length is 1). `outer`: the matrix's other dimensions, outermost first.
struct Run {
  std::int64_t length = 1, v_stride = 0, c_stride = 0;
  std::vector<int> outer;
};

/// Merges the matrix's innermost dimensions (stored in `dims`, outermost first) into one run
/// while each next one out is as far apart in the vector and in C as the run is long.
Run innermost(const Indexing& x, const std::vector<int>& dims, const std::vector<std::int64_t>& v_stride,
              const std::vector<std::int64_t>& c_stride) {
  Run r;
  std::vector<int> ids;
  for (int id : dims)
    if (x.extent[id] > 1) ids.push_back(id);  // a dimension of extent 1 moves nothing
  if (ids.empty()) return r;
  int d = static_cast<int>(ids.size()) - 1;
  r.length = x.extent[ids[d]], r.v_stride = v_stride[ids[d]], r.c_stride = c_stride[ids[d]];
  for (--d; d >= 0; --d) {
    const int id = ids[d];
    if (v_stride[id] != r.v_stride * r.length || c_stride[id] != r.c_stride * r.length) break;
    r.length *= x.extent[id];
  }
  r.outer.assign(ids.begin(), ids.begin() + (d + 1));
  return r;
}

/// Σ m[l]·v[l·v_stride] over l < n: BLAS from 8 elements on.
double dot(int n, const double* m, const double* v, std::int64_t v_stride) {
  if (n >= 8) return cblas_ddot(n, m, 1, v, static_cast<int>(v_stride));
  double s = 0;
  for (int l = 0; l < n; ++l) s += m[l] * v[l * v_stride];
  return s;
}

}  // namespace

void gemv(const Indexing& x, double alpha, const double* A, const double* B, double beta, double* C) {
  const bool matrix_is_B = product(x.extent, x.I) == 1;
  const double* mat = matrix_is_B ? B : A;
  const double* vec = matrix_is_B ? A : B;
  const std::vector<int>& dims_mat = matrix_is_B ? x.dims_B : x.dims_A;
  const std::vector<std::int64_t> v_stride = strides_by_id(x.extent, matrix_is_B ? x.dims_A : x.dims_B);
  const std::vector<std::int64_t> c_stride = strides_by_id(x.extent, x.dims_C);
  const std::int64_t c_count = product(x.extent, x.I) * product(x.extent, x.J);
  for (std::int64_t i = 0; i < c_count; ++i) C[i] = beta == 0 ? 0.0 : beta * C[i];
  const Run r = innermost(x, dims_mat, v_stride, c_stride);
  const auto n = static_cast<int>(r.length);  // contract() keeps every group under 2^31
  std::vector<std::int64_t> at(r.outer.size(), 0);
  std::int64_t v = 0, c = 0;
  for (const double* m = mat;; m += r.length) {
    if (r.c_stride == 0) {  // a run of K: one element of C
      C[c] += alpha * dot(n, m, vec + v, r.v_stride);
    } else if (n >= 8) {  // a run of C's indices, one element of the vector
      cblas_daxpy(n, alpha * vec[v], m, 1, C + c, static_cast<int>(r.c_stride));
    } else {
      for (int l = 0; l < n; ++l) C[c + l * r.c_stride] += alpha * vec[v] * m[l];
    }
    int d = static_cast<int>(r.outer.size()) - 1;  // the odometer over the outer dimensions
    for (; d >= 0; --d) {
      const int id = r.outer[d];
      v += v_stride[id], c += c_stride[id];
      if (++at[d] < x.extent[id]) break;
      v -= v_stride[id] * x.extent[id], c -= c_stride[id] * x.extent[id], at[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace tcert::detail
