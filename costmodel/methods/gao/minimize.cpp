// costmodel/methods/gao/minimize.cpp — the model optimum found numerically, as an
// independent check of the closed forms: it knows the loop nests only through
// loop_nest_counts() and evaluate_volumes() (volumes.cpp), never the cases.
//
// Method. Every volume is nondecreasing in every tile count, so once some tile
// counts are chosen the others are best at the least values the memory
// constraints allow. Per order two "free" tile counts are searched; the rest
// are filled in a fixed order, each at the least value meeting every constraint
// whose other tile counts are already set (a constraint with an unset member is
// left to that member). The fill orders are chosen so that no search is lost:
// a filled count never costs less than a searched one would to meet the same
// constraint (e.g. ABC: It2 after It1, since It1 also multiplies the B passes).
// In log space the problem is a geometric program (convex), and a partial
// minimum of a convex function is convex, so nested golden-section search in
// s = ln(count / least count) >= 0 finds the minimum: outer over the first free
// count, inner over the second.
#include <algorithm>
#include <array>
#include <cmath>

#include "costmodel/methods/gao/model_optimum.h"

namespace tcec::costmodel {
namespace {

enum Var { kIt1, kIt2, kJt1, kJt2, kKt1, kKt2, kNumVars };

double& tile(TileCounts& t, int v) {
  double* slots[kNumVars] = {&t.It1, &t.It2, &t.Jt1, &t.Jt2, &t.Kt1, &t.Kt2};
  return *slots[v];
}

// Searched counts (outer, inner), then the filled ones; -1 ends the list.
struct SearchPlan {
  std::array<int, 5> vars;
};
SearchPlan search_plan(PlacementOrder order) {
  switch (order) {
    case PlacementOrder::ABC: return {{kKt1, kJt1, kIt1, kIt2, -1}};
    case PlacementOrder::ACB: return {{kIt1, kKt1, kIt2, kJt1, kKt2}};
    case PlacementOrder::BAC: return {{kKt1, kIt1, kJt1, kJt2, -1}};
    case PlacementOrder::BCA: return {{kJt1, kKt1, kJt2, kIt1, kKt2}};
    case PlacementOrder::CAB: return {{kIt1, kJt1, kJt2, kKt1, -1}};
    case PlacementOrder::CBA: return {{kIt1, kJt1, kIt2, kKt1, -1}};
  }
  return {};
}

class NestedSearch {
 public:
  NestedSearch(const MethodVolumes& volumes, const Machine& machine, PlacementOrder order, const TileThresholds& th)
      : volumes_(volumes), machine_(machine), order_(order), plan_(search_plan(order)), least_{th.a, th.b, th.c} {
    // Which tile counts cut which array, read off the loop nest itself ...
    std::array<unsigned, 3> members{};
    for (int v = 0; v < kNumVars; ++v) {
      TileCounts probe;
      tile(probe, v) = 2;
      const std::array<double, 3> c = cuts(probe);
      for (int x = 0; x < 3; ++x)
        if (c[x] > 1) members[x] |= 1u << v;
    }
    // ... and so which constraints each count of the plan completes.
    unsigned set = 0;
    for (int i = 0; i < 5 && plan_.vars[i] >= 0; ++i) {
      set |= 1u << plan_.vars[i];
      for (int x = 0; x < 3; ++x)
        if ((members[x] >> plan_.vars[i] & 1) && (members[x] & ~set) == 0) completes_[i] |= 1u << x;
    }
  }

  // The outer count at ln(count / least count) = s0; the others still 1.
  TileCounts outer_at(double s0) const {
    TileCounts t;
    place(t, 0, std::exp(s0));
    return t;
  }
  // `t` from outer_at() with the inner count at s1 and the filled ones least.
  TileCounts complete(TileCounts t, double s1) const {
    place(t, 1, std::exp(s1));
    for (int i = 2; i < 5; ++i) place(t, i, 1);
    return t;
  }
  double time_of(const TileCounts& t) const { return evaluate_volumes(volumes_, machine_, order_, t).time_s; }

 private:
  std::array<double, 3> cuts(const TileCounts& t) const {
    const LoopNestCounts n = loop_nest_counts(order_, t);
    return {n.cuts_A, n.cuts_B, n.cuts_C};
  }
  // Plan position i at factor × its least value (count i is still 1 in t).
  void place(TileCounts& t, int i, double factor) const {
    if (plan_.vars[i] < 0) return;
    double least = 1;
    if (completes_[i] != 0) {
      const std::array<double, 3> c = cuts(t);
      for (int x = 0; x < 3; ++x)
        if (completes_[i] >> x & 1) least = std::max(least, least_[x] / c[x]);
    }
    tile(t, plan_.vars[i]) = least * factor;
  }

  const MethodVolumes& volumes_;
  const Machine& machine_;
  PlacementOrder order_;
  SearchPlan plan_;
  std::array<double, 3> least_;
  std::array<unsigned, 5> completes_{};
};

// The minimum of a convex f on [lo, hi]: (least value seen, its argument).
// Golden-section search down to an interval of 1e-12 (in log space: relative
// 1e-12 in the tile count, so ~1e-12 in time even when the minimum sits at a
// kink). Convexity settles two common shapes first, "same" meaning within the
// noise of f (`noise`, relative: rounding for a plain evaluation, more for a
// function that is itself a search):
//  - f clearly rises from lo to lo + 1e-10: it rises from there on, and the
//    minimum is within that step of lo (a count at its least value);
//  - f is the same at lo, the midpoint and hi: then f >= that value between
//    them (a count that costs nothing).
template <class F>
std::pair<double, double> golden_min(F f, double lo, double hi, double noise) {
  const double f_lo = f(lo), same = noise * std::abs(f_lo);
  if (f(lo + 1e-10) > f_lo + same) return {f_lo, lo};
  if (std::abs(f(hi) - f_lo) <= same && std::abs(f((lo + hi) / 2) - f_lo) <= same) return {f_lo, lo};
  const double inv_phi = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - inv_phi * (hi - lo), x2 = lo + inv_phi * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  std::pair<double, double> best = f1 <= f2 ? std::pair{f1, x1} : std::pair{f2, x2};
  while (hi - lo > 1e-12) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1;
      x1 = hi - inv_phi * (hi - lo), f1 = f(x1);
      if (f1 < best.first) best = {f1, x1};
    } else {
      lo = x1, x1 = x2, f1 = f2;
      x2 = lo + inv_phi * (hi - lo), f2 = f(x2);
      if (f2 < best.first) best = {f2, x2};
    }
  }
  return best;
}

}  // namespace

ModelPoint numerical_optimum(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                             PlacementOrder order, Operand replicated) {
  if (algorithm == Algorithm::Rotation && !is_perfect_square(machine.processors))
    return detail::infeasible_point(problem, machine, comm, algorithm, order, replicated);
  const TileThresholds th = tile_thresholds(problem, machine, algorithm, replicated);
  const MethodVolumes volumes = method_volumes(problem, machine, comm, algorithm, replicated);
  const NestedSearch search(volumes, machine, order, th);
  // No optimal tile count exceeds max(1, a, b, c): beyond it a count only costs.
  const double span = std::log(std::max({1.0, th.a, th.b, th.c})) + 2;
  auto inner = [&search, span](double s0) {  // (least time, its s1) at outer s0
    const TileCounts outer = search.outer_at(s0);
    return golden_min([&](double s1) { return search.time_of(search.complete(outer, s1)); }, 0, span, 1e-14);
  };
  // The inner search is good to ~1e-12 of the time: the outer one needs more
  // than that to call a rise real.
  const double s0 = golden_min([&](double s) { return inner(s).first; }, 0, span, 1e-11).second;
  return evaluate_model(problem, machine, comm, algorithm, order, replicated,
                        search.complete(search.outer_at(s0), inner(s0).second));
}

}  // namespace tcec::costmodel
