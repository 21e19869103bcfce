// ir/ir.cpp — Program look-ups and the macro-index GEMM view (Gao et al. §2, Eq. 2.2).
#include "ir/ir.h"

#include <algorithm>

#include <fmt/format.h>

namespace tcec::ir {

void internal_error(const char* file, int line, const char* cond, const char* why) {
  throw InternalError(fmt::format("{}:{}: internal error: {} ({})", file, line, why, cond));
}

std::uint64_t Program::elements(int tensor) const {
  std::uint64_t n = 1;
  for (int r : tensors.at(tensor).dims) n *= ranges.at(r).extent;
  return n;
}

namespace {

/// The largest divisor of n that is at most n^(1/k) (k = 2 or 3).
std::int64_t root_divisor(std::int64_t n, int k) {
  std::int64_t best = 1;
  for (std::int64_t d = 1; d <= n; ++d) {
    std::int64_t power = 1;
    for (int i = 0; i < k; ++i) power *= d;
    if (power > n) break;
    if (n % d == 0) best = d;
  }
  return best;
}

}  // namespace

std::vector<std::int64_t> Distribution::grid_for(std::int64_t processors) const {
  if (!grid.empty()) return grid;
  std::vector<std::int64_t> out;
  std::int64_t rest = processors;
  for (std::size_t left = dims.size(); left > 1; --left) {
    const std::int64_t d = root_divisor(rest, static_cast<int>(left));
    out.push_back(d);
    rest /= d;
  }
  out.push_back(rest);
  return out;
}

namespace {

template <typename T>
int find_by_name(const std::vector<T>& items, const std::string& name) {
  auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return x.name == name; });
  return it == items.end() ? -1 : static_cast<int>(it - items.begin());
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

int position(const std::vector<int>& v, int x) {
  auto it = std::find(v.begin(), v.end(), x);
  TCEC_ASSERT(it != v.end(), "index missing from a tensor reference");
  return static_cast<int>(it - v.begin());
}

// perm[p] = dimension of `stored` holding wanted[p].
std::vector<int> permutation(const std::vector<int>& stored, const std::vector<int>& wanted) {
  std::vector<int> perm;
  perm.reserve(wanted.size());
  for (int x : wanted) perm.push_back(position(stored, x));
  return perm;
}

std::vector<int> concat(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> r = a;
  r.insert(r.end(), b.begin(), b.end());
  return r;
}

}  // namespace

int Program::find_range(const std::string& name) const { return find_by_name(ranges, name); }
int Program::find_index(const std::string& name) const { return find_by_name(indices, name); }
int Program::find_tensor(const std::string& name) const { return find_by_name(tensors, name); }

MacroIndexGemm macro_index_gemm(const Program& program, const Statement& s) {
  TCEC_ASSERT(s.operands.size() == 2, "macro-index GEMM needs a two-operand statement");
  const auto& a = s.operands[0].indices;
  const auto& b = s.operands[1].indices;
  const auto& c = s.result.indices;
  MacroIndexGemm g;
  for (int x : c) {
    TCEC_ASSERT(contains(a, x) != contains(b, x), "result index must be in exactly one operand");
    (contains(a, x) ? g.I : g.J).push_back(x);
  }
  for (int x : a) {
    if (contains(c, x)) continue;
    TCEC_ASSERT(contains(b, x), "summed index must be in both operands");
    g.K.push_back(x);
  }
  for (int x : g.I) g.extent_I *= program.extent(x);
  for (int x : g.J) g.extent_J *= program.extent(x);
  for (int x : g.K) g.extent_K *= program.extent(x);
  g.elements_A = g.extent_I * g.extent_K;
  g.elements_B = g.extent_J * g.extent_K;
  g.elements_C = g.extent_I * g.extent_J;
  g.flops = 2.0 * static_cast<double>(g.extent_I) * static_cast<double>(g.extent_J) * static_cast<double>(g.extent_K);
  g.perm_A = permutation(a, concat(g.I, g.K));
  g.perm_B = permutation(b, concat(g.J, g.K));
  g.perm_C = permutation(c, concat(g.I, g.J));
  g.symmetric =
      s.operands[0].tensor == s.operands[1].tensor && !g.I.empty() && g.I.size() == g.J.size() && g.perm_A == g.perm_B;
  return g;
}

}  // namespace tcec::ir
