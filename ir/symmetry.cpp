// ir/symmetry.cpp — element and flop counts of symmetry-blocked tensors (ir.h "Symmetry blocks").
#include <algorithm>
#include <initializer_list>
#include <stdexcept>

#include "ir/ir.h"

namespace tcec::ir {

namespace {

using Groups = std::vector<std::vector<OrbitalGroup>>;

/// C(m, r): the elements of a run of r antisymmetric indices over one group of m orbitals.
std::uint64_t choose(std::uint64_t m, std::size_t r) {
  if (r > m) return 0;
  std::uint64_t out = 1;
  for (std::size_t q = 0; q < r; ++q) out = out * (m - q) / (q + 1);  // exact at each step
  return out;
}

/// Throws std::invalid_argument unless every index of each run has the same groups.
void check_runs(const std::vector<std::vector<int>>& runs, const Groups& groups) {
  for (const std::vector<int>& run : runs)
    for (int i : run) {
      const std::vector<OrbitalGroup>& a = groups.at(static_cast<std::size_t>(run.front()));
      const std::vector<OrbitalGroup>& b = groups.at(static_cast<std::size_t>(i));
      bool same = a.size() == b.size();
      for (std::size_t g = 0; same && g < a.size(); ++g)
        same = a[g].spin == b[g].spin && a[g].irrep == b[g].irrep && a[g].extent == b[g].extent;
      if (!same) throw std::invalid_argument("an antisymmetric run spans indices of different orbital groups");
    }
}

/// Whether the block of `t` with group at[i] for index i conserves spin and irrep as `rules` say,
/// and (`stored`) is one `t` stores: not all beta where restricted.
bool nonzero(const SymmetricTensor& t, const std::vector<int>& at, const Groups& groups, const SymmetryRules& rules,
             bool stored) {
  int spin = 0, irrep = 0;
  bool all_beta = true;
  for (std::size_t d = 0; d < t.indices.size(); ++d) {
    const auto i = static_cast<std::size_t>(t.indices[d]);
    const OrbitalGroup& g = groups[i][static_cast<std::size_t>(at[i])];
    const int ms = g.spin == Spin::Alpha ? 1 : -1;
    spin += d < t.upper ? ms : -ms;
    irrep ^= g.irrep;
    all_beta = all_beta && g.spin == Spin::Beta;
  }
  if (rules.spin && spin != 0) return false;
  if (rules.point_group && irrep != t.irrep) return false;
  return !(stored && rules.restricted && all_beta && !t.indices.empty());
}

/// Whether the runs' groups are in stored order (non-decreasing along each run).
bool ordered(const std::vector<std::vector<int>>& runs, const std::vector<int>& at) {
  for (const std::vector<int>& run : runs)
    for (std::size_t q = 1; q < run.size(); ++q)
      if (at[static_cast<std::size_t>(run[q - 1])] > at[static_cast<std::size_t>(run[q])]) return false;
  return true;
}

/// Elements of the block with group at[i] for each index in `used`: the product of the groups'
/// extents, each run in `runs` (indices) counted packed (`packed`): C(m, r) per sub-run of r equal
/// groups.
std::uint64_t block_elements(const std::vector<int>& used, const std::vector<std::vector<int>>& runs,
                             const std::vector<int>& at, const Groups& groups, bool packed) {
  if (!packed) return block_elements(used, {}, at, groups, true);
  std::vector<bool> in_run(groups.size(), false);
  std::uint64_t n = 1;
  for (const std::vector<int>& run : runs) {
    for (std::size_t q = 0; q < run.size();) {
      std::size_t r = q;
      while (r < run.size() && at[static_cast<std::size_t>(run[r])] == at[static_cast<std::size_t>(run[q])]) ++r;
      const auto i = static_cast<std::size_t>(run[q]);
      n *= choose(groups[i][static_cast<std::size_t>(at[i])].extent, r - q);
      q = r;
    }
    for (int i : run) in_run[static_cast<std::size_t>(i)] = true;
  }
  for (int i : used)
    if (!in_run[static_cast<std::size_t>(i)])
      n *= groups[static_cast<std::size_t>(i)][static_cast<std::size_t>(at[static_cast<std::size_t>(i)])].extent;
  return n;
}

/// Index runs (ids) of `t`'s dimension runs.
std::vector<std::vector<int>> index_runs(const SymmetricTensor& t) {
  std::vector<std::vector<int>> out;
  for (const std::vector<int>& run : t.antisymmetric) {
    out.emplace_back();
    for (int d : run) out.back().push_back(t.indices.at(static_cast<std::size_t>(d)));
  }
  return out;
}

/// Calls visit(at) for every assignment of a group to each index in `used` (at[i] for index i).
template <class Visit>
void each_block(const std::vector<int>& used, const Groups& groups, Visit visit) {
  std::vector<int> at(groups.size(), 0);
  for (int i : used)
    if (groups[static_cast<std::size_t>(i)].empty()) return;  // an empty range: no block
  while (true) {
    visit(at);
    std::size_t q = 0;
    for (; q < used.size(); ++q) {
      const auto i = static_cast<std::size_t>(used[q]);
      if (++at[i] < static_cast<int>(groups[i].size())) break;
      at[i] = 0;
    }
    if (q == used.size()) return;
  }
}

/// The distinct indices of the tensors, in first-seen order.
std::vector<int> used_indices(std::initializer_list<const SymmetricTensor*> tensors) {
  std::vector<int> used;
  for (const SymmetricTensor* t : tensors)
    for (int i : t->indices)
      if (std::find(used.begin(), used.end(), i) == used.end()) used.push_back(i);
  return used;
}

}  // namespace

std::vector<OrbitalGroup> spin_orbital_groups(const std::vector<std::uint64_t>& per_irrep) {
  if (per_irrep.size() > 8) throw std::invalid_argument("an abelian point group has at most 8 irreps");
  std::vector<OrbitalGroup> out;
  for (Spin spin : {Spin::Alpha, Spin::Beta})
    for (std::size_t g = 0; g < per_irrep.size(); ++g)
      if (per_irrep[g] > 0) out.push_back({spin, static_cast<int>(g), per_irrep[g]});
  return out;
}

std::uint64_t stored_elements(const SymmetricTensor& t, const Groups& groups, const SymmetryRules& rules) {
  const std::vector<std::vector<int>> runs = rules.antisymmetric ? index_runs(t) : std::vector<std::vector<int>>{};
  check_runs(runs, groups);
  const std::vector<int> used = used_indices({&t});
  std::uint64_t n = 0;
  each_block(used, groups, [&](const std::vector<int>& at) {
    if (nonzero(t, at, groups, rules, true) && ordered(runs, at))
      n += block_elements(used, runs, at, groups, rules.packed_diagonal);
  });
  return n;
}

double contraction_flops(const SymmetricTensor& C, const SymmetricTensor& A, const SymmetricTensor& B,
                         const std::vector<std::vector<int>>& summed_antisymmetric, const Groups& groups,
                         const SymmetryRules& rules) {
  std::vector<std::vector<int>> runs;
  if (rules.antisymmetric) {
    runs = index_runs(C);
    runs.insert(runs.end(), summed_antisymmetric.begin(), summed_antisymmetric.end());
  }
  check_runs(runs, groups);
  const std::vector<int> used = used_indices({&C, &A, &B});
  double flops = 0;
  each_block(used, groups, [&](const std::vector<int>& at) {
    if (nonzero(C, at, groups, rules, true) && nonzero(A, at, groups, rules, false) &&
        nonzero(B, at, groups, rules, false) && ordered(runs, at))
      flops += 2.0 * static_cast<double>(block_elements(used, runs, at, groups, rules.packed_diagonal));
  });
  return flops;
}

std::optional<int> point_group_irreps(const std::string& name) {
  static const std::pair<const char*, int> kGroups[] = {{"c1", 1}, {"cs", 2},  {"ci", 2},  {"c2", 2},
                                                        {"d2", 4}, {"c2v", 4}, {"c2h", 4}, {"d2h", 8}};
  for (const auto& [group, irreps] : kGroups)
    if (name == group) return irreps;
  return std::nullopt;
}

std::vector<std::vector<int>> antisymmetric_runs(const Tensor& t) {
  std::vector<std::vector<int>> out;
  if (t.dense) return out;
  if (t.antisymmetric) return *t.antisymmetric;
  const int upper = static_cast<int>(t.upper_dims()), rank = static_cast<int>(t.dims.size());
  for (auto [first, last] : {std::pair{0, upper}, std::pair{upper, rank}})
    for (int d = first; d < last;) {
      int e = d + 1;
      while (e < last && t.dims[static_cast<std::size_t>(e)] == t.dims[static_cast<std::size_t>(d)]) ++e;
      if (e - d >= 2) {
        out.emplace_back();
        for (int q = d; q < e; ++q) out.back().push_back(q);
      }
      d = e;
    }
  return out;
}

std::optional<ContractionSymmetry> contraction_symmetry(const Program& program, const Statement& s) {
  if (!program.symmetry || s.operands.size() != 2) return std::nullopt;
  const TensorRef* refs[3] = {&s.operands[0], &s.operands[1], &s.result};
  SymmetricTensor views[3];
  for (int q = 0; q < 3; ++q) {
    const Tensor& t = program.tensors.at(static_cast<std::size_t>(refs[q]->tensor));
    if (t.dense) return std::nullopt;
    views[q] = {refs[q]->indices, t.upper_dims(), antisymmetric_runs(t), t.irrep};
  }
  Groups groups(program.indices.size());  // by index id
  for (std::size_t i = 0; i < program.indices.size(); ++i)
    groups[i] = spin_orbital_groups(program.ranges.at(static_cast<std::size_t>(program.indices[i].range)).irreps);
  // Summed runs: summed indices that form one antisymmetric run in A and one in B, in A's order.
  std::vector<std::vector<int>> summed;
  const auto in = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  for (const std::vector<int>& run : views[0].antisymmetric) {
    std::vector<int> ids;
    for (int d : run)
      if (!in(s.result.indices, views[0].indices[static_cast<std::size_t>(d)]))
        ids.push_back(views[0].indices[static_cast<std::size_t>(d)]);
    if (ids.size() < 2) continue;
    for (const std::vector<int>& other : views[1].antisymmetric) {
      std::vector<int> b;
      for (int d : other) b.push_back(views[1].indices[static_cast<std::size_t>(d)]);
      if (std::all_of(ids.begin(), ids.end(), [&](int x) { return in(b, x); })) summed.push_back(ids);
    }
  }
  SymmetryRules rules;
  rules.restricted = program.symmetry->restricted;
  rules.packed_diagonal = false;
  ContractionSymmetry out;
  out.stored_A = stored_elements(views[0], groups, rules);
  out.stored_B = stored_elements(views[1], groups, rules);
  out.stored_C = stored_elements(views[2], groups, rules);
  out.flops = contraction_flops(views[2], views[0], views[1], summed, groups, rules);
  return out;
}

}  // namespace tcec::ir
