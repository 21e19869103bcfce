// runtime/kernel_contract.cpp — contract(): TTGT with the permutations blocked into cache-sized chunks.
//
// Reader's map:
//   Indexing          every GEMM index gets an id; each tensor's stored order as a list of ids.
//   Operand, place()  how a tensor enters dgemm: as stored (with a transpose flag) or permuted.
//   Plan, choose()    orders of the row, column and K groups, copies, and the chunking; the
//                     cheapest of the 8 candidate orders.
//   run_plan()        permute Y once; per row chunk permute X; per block dgemm, permute C back.
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "runtime/kernel.h"

namespace tcert {

namespace {

constexpr std::int64_t kMaxBlasDim = 2147483647;  // cblas takes int dimensions

/// Every GEMM index gets an id: I = 0..nI-1, J = nI..nI+nJ-1, K after. dims_X lists the ids of
/// X's stored dimensions in storage order.
struct Indexing {
  std::vector<std::int64_t> extent;  // by id
  std::vector<int> dims_A, dims_B, dims_C, I, J, K;
};

Indexing index_layout(const ContractionLayout& l) {
  const int nI = static_cast<int>(l.extents_I.size()), nJ = static_cast<int>(l.extents_J.size());
  const int nK = static_cast<int>(l.extents_K.size());
  Indexing x;
  x.extent = l.extents_I;
  x.extent.insert(x.extent.end(), l.extents_J.begin(), l.extents_J.end());
  x.extent.insert(x.extent.end(), l.extents_K.begin(), l.extents_K.end());
  x.dims_A.resize(nI + nK);
  x.dims_B.resize(nJ + nK);
  x.dims_C.resize(nI + nJ);
  for (int p = 0; p < nI + nK; ++p) x.dims_A[l.perm_A[p]] = p < nI ? p : nI + nJ + (p - nI);
  for (int p = 0; p < nJ + nK; ++p) x.dims_B[l.perm_B[p]] = p < nJ ? nI + p : nI + nJ + (p - nJ);
  for (int p = 0; p < nI + nJ; ++p) x.dims_C[l.perm_C[p]] = p;
  for (int id = 0; id < nI + nJ + nK; ++id) (id < nI ? x.I : id < nI + nJ ? x.J : x.K).push_back(id);
  return x;
}

/// The ids of `dims` that belong to `group`, in the order of `dims`.
std::vector<int> in_order_of(const std::vector<int>& dims, const std::vector<int>& group) {
  std::vector<int> out;
  for (int id : dims) {
    if (std::find(group.begin(), group.end(), id) != group.end()) out.push_back(id);
  }
  return out;
}

std::vector<int> concat(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

/// How a tensor enters dgemm. `order`: its ids as dgemm reads them, [outer group, K] when
/// outer_first (for C: [rows, columns]) else [K, outer group]; `copy` when that is not `stored`.
struct Operand {
  std::vector<int> stored, order;
  bool outer_first = true;
  bool copy = false;
};

/// Stored as [g1,g2] or [g2,g1]: no copy. Otherwise copy into the order whose innermost index
/// is the stored innermost one when possible (row copies instead of a transpose).
Operand place(const std::vector<int>& stored, const std::vector<int>& g1, const std::vector<int>& g2) {
  const auto a = concat(g1, g2), b = concat(g2, g1);
  if (stored == a) return {stored, a, true, false};
  if (stored == b) return {stored, b, false, false};
  if (!stored.empty() && !b.empty() && b.back() == stored.back() && a.back() != stored.back()) {
    return {stored, b, false, true};
  }
  return {stored, a, true, true};
}

/// C(R,S) = X(R,K)·Y(S,K)ᵀ, with (X, R) = (A, I) or, when C is [J,I], (B, J). Chunks fix the
/// leading t_R indices of R and t_S of S; X is permuted per row chunk, C per block.
struct Plan {
  Operand X, Y, C;
  bool x_is_A = true;
  std::vector<int> R, S;
  int t_R = 0, t_S = 0;
  double cost = 0;
};

std::int64_t product(const Indexing& x, const std::vector<int>& ids, std::size_t from = 0) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < ids.size(); ++i) p *= x.extent[ids[i]];
  return p;
}

/// True when fixing ids[0..t-1] leaves every stride-1 dimension (`forbidden`) free and, unless
/// t = 0, at least ws.min_chunk_side elements along the rest.
bool chunkable(const Indexing& x, const std::vector<int>& ids, int t, const std::vector<int>& forbidden,
               const Workspace& ws) {
  for (int i = 0; i < t; ++i) {
    if (std::find(forbidden.begin(), forbidden.end(), ids[i]) != forbidden.end()) return false;
  }
  return t == 0 || product(x, ids, t) >= ws.min_chunk_side;
}

/// Chooses the chunk depths of `p` (the largest blocks whose X chunk and C block fit
/// ws.chunk_bytes, else the smallest overflow) and prices the plan: elements moved by
/// permutations, ×3 for a temporary too large for the cache (written, read back, re-read).
void plan_chunks(const Indexing& x, Plan& p, std::int64_t k, const Workspace& ws) {
  std::vector<int> forbidden;
  if (p.X.copy && !p.X.stored.empty()) forbidden.push_back(p.X.stored.back());
  if (p.C.copy && !p.C.stored.empty()) forbidden.push_back(p.C.stored.back());
  const double budget = static_cast<double>(ws.chunk_bytes) / sizeof(double);  // elements
  auto overflow = [&](std::int64_t rows, std::int64_t cols) {
    return std::max(p.X.copy ? rows * k / budget : 0.0, p.C.copy ? rows * cols / budget : 0.0);
  };
  double best_overflow = 0, best_area = 0;
  for (int tr = 0; tr <= (p.X.copy || p.C.copy ? static_cast<int>(p.R.size()) : 0); ++tr) {
    if (!chunkable(x, p.R, tr, forbidden, ws)) continue;
    for (int ts = 0; ts <= (p.C.copy ? static_cast<int>(p.S.size()) : 0); ++ts) {
      if (!chunkable(x, p.S, ts, forbidden, ws)) continue;
      const std::int64_t rows = product(x, p.R, tr), cols = product(x, p.S, ts);
      const double over = std::max(1.0, overflow(rows, cols)), area = static_cast<double>(rows) * cols;
      if ((tr || ts) && (over > best_overflow || (over == best_overflow && area <= best_area))) continue;
      p.t_R = tr, p.t_S = ts, best_overflow = over, best_area = area;
    }
  }
  auto moved = [&](const Operand& o, bool fits) {
    return o.copy ? static_cast<double>(product(x, o.stored)) * (fits ? 1 : 3) : 0.0;
  };
  const std::int64_t rows = product(x, p.R, p.t_R), cols = product(x, p.S, p.t_S);
  p.cost = moved(p.X, rows * k <= 2 * budget) + moved(p.Y, product(x, p.Y.stored) <= 2 * budget) +
           1.5 * moved(p.C, rows * cols <= 2 * budget);
}

/// Tries I in C's or A's order, J in C's or B's order, K in A's or B's order; keeps the cheapest.
Plan choose(const Indexing& x, const Workspace& ws) {
  const std::vector<int> Is[2] = {in_order_of(x.dims_C, x.I), in_order_of(x.dims_A, x.I)};
  const std::vector<int> Js[2] = {in_order_of(x.dims_C, x.J), in_order_of(x.dims_B, x.J)};
  const std::vector<int> Ks[2] = {in_order_of(x.dims_A, x.K), in_order_of(x.dims_B, x.K)};
  const std::int64_t k = product(x, x.K);
  Plan best;
  best.cost = -1;
  for (int c = 0; c < 8; ++c) {
    const auto &I = Is[c & 1], &J = Js[(c >> 1) & 1], &K = Ks[c >> 2];
    Plan p;
    p.C = place(x.dims_C, I, J);
    const bool ij = p.C.outer_first;
    p.X = place(ij ? x.dims_A : x.dims_B, ij ? I : J, K);
    p.Y = place(ij ? x.dims_B : x.dims_A, ij ? J : I, K);
    p.x_is_A = ij;
    p.R = ij ? I : J;
    p.S = ij ? J : I;
    plan_chunks(x, p, k, ws);
    if (best.cost < 0 || p.cost < best.cost) best = p;
  }
  return best;
}

double* buffer(Workspace::Buffer& v, std::int64_t elements) {
  if (v.size() < static_cast<std::size_t>(elements)) v.resize(static_cast<std::size_t>(elements));
  return v.data();
}

/// Element stride of each id of a row-major tensor stored in order `dims` (indexed by id).
std::vector<std::int64_t> strides_by_id(const Indexing& x, const std::vector<int>& dims) {
  std::vector<std::int64_t> s(x.extent.size(), 0);
  std::int64_t stride = 1;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    s[dims[d]] = stride;
    stride *= x.extent[dims[d]];
  }
  return s;
}

/// Copies the sub-box of a tensor (ids `from`, strides by id `from_stride`, fixed ids dropped)
/// into a tensor in order `to` (strides `to_stride` by id): out = alpha·in + beta·out.
void move_ids(const Indexing& x, const double* in, const std::vector<int>& from,
              const std::vector<std::int64_t>& from_stride, const std::vector<int>& to,
              const std::vector<std::int64_t>& to_stride, double* out, double beta, StoreHint hint) {
  std::vector<std::int64_t> extents, strides_in, strides_out;
  std::vector<int> perm;
  for (int id : from) extents.push_back(x.extent[id]), strides_in.push_back(from_stride[id]);
  for (int id : to) {
    perm.push_back(static_cast<int>(std::find(from.begin(), from.end(), id) - from.begin()));
    strides_out.push_back(to_stride[id]);
  }
  permute_strided(in, extents, strides_in, perm, out, strides_out, 1.0, beta, hint);
}

/// Ids of `ids` not among the first t of `fixed`.
std::vector<int> without(const std::vector<int>& ids, const std::vector<int>& fixed, int t) {
  std::vector<int> out;
  for (int id : ids) {
    if (std::find(fixed.begin(), fixed.begin() + t, id) == fixed.begin() + t) out.push_back(id);
  }
  return out;
}

void gemm(bool x_outer_first, bool y_outer_first, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
          const double* X, std::int64_t ldx, const double* Y, std::int64_t ldy, double beta, double* C,
          std::int64_t ldc) {
  cblas_dgemm(CblasRowMajor, x_outer_first ? CblasNoTrans : CblasTrans, y_outer_first ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, X, static_cast<int>(ldx), Y,
              static_cast<int>(ldy), beta, C, static_cast<int>(ldc));
}

/// Calls f(chunk number, offset) for each value of the first t ids, offset = Σ value·stride.
template <class F>
void for_each_chunk(const Indexing& x, const std::vector<int>& ids, int t, const std::vector<std::int64_t>& a_stride,
                    const std::vector<std::int64_t>& b_stride, F&& f) {
  std::vector<std::int64_t> v(t, 0);
  for (std::int64_t chunk = 0;; ++chunk) {
    std::int64_t oa = 0, ob = 0;
    for (int i = 0; i < t; ++i) oa += v[i] * a_stride[ids[i]], ob += v[i] * b_stride[ids[i]];
    f(chunk, oa, ob);
    int i = t - 1;
    while (i >= 0 && ++v[i] == x.extent[ids[i]]) v[i--] = 0;
    if (i < 0) return;
  }
}

}  // namespace

namespace {

/// Runs `p`: Y permuted once into ws.b; per row chunk, X permuted into ws.a; per block, dgemm
/// into C directly or into ws.c and then permuted into C (with beta).
void run_plan(const Indexing& x, const Plan& p, std::int64_t K, double alpha, const double* Xd, const double* Yd,
              double beta, double* C, Workspace& ws) {
  const std::int64_t M = product(x, p.R), N = product(x, p.S);
  const std::int64_t rows = product(x, p.R, p.t_R), cols = product(x, p.S, p.t_S);
  if (p.Y.copy) {
    move_ids(x, Yd, p.Y.stored, strides_by_id(x, p.Y.stored), p.Y.order, strides_by_id(x, p.Y.order),
             buffer(ws.b, N * K), 0.0, StoreHint::Auto);
    Yd = ws.b.data();
  }
  const auto x_stride = strides_by_id(x, p.X.stored), c_stride = strides_by_id(x, p.C.stored);
  const auto x_src = without(p.X.stored, p.R, p.t_R), x_dst = without(p.X.order, p.R, p.t_R);
  const auto x_dst_stride = strides_by_id(x, x_dst);
  const auto c_src = without(without(p.C.order, p.R, p.t_R), p.S, p.t_S);
  const auto c_dst = without(without(p.C.stored, p.R, p.t_R), p.S, p.t_S);
  const auto c_src_stride = strides_by_id(x, c_src);
  const StoreHint c_hint = M * N * std::int64_t{sizeof(double)} > kStreamingBytes ? StoreHint::Streaming
                                                                                  : StoreHint::Cached;
  double* xa = p.X.copy ? buffer(ws.a, rows * K) : nullptr;
  double* cc = p.C.copy ? buffer(ws.c, rows * cols) : nullptr;
  for_each_chunk(x, p.R, p.t_R, x_stride, c_stride, [&](std::int64_t r, std::int64_t x_off, std::int64_t c_off) {
    const double* Xc = p.X.outer_first ? Xd + r * rows * K : Xd + r * rows;
    std::int64_t ldx = p.X.outer_first ? K : M;
    if (p.X.copy) {
      move_ids(x, Xd + x_off, x_src, x_stride, x_dst, x_dst_stride, xa, 0.0, StoreHint::Cached);
      Xc = xa, ldx = p.X.outer_first ? K : rows;
    }
    for_each_chunk(x, p.S, p.t_S, c_stride, c_stride, [&](std::int64_t s, std::int64_t c_off_s, std::int64_t) {
      const double* Yc = p.Y.outer_first ? Yd + s * cols * K : Yd + s * cols;
      const std::int64_t ldy = p.Y.outer_first ? K : N;
      if (!p.C.copy) {
        return gemm(p.X.outer_first, p.Y.outer_first, rows, cols, K, alpha, Xc, ldx, Yc, ldy, beta,
                    C + r * rows * N + s * cols, N);
      }
      gemm(p.X.outer_first, p.Y.outer_first, rows, cols, K, alpha, Xc, ldx, Yc, ldy, 0.0, cc, cols);
      move_ids(x, cc, c_src, c_src_stride, c_dst, c_stride, C + c_off + c_off_s, beta, c_hint);
    });
  });
}

void scale(double* C, std::int64_t count, double beta) {
  for (std::int64_t i = 0; i < count; ++i) C[i] = beta == 0 ? 0.0 : beta * C[i];
}

}  // namespace

void contract(const ContractionLayout& layout, double alpha, const double* A, const double* B, double beta,
              double* C, Workspace& ws) {
  layout.validate();
  const std::int64_t m = layout.m(), n = layout.n(), k = layout.k();
  if (m == 0 || n == 0) return;
  if (k == 0) return scale(C, m * n, beta);
  if (std::max({m, n, k}) > kMaxBlasDim) throw std::invalid_argument("contract: |I|, |J| or |K| exceeds 2^31-1");
  const Indexing x = index_layout(layout);
  const Plan p = choose(x, ws);
  if (std::getenv("TCERT_DEBUG")) {  // DEBUG-REMOVE
    auto pr = [&](const char* nm, const Operand& o) {
      std::fprintf(stderr, "  %s stored=", nm);
      for (int id : o.stored) std::fprintf(stderr, "%d(%lld) ", id, (long long)x.extent[id]);
      std::fprintf(stderr, " -> ");
      for (int id : o.order) std::fprintf(stderr, "%d ", id);
      std::fprintf(stderr, "%s %s\n", o.outer_first ? "outer-first" : "K-first", o.copy ? "COPY" : "");
    };
    std::fprintf(stderr, "plan x_is_A=%d t_R=%d t_S=%d rows=%lld cols=%lld cost=%g\n", p.x_is_A, p.t_R, p.t_S,
                 (long long)product(x, p.R, p.t_R), (long long)product(x, p.S, p.t_S), p.cost);
    pr("X", p.X); pr("Y", p.Y); pr("C", p.C);
  }
  run_plan(x, p, k, alpha, p.x_is_A ? A : B, p.x_is_A ? B : A, beta, C, ws);
}

}  // namespace tcert
