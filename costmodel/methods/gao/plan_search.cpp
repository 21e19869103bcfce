// costmodel/methods/gao/plan_search.cpp — local search over integer per-index tile counts.
#include "costmodel/methods/gao/plan_search.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/gao/volumes.h"
#include "costmodel/partition.h"
#include "costmodel/reasons.h"
#include "costmodel/schedules.h"

namespace tcec::costmodel {

namespace {

constexpr double kInfeasible = std::numeric_limits<double>::infinity();

/// One searchable tile count: index `index` of group `group` (0 I, 1 J, 2 K) at `level`.
struct Var {
  int group, index, level;
};

GroupTiling& group_of(Plan& p, int g) { return g == 0 ? p.I : g == 1 ? p.J : p.K; }

std::int64_t& count_of(Plan& p, const Var& v) {
  IndexTiles& x = group_of(p, v.group).indices[v.index];
  return v.level == 1 ? x.t1 : x.t2;
}

/// Exact time on the fullest rank, +inf when invalid; invalid memory sets *penalty to the
/// overflow so that a search from an infeasible start walks towards fitting.
double objective(const Plan& p, const Machine& m, double* penalty) {
  *penalty = 0;
  if (check_valid(p, m, nullptr)) {  // rank 0 holds the largest parts; the last rank receives most
    return std::max(plan_volumes(p, m, 0, 1).time_s, plan_volumes(p, m, p.processors - 1, p.processors).time_s);
  }
  const TileBytes t = tile_bytes(p, m.element_size_bytes);
  // Thirds: the overflow of each array counts (not only the largest), so that shrinking any
  // overflowing tile is progress even when another tile is as large.
  auto over = [&](std::uint64_t bytes) { return std::max(1.0, static_cast<double>(bytes) / m.array_memory_bytes()); };
  *penalty = p.split == MemorySplit::Optimal ? static_cast<double>(t.A + t.B + t.C) / m.memory_bytes
                                             : over(t.A) + over(t.B) + over(t.C);
  return kInfeasible;
}

bool better(double t, double pen, double best_t, double best_pen) {
  if (t != kInfeasible || best_t != kInfeasible) return t < best_t;
  return pen < best_pen;
}

/// Spreads a real macro tile count over the group's indices, largest extent
/// first and the distribution index last (its parts are split over the grid
/// within each tile, so short parts leave ranks unevenly loaded), keeping every
/// part of the distribution index at least `parts` long.
void spread(GroupTiling& g, double target, int level, std::int64_t parts) {
  std::vector<int> order(g.indices.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if ((a == g.dist) != (b == g.dist)) return b == g.dist;
    return g.indices[a].extent > g.indices[b].extent;
  });
  double rest = std::max(1.0, target);
  for (int i : order) {
    IndexTiles& x = g.indices[i];
    const std::int64_t room = i == g.dist ? parts : 1;
    const std::int64_t cap = level == 1 ? x.extent / room : x.extent / x.t1 / room;
    const auto want = static_cast<std::int64_t>(std::ceil(rest - 1e-9));
    std::int64_t& t = level == 1 ? x.t1 : x.t2;
    t = std::clamp<std::int64_t>(want, 1, std::max<std::int64_t>(cap, 1));
    rest /= static_cast<double>(t);
  }
}

/// The level-1 counts of the group's indices whose box tiles hold at most ⌊|group|/target⌋
/// elements (the real optimum's tile size) with the fewest tiles, each count at most its
/// extent (over `parts` for the distribution index). Every value of ⌈n/t⌉ is tried for all
/// indices but the last, whose count is then the least that fits. False (counts unchanged)
/// when no box fits or the group has more than three indices longer than 1.
bool fit_box(GroupTiling& g, double target, std::int64_t parts) {
  std::vector<int> free;  // indices longer than 1
  for (std::size_t i = 0; i < g.indices.size(); ++i)
    if (g.indices[i].extent > 1) free.push_back(static_cast<int>(i));
  if (free.empty() || free.size() > 3 || target <= 1) return false;
  const auto cap = static_cast<std::int64_t>(std::floor(static_cast<double>(g.extent()) / target + 1e-9));
  if (cap < 1) return false;
  auto max_count = [&](int i) { return g.indices[i].extent / (i == g.dist ? parts : 1); };
  std::vector<std::int64_t> best_t, t(free.size(), 1);
  std::int64_t best_product = std::numeric_limits<std::int64_t>::max();
  // Depth-first over the distinct part sizes of all indices but the last.
  auto visit = [&](auto&& self, std::size_t k, std::int64_t room, std::int64_t product) -> void {
    const int i = free[k];
    const std::int64_t n = g.indices[i].extent;
    if (k + 1 == free.size()) {
      const std::int64_t size = std::min(room, n);  // the last index's part may be at most `room` long
      if (size < 1) return;
      const std::int64_t count = (n + size - 1) / size;
      if (count > max_count(i) || product * count >= best_product) return;
      t[k] = count;
      best_product = product * count;
      best_t = t;
      return;
    }
    for (std::int64_t size = n; size >= 1;) {  // part size ⌈n/count⌉, largest first
      const std::int64_t count = (n + size - 1) / size;
      if (count > max_count(i)) return;
      if (size <= room && product * count < best_product) {
        t[k] = count;
        self(self, k + 1, room / size, product * count);
      }
      size = (n + count) / (count + 1);  // the next smaller distinct part size
      if ((n + size - 1) / size == count) --size;
    }
  };
  visit(visit, 0, cap, 1);
  if (best_t.empty()) return false;
  for (std::size_t k = 0; k < free.size(); ++k) g.indices[free[k]].t1 = best_t[k];
  return true;
}

std::vector<std::int64_t> moves_of(std::int64_t t) { return {t + 1, t - 1, t * 2, t / 2, t + t / 8, t - t / 8}; }

/// Steepest descent over single and paired moves until no move improves.
void descend(Plan& plan, const Machine& m, const std::vector<Var>& vars) {
  double pen = 0, best = objective(plan, m, &pen);
  for (int iter = 0; iter < 400; ++iter) {
    Plan best_plan = plan;
    double best_t = best, best_pen = pen;
    auto consider = [&](Plan& cand) {
      double cp = 0;
      const double ct = objective(cand, m, &cp);
      if (better(ct, cp, best_t, best_pen)) best_t = ct, best_pen = cp, best_plan = cand;
    };
    for (std::size_t a = 0; a < vars.size(); ++a) {
      const std::int64_t ta = count_of(plan, vars[a]);
      for (std::int64_t va : moves_of(ta)) {
        if (va < 1 || va == ta) continue;
        Plan cand = plan;
        count_of(cand, vars[a]) = va;
        consider(cand);
        if (va < ta) continue;  // pairs: one count up, another down (trading tile sizes)
        for (std::size_t b = 0; b < vars.size(); ++b) {
          const std::int64_t tb = count_of(plan, vars[b]);
          if (b == a || tb == 1) continue;
          for (std::int64_t vb : {tb - 1, tb / 2}) {
            Plan pair = cand;
            count_of(pair, vars[b]) = std::max<std::int64_t>(vb, 1);
            consider(pair);
          }
        }
      }
    }
    if (!better(best_t, best_pen, best, pen)) return;
    plan = best_plan, best = best_t, pen = best_pen;
  }
}

/// The plan's exact time with the disk requests of `access` (+inf when invalid).
double time_with_requests(const Plan& p, const Machine& m, const ArrayAccess& access) {
  if (!check_valid(p, m, nullptr)) return kInfeasible;
  PlanVolumes v = plan_volumes(p, m);
  plan_requests(p, m, access, v);
  return v.time_s;
}

/// Swaps of two indices' counts within one group and level (the same number of tiles, cut along
/// another index: an outer one's for longer runs of adjacent elements), scored with the disk
/// requests (time_with_requests()), steepest first, until none is faster.
void swap_for_requests(Plan& plan, const Machine& m, const std::vector<Var>& vars, const ArrayAccess& access) {
  double best = time_with_requests(plan, m, access);
  for (int iter = 0; iter < 16; ++iter) {
    Plan best_plan = plan;
    double best_t = best;
    for (std::size_t a = 0; a < vars.size(); ++a)
      for (std::size_t b = a + 1; b < vars.size(); ++b) {
        if (vars[b].group != vars[a].group || vars[b].level != vars[a].level) continue;
        const std::int64_t ta = count_of(plan, vars[a]), tb = count_of(plan, vars[b]);
        if (ta == tb) continue;
        Plan swapped = plan;
        count_of(swapped, vars[a]) = tb, count_of(swapped, vars[b]) = ta;
        const double t = time_with_requests(swapped, m, access);
        if (t < best_t) best_t = t, best_plan = swapped;
      }
    if (!(best_t < best)) return;
    plan = best_plan, best = best_t;
  }
}

/// Picks the largest-extent index of each group the method splits; false (with
/// reason) when a group that must be split has no index of extent >= its parts.
bool choose_distribution(Plan& plan, std::string* reason) {
  const GridParts parts = grid_parts(plan);
  const std::int64_t need[] = {std::max(parts.A.rows, parts.C.rows), std::max(parts.B.rows, parts.C.cols),
                               std::max(parts.A.cols, parts.B.cols)};
  for (int g = 0; g < 3; ++g) {
    GroupTiling& group = group_of(plan, g);
    group.dist = -1;
    if (need[g] == 1) continue;
    for (std::size_t i = 0; i < group.indices.size(); ++i)
      if (group.dist < 0 || group.indices[i].extent > group.indices[group.dist].extent)
        group.dist = static_cast<int>(i);
    if (group.dist >= 0 && group.indices[group.dist].extent >= need[g]) continue;
    *reason = reason_text(ReasonId::no_distribution_extent, "IJK"[g], need[g]);
    return false;
  }
  return true;
}

}  // namespace

PlannedCandidate plan_candidate(const Groups& groups, const Machine& machine, Communication comm, Algorithm algorithm,
                                PlacementOrder order, Operand replicated, MemorySplit split, const TileCounts& hint,
                                bool accumulate, const ContractionAnalysis* analysis) {
  PlannedCandidate out;
  Plan& plan = out.plan;
  plan = {
      machine.processors, groups.I, groups.J, groups.K, split, accumulate, GaoPlan{comm, algorithm, replicated, order}};
  if (algorithm == Algorithm::Rotation && !is_perfect_square(machine.processors)) {
    out.reason = reason_text(ReasonId::p_not_square, machine.processors);
    return out;
  }
  if (!choose_distribution(plan, &out.reason)) return out;
  const auto second = second_levels(order);
  const GridParts parts = grid_parts(plan);
  const std::int64_t group_parts[] = {std::max(parts.A.rows, parts.C.rows), std::max(parts.B.rows, parts.C.cols),
                                      std::max(parts.A.cols, parts.B.cols)};
  const double level1[] = {hint.It1, hint.Jt1, hint.Kt1}, level2[] = {hint.It2, hint.Jt2, hint.Kt2};
  std::vector<Var> vars;
  for (int g = 0; g < 3; ++g) {
    GroupTiling& group = group_of(plan, g);
    spread(group, level1[g], 1, group_parts[g]);
    if (second[g]) spread(group, level2[g], 2, group_parts[g]);
    for (std::size_t i = 0; i < group.indices.size(); ++i) {
      if (group.indices[i].extent == 1) continue;
      vars.push_back({g, static_cast<int>(i), 1});
      if (second[g]) vars.push_back({g, static_cast<int>(i), 2});
    }
  }
  // A second start: box tiles as large as the real optimum's (fit_box); the better descent wins.
  Plan boxed = plan;
  bool other = false;
  for (int g = 0; g < 3; ++g) other = fit_box(group_of(boxed, g), level1[g], group_parts[g]) || other;
  other = other && boxed != plan;  // a second descent only from a different start
  descend(plan, machine, vars);
  if (other) {
    descend(boxed, machine, vars);
    double pen_plan = 0, pen_boxed = 0;
    const double t_plan = objective(plan, machine, &pen_plan), t_boxed = objective(boxed, machine, &pen_boxed);
    if (better(t_boxed, pen_boxed, t_plan, pen_plan)) plan = boxed;
  }
  if (analysis && machine.disk_latency_s > 0 && check_valid(plan, machine, nullptr))
    swap_for_requests(plan, machine, vars, lone_step_access(*analysis, plan));
  if (!check_valid(plan, machine, &out.reason)) {
    out.reason = reason_text(ReasonId::no_integer_tiling, out.reason);
    return out;
  }
  out.feasible = true;
  out.volumes = plan_volumes(plan, machine);
  return out;
}

}  // namespace tcec::costmodel
