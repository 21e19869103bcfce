// frontend/split_terms.cpp — splitting a product of three or more operands into binary
// contractions (rules, tie-breaks, dims order and names in split_terms.h).
#include "frontend/split_terms.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <string>

#include <fmt/format.h>

#include "runtime/spec/units.h"

namespace tcec::frontend {

namespace {

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// What the search needs of a statement: its operands' and result's indices and the extents.
class Term {
 public:
  Term(const ir::Program& p, const ir::Statement& s) : p_(p), s_(s) {
    for (const auto& op : s.operands) operands_.push_back(op.indices);
  }

  std::size_t size() const { return operands_.size(); }
  std::size_t index_count() const { return p_.indices.size(); }
  const std::vector<int>& operand(std::size_t k) const { return operands_[k]; }
  const std::vector<int>& result() const { return s_.result.indices; }

  /// 2 × the product of the extents of the union of `a` and `b`.
  double flops(const std::vector<int>& a, const std::vector<int>& b) const {
    double f = 2;
    for (int x : a) f *= static_cast<double>(p_.extent(x));
    for (int x : b) {
      if (!contains(a, x)) f *= static_cast<double>(p_.extent(x));
    }
    return f;
  }

  /// Whether a tensor over `indices` has a size in bytes (kElementBytes per element) that fits in 64 bits,
  /// the rule for declared tensors (sema.cpp).
  bool fits(const std::vector<int>& indices) const {
    unsigned __int128 bytes = tcert::kElementBytes;
    for (int x : indices) {
      bytes *= p_.extent(x);
      if (bytes >> 64) return false;
    }
    return true;
  }

  /// The node joining `left` and `right`, keeping the indices in `needed` (the result's and
  /// those of every other remaining node): left's kept indices in left's order, then right's.
  /// Sets `batch` when an index in both sides is kept.
  static std::vector<int> join(const std::vector<int>& left, const std::vector<int>& right,
                               const std::vector<int>& needed, bool& batch) {
    std::vector<int> out;
    batch = false;
    for (int x : left) {
      if (!contains(needed, x)) continue;
      out.push_back(x);
      batch = batch || contains(right, x);
    }
    for (int x : right) {
      if (contains(needed, x) && !contains(left, x)) out.push_back(x);
    }
    return out;
  }

 private:
  const ir::Program& p_;
  const ir::Statement& s_;
  std::vector<std::vector<int>> operands_;
};

/// Indices outside the operand set `mask` still need: the result's and those of the operands
/// not in `mask`.
std::vector<int> needed_outside(const Term& t, unsigned mask) {
  std::vector<int> out = t.result();
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (mask >> k & 1u) continue;
    for (int x : t.operand(k)) {
      if (!contains(out, x)) out.push_back(x);
    }
  }
  return out;
}

// Exhaustive search: dynamic programming over operand subsets (split_terms.h).
std::optional<SplitPlan> plan_exhaustive(const Term& t) {
  const std::size_t n = t.size();
  const unsigned full = (1u << n) - 1;
  struct Best {
    double cost = kInfinity;
    unsigned left = 0;         // the left part's mask; 0 for a single operand
    std::vector<int> indices;  // the node's indices as a set (order fixed when emitting)
  };
  std::vector<Best> best(full + 1);
  std::vector<std::vector<int>> needed(full + 1);
  for (unsigned mask = 1; mask <= full; ++mask) needed[mask] = needed_outside(t, mask);
  for (std::size_t k = 0; k < n; ++k) best[1u << k] = {0, 0, t.operand(k)};
  for (unsigned mask = 1; mask <= full; ++mask) {
    if ((mask & (mask - 1)) == 0) continue;  // a single operand
    const unsigned first = mask & (~mask + 1);
    Best& b = best[mask];
    for (unsigned left = (mask - 1) & mask; left != 0; left = (left - 1) & mask) {
      if ((left & first) == 0) continue;
      const unsigned right = mask ^ left;
      const Best& l = best[left];
      const Best& r = best[right];
      if (l.cost == kInfinity || r.cost == kInfinity) continue;
      bool batch = false;
      std::vector<int> joined = Term::join(l.indices, r.indices, needed[mask], batch);
      if (batch || (mask != full && !t.fits(joined))) continue;
      const double cost = l.cost + r.cost + t.flops(l.indices, r.indices);
      if (cost < b.cost) b = {cost, left, std::move(joined)};
    }
  }
  if (best[full].cost == kInfinity) return std::nullopt;

  // Post-order walk: a node's steps follow those of its left and right parts.
  SplitPlan plan;
  plan.exhaustive = true;
  std::vector<std::vector<int>> node_indices;  // by node id, in emitted order
  for (std::size_t k = 0; k < n; ++k) node_indices.push_back(t.operand(k));
  auto emit = [&](auto& self, unsigned mask) -> int {
    if ((mask & (mask - 1)) == 0) return __builtin_ctz(mask);
    const int l = self(self, best[mask].left);
    const int r = self(self, mask ^ best[mask].left);
    bool batch = false;
    SplitPlan::Step step{l, r, {}, t.flops(node_indices[l], node_indices[r])};
    step.indices = mask == full ? t.result() : Term::join(node_indices[l], node_indices[r], needed[mask], batch);
    TCEC_ASSERT(!batch, "the search excluded pairs with a batch index");
    plan.flops += step.flops;
    node_indices.push_back(step.indices);
    plan.steps.push_back(std::move(step));
    return static_cast<int>(node_indices.size()) - 1;
  };
  emit(emit, full);
  return plan;
}

// plan_greedy()'s state: the nodes (the operands, then the joins) with their indices, the
// nodes not yet joined (`alive_`, in order of their first operand), how many of those hold each
// index, and the cost of joining each pair of them (cost_[i][j], i < j, positions in alive_).
class GreedyJoin {
 public:
  explicit GreedyJoin(const Term& t) : t_(t), holders_(t.index_count(), 0) {
    const std::size_t n = t.size();
    for (std::size_t k = 0; k < n; ++k) {
      node_indices_.push_back(t.operand(k));
      alive_.push_back(static_cast<int>(k));
      for (int x : t.operand(k)) ++holders_[x];
    }
    cost_.assign(n, std::vector<double>(n, kInfinity));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) cost_[i][j] = pair_cost(i, j);
  }

  // Joins the cheapest pair until one node is left; nothing when every remaining pair is excluded.
  std::optional<SplitPlan> run() {
    SplitPlan plan;
    while (alive_.size() > 1) {
      std::size_t bi = 0, bj = 0;
      double bc = kInfinity;
      for (std::size_t i = 0; i < alive_.size(); ++i)
        for (std::size_t j = i + 1; j < alive_.size(); ++j)
          if (cost_[i][j] < bc) bc = cost_[i][j], bi = i, bj = j;
      if (bc == kInfinity) return std::nullopt;
      join(bi, bj, plan);
    }
    return plan;
  }

 private:
  // Indices the join of alive_[i] and alive_[j] must keep: the result's and the other nodes'.
  std::vector<int> needed(std::size_t i, std::size_t j) const {
    const auto& a = node_indices_[alive_[i]];
    const auto& b = node_indices_[alive_[j]];
    std::vector<int> out;
    for (const auto* side : {&a, &b}) {
      for (int x : *side) {
        const int elsewhere = holders_[x] - contains(a, x) - contains(b, x);
        if ((elsewhere > 0 || contains(t_.result(), x)) && !contains(out, x)) out.push_back(x);
      }
    }
    return out;
  }

  // The cost of joining alive_[i] and alive_[j], or infinity when that pair is excluded. Under the
  // preconditions a pair's kept indices are those in exactly one of its sides whatever else
  // remains, so a cached cost stays right as other pairs are joined.
  double pair_cost(std::size_t i, std::size_t j) const {
    const auto& a = node_indices_[alive_[i]];
    const auto& b = node_indices_[alive_[j]];
    bool batch = false;
    const std::vector<int> joined = Term::join(a, b, needed(i, j), batch);
    if (batch || (alive_.size() > 2 && !t_.fits(joined))) return kInfinity;
    return t_.flops(a, b);
  }

  // Joins alive_[bi] and alive_[bj] (bi < bj) as the next step of `plan`: the joined node takes
  // the left one's place; the right one's row and column of cost_ go, the left one's are renewed.
  void join(std::size_t bi, std::size_t bj, SplitPlan& plan) {
    const int l = alive_[bi], r = alive_[bj];
    bool batch = false;
    SplitPlan::Step step{l, r, {}, t_.flops(node_indices_[l], node_indices_[r])};
    step.indices =
        alive_.size() == 2 ? t_.result() : Term::join(node_indices_[l], node_indices_[r], needed(bi, bj), batch);
    TCEC_ASSERT(!batch, "the search excluded pairs with a batch index");
    plan.flops += step.flops;
    for (int x : node_indices_[l]) --holders_[x];
    for (int x : node_indices_[r]) --holders_[x];
    for (int x : step.indices) ++holders_[x];
    node_indices_.push_back(step.indices);
    plan.steps.push_back(std::move(step));
    alive_[bi] = static_cast<int>(node_indices_.size()) - 1;
    alive_.erase(alive_.begin() + static_cast<std::ptrdiff_t>(bj));
    cost_.erase(cost_.begin() + static_cast<std::ptrdiff_t>(bj));
    for (auto& row : cost_) row.erase(row.begin() + static_cast<std::ptrdiff_t>(bj));
    for (std::size_t m = 0; m < alive_.size(); ++m) {
      if (m < bi) cost_[m][bi] = pair_cost(m, bi);
      if (m > bi) cost_[bi][m] = pair_cost(bi, m);
    }
  }

  const Term& t_;
  std::vector<std::vector<int>> node_indices_;
  std::vector<int> alive_;
  std::vector<int> holders_;
  std::vector<std::vector<double>> cost_;
};

// Greedy: repeatedly join the cheapest pair of remaining nodes (split_terms.h).
std::optional<SplitPlan> plan_greedy(const Term& t) { return GreedyJoin(t).run(); }

// The statement as written, without its ';' and surrounding blanks.
std::string written(const ir::Statement& s) {
  std::string text = s.source_text;
  while (!text.empty() && (text.back() == ';' || std::isspace(static_cast<unsigned char>(text.back()))))
    text.pop_back();
  return text;
}

}  // namespace

std::optional<SplitPlan> plan_split(const ir::Program& program, const ir::Statement& s) {
  TCEC_ASSERT(s.operands.size() >= 3, "only products of three or more operands are split");
  const Term t(program, s);
  return s.operands.size() <= kExhaustiveSplitLimit ? plan_exhaustive(t) : plan_greedy(t);
}

std::vector<ir::Statement> apply_split(ir::Program& program, const ir::Statement& s, const SplitPlan& plan) {
  const std::size_t n = s.operands.size();
  TCEC_ASSERT(plan.steps.size() + 1 == n, "a split of n operands has n-1 steps");
  std::set<std::string> taken;
  for (const ir::Tensor& t : program.tensors) taken.insert(t.name);
  int number = 0;
  std::vector<ir::TensorRef> nodes(s.operands.begin(), s.operands.end());
  std::vector<ir::Statement> out;
  const std::string original = written(s);
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    const SplitPlan::Step& step = plan.steps[k];
    ir::Statement b;
    b.loc = s.loc;
    b.operands = {nodes.at(step.left), nodes.at(step.right)};
    if (k + 1 == plan.steps.size()) {
      b.result = s.result;
      b.op = s.op;
      b.coefficient = s.coefficient;
      b.coefficient_text = s.coefficient_text;
    } else {
      std::string name;
      do name = fmt::format("_t{}", ++number);
      while (taken.count(name) > 0);
      taken.insert(name);
      ir::Tensor t{name, {}, ir::TensorRole::Intermediate, s.loc, {}};
      for (int x : step.indices) t.dims.push_back(program.indices.at(x).range);
      program.tensors.push_back(std::move(t));
      b.result = {static_cast<int>(program.tensors.size()) - 1, step.indices, s.loc};
      b.op = ir::AssignOp::Assign;
      b.coefficient = 1.0;
    }
    nodes.push_back(b.result);
    b.source_text =
        fmt::format("{}   [split {} of {}: {}]", original, k + 1, plan.steps.size(), ir::format_statement(program, b));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace tcec::frontend
