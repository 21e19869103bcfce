// runtime/kernel/kernel_contract.cpp — contract(): runs the plan of kernel_plan.cpp, TTGT with the
// permutations blocked into cache-sized chunks.
//
// Reader's map:
//   move_ids()                    permute_strided() on tensors described by index ids.
//   for_each_tile()               the odometer over the chunk boxes of one index group.
//   run_plan()                    Y permuted once; per R box X permuted; per block dgemm, C back.
//   contract()                    |I| or |J| of 1: gemv() (kernel_gemv.h); a small side over K
//                                 innermost: dot() (kernel_dot.h); else GETT or run_plan().
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "runtime/kernel/kernel.h"
#include "runtime/kernel/kernel_dot.h"
#include "runtime/kernel/kernel_gemv.h"
#include "runtime/kernel/kernel_gett.h"
#include "runtime/kernel/kernel_plan.h"

namespace tcert {

namespace {

using detail::Indexing;
using detail::Plan;
using detail::strides_by_id;
using detail::workspace_buffer;
using Extents = std::vector<std::int64_t>;

constexpr std::int64_t kMaxBlasDim = 2147483647;  // cblas takes int dimensions

/// out = 1·in' + beta·out between two tensors given as id orders with strides by id; `extent`
/// (by id) is the box to move.
void move_ids(const double* in, const std::vector<int>& from, const Extents& from_stride, double* out,
              const std::vector<int>& to, const Extents& to_stride, const Extents& extent, double beta,
              StoreHint hint) {
  Extents extents, strides_in, strides_out;
  std::vector<int> perm;
  for (int id : from) extents.push_back(extent[id]), strides_in.push_back(from_stride[id]);
  for (int id : to) {
    perm.push_back(static_cast<int>(std::find(from.begin(), from.end(), id) - from.begin()));
    strides_out.push_back(to_stride[id]);
  }
  permute_strided(in, extents, strides_in, perm, out, strides_out, 1.0, beta, hint);
}

/// Calls f(start, size) for every box of the ids `ids` cut in tiles of tile[id]: start[id] is the
/// first index of the box, size[id] its extent (the last tile along an index may be shorter).
template <class F>
void for_each_tile(const Indexing& x, const std::vector<int>& ids, const Extents& tile, F&& f) {
  Extents start(x.extent.size(), 0), size = x.extent;
  for (int id : ids) size[id] = tile[id];
  for (;;) {
    f(start, size);
    int i = static_cast<int>(ids.size()) - 1;
    for (; i >= 0; --i) {
      const int id = ids[i];
      start[id] += tile[id];
      if (start[id] < x.extent[id]) {
        size[id] = std::min(tile[id], x.extent[id] - start[id]);
        break;
      }
      start[id] = 0, size[id] = tile[id];
    }
    if (i < 0) return;
  }
}

/// Σ start[id]·stride[id] over `ids`: the offset of a box's first element.
std::int64_t offset(const std::vector<int>& ids, const Extents& start, const Extents& stride) {
  std::int64_t o = 0;
  for (int id : ids) o += start[id] * stride[id];
  return o;
}

void gemm(bool x_outer_first, bool y_outer_first, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
          const double* X, std::int64_t ldx, const double* Y, std::int64_t ldy, double beta, double* C,
          std::int64_t ldc) {
  cblas_dgemm(CblasRowMajor, x_outer_first ? CblasNoTrans : CblasTrans, y_outer_first ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, X, static_cast<int>(ldx), Y,
              static_cast<int>(ldy), beta, C, static_cast<int>(ldc));
}

/// Runs `p`: Y permuted once into ws.b; per box of R, X permuted into ws.a; per block of R×S,
/// dgemm into C directly, or into ws.c and then permuted into C with beta.
void run_plan(const Indexing& x, const Plan& p, double alpha, const double* X, const double* Y, double beta, double* C,
              Workspace& ws) {
  const std::int64_t M = detail::product(x.extent, p.R), N = detail::product(x.extent, p.S);
  const std::int64_t K = detail::product(x.extent, x.K);
  if (p.Y.copy) {
    move_ids(Y, p.Y.stored, strides_by_id(x.extent, p.Y.stored), workspace_buffer(ws.b, N * K), p.Y.order,
             strides_by_id(x.extent, p.Y.order), x.extent, 0.0, StoreHint::Auto);
    Y = ws.b.data();
  }
  const Extents x_stride = strides_by_id(x.extent, p.X.stored), c_stride = strides_by_id(x.extent, p.C.stored);
  const Extents row_stride = strides_by_id(x.extent, p.R), col_stride = strides_by_id(x.extent, p.S);
  const StoreHint c_hint =
      M * N * std::int64_t{sizeof(double)} > kStreamingBytes ? StoreHint::Streaming : StoreHint::Cached;
  double* xa = p.X.copy ? workspace_buffer(ws.a, detail::product(p.tile, p.R) * K) : nullptr;
  double* cc = p.C.copy ? workspace_buffer(ws.c, detail::product(p.tile, p.R) * detail::product(p.tile, p.S)) : nullptr;
  for_each_tile(x, p.R, p.tile, [&](const Extents& rstart, const Extents& rsize) {
    const std::int64_t rows = detail::product(rsize, p.R), row0 = offset(p.R, rstart, row_stride);
    const double* Xc = p.X.outer_first ? X + row0 * K : X + row0;
    std::int64_t ldx = p.X.outer_first ? K : M;
    if (p.X.copy) {
      move_ids(X + offset(p.R, rstart, x_stride), p.X.stored, x_stride, xa, p.X.order, strides_by_id(rsize, p.X.order),
               rsize, 0.0, StoreHint::Cached);
      Xc = xa, ldx = p.X.outer_first ? K : rows;
    }
    for_each_tile(x, p.S, p.tile, [&](const Extents& sstart, const Extents& ssize) {
      const std::int64_t cols = detail::product(ssize, p.S), col0 = offset(p.S, sstart, col_stride);
      const double* Yc = p.Y.outer_first ? Y + col0 * K : Y + col0;
      const std::int64_t ldy = p.Y.outer_first ? K : N;
      if (!p.C.copy) {
        return gemm(p.X.outer_first, p.Y.outer_first, rows, cols, K, alpha, Xc, ldx, Yc, ldy, beta, C + row0 * N + col0,
                    N);
      }
      gemm(p.X.outer_first, p.Y.outer_first, rows, cols, K, alpha, Xc, ldx, Yc, ldy, 0.0, cc, cols);
      Extents box = rsize;
      for (int id : p.S) box[id] = ssize[id];
      move_ids(cc, p.C.order, strides_by_id(box, p.C.order),
               C + offset(p.R, rstart, c_stride) + offset(p.S, sstart, c_stride), p.C.stored, c_stride, box, beta,
               c_hint);
    });
  });
}

void scale(double* C, std::int64_t count, double beta) {
  for (std::int64_t i = 0; i < count; ++i) C[i] = beta == 0 ? 0.0 : beta * C[i];
}

}  // namespace

void contract(const ContractionLayout& layout, double alpha, const double* A, const double* B, double beta, double* C,
              Workspace& ws) {
  layout.validate();
  const std::int64_t m = layout.m(), n = layout.n(), k = layout.k();
  if (m == 0 || n == 0) return;
  if (k == 0) return scale(C, m * n, beta);
  if (std::max({m, n, k}) > kMaxBlasDim) throw std::invalid_argument("contract: |I|, |J| or |K| exceeds 2^31-1");
  const Indexing x = detail::index_layout(layout);
  if (m == 1 || n == 1) return detail::gemv(x, alpha, A, B, beta, C);  // whatever ws.scheme
  if (detail::dot(x, alpha, A, B, beta, C, ws)) return;                // where it applies (kernel_dot.h)
  const Plan p = detail::choose_plan(x, ws, beta == 0);
  if (p.gett) {
    detail::fill_gett_tables(ws.gett_tables, x.extent, p.R, p.S, p.K, p.X.stored, p.Y.stored, p.C.stored, p.c_groups);
    return detail::gett(ws.gett_tables, alpha, p.x_is_A ? A : B, p.x_is_A ? B : A, beta, C, ws);
  }
  run_plan(x, p, alpha, p.x_is_A ? A : B, p.x_is_A ? B : A, beta, C, ws);
}

}  // namespace tcert
