// runtime/kernel.cpp — the contraction layout, TTGT contract() and gemm_tile() (permute() is in
// kernel_permute.cpp).
//
// Reader's map:
//   ContractionLayout members, layout_from_labels()   layout bookkeeping and its checks.
//   Indexing, Choice, choose()    which orders of I, J, K to use; which operands to permute.
//   contract()                    permute A, B as chosen; one dgemm; permute C back if needed.
#include "runtime/kernel.h"

#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace tcert {

namespace {

constexpr std::int64_t kMaxBlasDim = 2147483647;  // cblas takes int dimensions

std::int64_t product(const std::vector<std::int64_t>& v) {
  std::int64_t p = 1;
  for (std::int64_t e : v) p *= e;
  return p;
}

void check_perm(const std::vector<int>& perm, std::size_t rank, const char* name) {
  if (perm.size() != rank) {
    throw std::invalid_argument(std::string("contract: ") + name + " has " + std::to_string(perm.size()) +
                                " entries, the layout needs " + std::to_string(rank));
  }
  std::vector<bool> seen(rank, false);
  for (int p : perm) {
    if (p < 0 || p >= static_cast<int>(rank) || seen[p]) {
      throw std::invalid_argument(std::string("contract: ") + name + " is not a permutation");
    }
    seen[p] = true;
  }
}

/// Stored extents: dimension perm[p] has the extent of GEMM position p of [first..., second...].
std::vector<std::int64_t> stored_extents(const std::vector<int>& perm, const std::vector<std::int64_t>& first,
                                         const std::vector<std::int64_t>& second) {
  std::vector<std::int64_t> out(perm.size());
  for (std::size_t p = 0; p < perm.size(); ++p) out[perm[p]] = p < first.size() ? first[p] : second[p - first.size()];
  return out;
}

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

/// How one tensor enters dgemm: `order` lists its ids as dgemm sees it ([outer, K] or [K, outer]
/// for operands, [rows, cols] for C); `copy` when that differs from the stored order.
struct Operand {
  std::vector<int> order;
  bool outer_first = true;  // operands: [outer group, K]; C: [I, J]
  bool copy = false;
};

/// Stored as [g1,g2] or [g2,g1] needs no copy; otherwise copy into the order whose innermost
/// index is the stored innermost one when possible (a row copy instead of a transpose).
Operand place(const std::vector<int>& stored, const std::vector<int>& g1, const std::vector<int>& g2) {
  const auto a = concat(g1, g2), b = concat(g2, g1);
  if (stored == a) return {a, true, false};
  if (stored == b) return {b, false, false};
  if (!stored.empty() && !a.empty() && !b.empty() && b.back() == stored.back() && a.back() != stored.back()) {
    return {b, false, true};
  }
  return {a, true, true};
}

struct Choice {
  Operand A, B, C;
  double cost = 0;  // elements moved by permutations
};

/// Tries I in C's or A's order, J in C's or B's order, K in A's or B's order; keeps the choice
/// that permutes the fewest elements (C weighs more: dgemm writes it once more, beta reads it).
Choice choose(const Indexing& x, double beta) {
  auto size = [&](const std::vector<int>& dims) {
    std::int64_t s = 1;
    for (int id : dims) s *= x.extent[id];
    return static_cast<double>(s);
  };
  const std::vector<int> Is[2] = {in_order_of(x.dims_C, x.I), in_order_of(x.dims_A, x.I)};
  const std::vector<int> Js[2] = {in_order_of(x.dims_C, x.J), in_order_of(x.dims_B, x.J)};
  const std::vector<int> Ks[2] = {in_order_of(x.dims_A, x.K), in_order_of(x.dims_B, x.K)};
  Choice best;
  best.cost = -1;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 2; ++k) {
        Choice c{place(x.dims_A, Is[i], Ks[k]), place(x.dims_B, Js[j], Ks[k]), place(x.dims_C, Is[i], Js[j]), 0};
        c.cost = (c.A.copy ? size(x.dims_A) : 0) + (c.B.copy ? size(x.dims_B) : 0) +
                 (c.C.copy ? size(x.dims_C) * (beta == 0 ? 1.5 : 2.0) : 0);
        if (best.cost < 0 || c.cost < best.cost) best = c;
      }
    }
  }
  return best;
}

/// perm taking a tensor stored in order `from` (ids) to order `to`, with the stored extents.
void permute_ids(const Indexing& x, const double* in, const std::vector<int>& from, const std::vector<int>& to,
                 double* out, double alpha, double beta) {
  std::vector<std::int64_t> extents;
  for (int id : from) extents.push_back(x.extent[id]);
  std::vector<int> perm;
  for (int id : to) perm.push_back(static_cast<int>(std::find(from.begin(), from.end(), id) - from.begin()));
  permute(in, extents, perm, out, alpha, beta);
}

double* buffer(std::vector<double>& v, std::int64_t elements) {
  if (v.size() < static_cast<std::size_t>(elements)) v.resize(static_cast<std::size_t>(elements));
  return v.data();
}

void scale(double* C, std::int64_t count, double beta) {
  for (std::int64_t i = 0; i < count; ++i) C[i] = beta == 0 ? 0.0 : beta * C[i];
}

}  // namespace

std::int64_t element_count(const std::vector<std::int64_t>& extents) {
  for (std::int64_t e : extents) {
    if (e < 0) throw std::invalid_argument("negative extent " + std::to_string(e));
  }
  return product(extents);
}

void ContractionLayout::validate() const {
  for (const auto* g : {&extents_I, &extents_J, &extents_K}) element_count(*g);
  check_perm(perm_A, extents_I.size() + extents_K.size(), "perm_A");
  check_perm(perm_B, extents_J.size() + extents_K.size(), "perm_B");
  check_perm(perm_C, extents_I.size() + extents_J.size(), "perm_C");
}

std::vector<std::int64_t> ContractionLayout::extents_A() const {
  validate();
  return stored_extents(perm_A, extents_I, extents_K);
}
std::vector<std::int64_t> ContractionLayout::extents_B() const {
  validate();
  return stored_extents(perm_B, extents_J, extents_K);
}
std::vector<std::int64_t> ContractionLayout::extents_C() const {
  validate();
  return stored_extents(perm_C, extents_I, extents_J);
}
std::int64_t ContractionLayout::m() const { return product(extents_I); }
std::int64_t ContractionLayout::n() const { return product(extents_J); }
std::int64_t ContractionLayout::k() const { return product(extents_K); }
double ContractionLayout::flops() const {
  return 2.0 * static_cast<double>(m()) * static_cast<double>(n()) * static_cast<double>(k());
}

ContractionLayout layout_from_labels(const std::string& a, const std::string& b, const std::string& c,
                                     const std::map<char, std::int64_t>& extents) {
  for (const std::string* s : {&a, &b, &c}) {
    for (char ch : *s) {
      if (std::count(s->begin(), s->end(), ch) != 1) throw std::invalid_argument(std::string("label repeats: ") + ch);
      if (!extents.count(ch)) throw std::invalid_argument(std::string("label has no extent: ") + ch);
    }
  }
  auto has = [](const std::string& s, char ch) { return s.find(ch) != std::string::npos; };
  std::string I, J, K;
  for (char ch : c) {
    if (has(a, ch) == has(b, ch)) throw std::invalid_argument(std::string("result label not in exactly one operand: ") + ch);
    (has(a, ch) ? I : J) += ch;
  }
  for (char ch : a + b) {
    if (!has(c, ch) && has(a, ch) != has(b, ch)) throw std::invalid_argument(std::string("label summed in one operand: ") + ch);
  }
  for (char ch : a) {
    if (!has(c, ch)) K += ch;
  }
  ContractionLayout l;
  for (char ch : I) l.extents_I.push_back(extents.at(ch));
  for (char ch : J) l.extents_J.push_back(extents.at(ch));
  for (char ch : K) l.extents_K.push_back(extents.at(ch));
  for (char ch : I + K) l.perm_A.push_back(static_cast<int>(a.find(ch)));
  for (char ch : J + K) l.perm_B.push_back(static_cast<int>(b.find(ch)));
  for (char ch : I + J) l.perm_C.push_back(static_cast<int>(c.find(ch)));
  return l;
}

void contract(const ContractionLayout& layout, double alpha, const double* A, const double* B, double beta,
              double* C, Workspace& ws) {
  layout.validate();
  const std::int64_t m = layout.m(), n = layout.n(), k = layout.k();
  if (m == 0 || n == 0) return;
  if (k == 0) return scale(C, m * n, beta);
  if (std::max({m, n, k}) > kMaxBlasDim) throw std::invalid_argument("contract: |I|, |J| or |K| exceeds 2^31-1");
  const Indexing x = index_layout(layout);
  const Choice c = choose(x, beta);
  if (std::getenv("TCERT_DEBUG")) {  // DEBUG-REMOVE
    auto pr = [&](const char* nm, const std::vector<int>& st, const Operand& o) {
      std::fprintf(stderr, "  %s stored=", nm);
      for (int id : st) std::fprintf(stderr, "%d(%lld) ", id, (long long)x.extent[id]);
      std::fprintf(stderr, " -> ");
      for (int id : o.order) std::fprintf(stderr, "%d ", id);
      std::fprintf(stderr, "%s %s\n", o.outer_first ? "outer-first" : "K-first", o.copy ? "COPY" : "");
    };
    pr("A", x.dims_A, c.A); pr("B", x.dims_B, c.B); pr("C", x.dims_C, c.C);
  }
  if (c.A.copy) {
    permute_ids(x, A, x.dims_A, c.A.order, buffer(ws.a, m * k), 1, 0);
    A = ws.a.data();
  }
  if (c.B.copy) {
    permute_ids(x, B, x.dims_B, c.B.order, buffer(ws.b, n * k), 1, 0);
    B = ws.b.data();
  }
  double* out = c.C.copy ? buffer(ws.c, m * n) : C;
  // Row-major dgemm on out(M×N) = op(X)·op(Y): X shares out's rows, Y its columns.
  const bool ij = c.C.outer_first;
  const Operand& X = ij ? c.A : c.B;
  const Operand& Y = ij ? c.B : c.A;
  const std::int64_t M = ij ? m : n, N = ij ? n : m;
  cblas_dgemm(CblasRowMajor, X.outer_first ? CblasNoTrans : CblasTrans, Y.outer_first ? CblasTrans : CblasNoTrans,
              static_cast<int>(M), static_cast<int>(N), static_cast<int>(k), alpha, ij ? A : B,
              static_cast<int>(X.outer_first ? k : M), ij ? B : A, static_cast<int>(Y.outer_first ? k : N),
              c.C.copy ? 0.0 : beta, out, static_cast<int>(N));
  if (c.C.copy) permute_ids(x, out, c.C.order, x.dims_C, C, 1, beta);
}

void gemm_tile(std::size_t m, std::size_t n, std::size_t k, double alpha, const double* A, std::size_t lda,
               const double* B, std::size_t ldb, double beta, double* C, std::size_t ldc) {
  if (lda < k || ldb < k || ldc < n) {
    throw std::invalid_argument("gemm_tile: leading dimension too small (lda " + std::to_string(lda) + ", ldb " +
                                std::to_string(ldb) + " need >= k " + std::to_string(k) + "; ldc " +
                                std::to_string(ldc) + " needs >= n " + std::to_string(n) + ")");
  }
  if (m == 0 || n == 0) return;
  const auto ld = [](std::size_t v) { return static_cast<int>(std::max<std::size_t>(v, 1)); };
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
              alpha, A, ld(lda), B, ld(ldb), beta, C, ld(ldc));
}

}  // namespace tcert
