// costmodel/methods/gao/model_optimum.cpp — the parts of the closed forms shared by the
// three algorithms: the one two-variable trade-off behind every table row of
// Gao et al. Tables 2–4, 6, 7 (and Table 5 CAB/CBA), the mapping of an order's
// variables to tile counts, and the dispatch and best-over-orders choice.
#include "costmodel/methods/gao/model_optimum.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tcec::costmodel {
namespace detail {

// min wX·X + wY·Y s.t. X·Y >= m, X, Y >= 1 (Gao et al. §4.1 Eq. 4.4 and its
// analogues 4.9, 4.14, 5.3, 5.7; the ⟨1⟩⟨2⟩⟨3⟩ rows of Tables 2–7).
// Derivation: for m <= 1, X = Y = 1 is feasible and cheapest (case 0). Else the
// constraint binds (both terms increase), Y = m/X, and wX·X + wY·m/X is convex on
// [1, m] with stationary point X* = √(m·wY/wX), value 2√(m·wX·wY) (AM–GM; the
// paper's "discriminant" argument). X* <= 1 gives X = 1, Y = m (⟨2⟩); X* >= m
// gives X = m, Y = 1 (⟨3⟩); otherwise X* (⟨1⟩).
ProductTradeoff minimise_product_tradeoff(double wX, double wY, double m) {
  ProductTradeoff t;
  if (m <= 1) {
    t.value = wX + wY;
    return t;
  }
  const double x_star = wX > 0 ? std::sqrt(m * wY / wX) : std::numeric_limits<double>::infinity();
  if (x_star <= 1) {
    t = {1, m, wX + wY * m, 2};
  } else if (x_star >= m) {
    t = {m, 1, wX * m + wY, 3};
  } else {
    t = {x_star, m / x_star, 2 * std::sqrt(m * wX * wY), 1};
  }
  return t;
}

namespace {

// The order's binding variables (X, Y) → all tile counts: the remaining ones at
// the least values the other two memory constraints allow (they cost nothing).
// Variable roles per order: notes "How many passes" and Gao et al. Tables 2–7.
TileCounts complete_tiles(PlacementOrder order, double X, double Y, const TileThresholds& th) {
  TileCounts t;
  switch (order) {
    case PlacementOrder::ABC:  // X = It1, Y = Kt1; Jt1 covers B and C
      t.It1 = X, t.Kt1 = Y, t.Jt1 = std::max({1.0, th.b / Y, th.c / X});
      break;
    case PlacementOrder::ACB:  // Jt1 covers C, then Kt2 covers B
      t.It1 = X, t.Kt1 = Y, t.Jt1 = std::max(1.0, th.c / X);
      t.Kt2 = std::max(1.0, th.b / (t.Jt1 * Y));
      break;
    case PlacementOrder::BAC:  // X = Jt1, Y = Kt1; It1 covers A and C
      t.Jt1 = X, t.Kt1 = Y, t.It1 = std::max({1.0, th.a / Y, th.c / X});
      break;
    case PlacementOrder::BCA:  // It1 covers C, then Kt2 covers A
      t.Jt1 = X, t.Kt1 = Y, t.It1 = std::max(1.0, th.c / X);
      t.Kt2 = std::max(1.0, th.a / (t.It1 * Y));
      break;
    case PlacementOrder::CAB:  // X = It1, Y = Jt1; Kt1 covers A and B
    case PlacementOrder::CBA: t.It1 = X, t.Jt1 = Y, t.Kt1 = std::max({1.0, th.a / X, th.b / Y}); break;
  }
  return t;
}

}  // namespace

// The order fixes which passes are free (Fig. 3(b)): ABC/ACB stream A once,
// BAC/BCA stream B once, CAB/CBA stream C once; the other two passes are the
// trade-off variables. Gao et al. Tables 2–4, 6, 7, each row's "Cost Estimate".
ModelPoint pass_form_optimum(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                             PlacementOrder order, Operand replicated, const PassTimes& p) {
  const TileThresholds th = tile_thresholds(problem, machine, algorithm, replicated);
  double fixed = 0, wX = 0, wY = 0, m = 0;
  switch (order) {
    case PlacementOrder::ABC:
    case PlacementOrder::ACB:  // passes A 1, B It1, C Kt1; It1·Kt1 >= a
      fixed = p.pass_A_s, wX = p.pass_B_s, wY = p.pass_C_s, m = th.a;
      break;
    case PlacementOrder::BAC:
    case PlacementOrder::BCA:  // passes A Jt1, B 1, C Kt1; Jt1·Kt1 >= b
      fixed = p.pass_B_s, wX = p.pass_A_s, wY = p.pass_C_s, m = th.b;
      break;
    case PlacementOrder::CAB:
    case PlacementOrder::CBA:  // passes A Jt1, B It1, C 1; It1·Jt1 >= c
      fixed = p.pass_C_s, wX = p.pass_B_s, wY = p.pass_A_s, m = th.c;
      break;
  }
  const ProductTradeoff t = minimise_product_tradeoff(wX, wY, m);
  return closed_form_point(problem, machine, comm, algorithm, order, replicated, complete_tiles(order, t.X, t.Y, th),
                           p.const_s + fixed + t.value, t.case_id);
}

ModelPoint closed_form_point(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                             PlacementOrder order, Operand replicated, const TileCounts& tiles, double time_s,
                             int case_id) {
  ModelPoint point = evaluate_model(problem, machine, comm, algorithm, order, replicated, tiles);
  point.time_s = time_s;
  point.case_id = case_id;
  return point;
}

ModelPoint infeasible_point(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                            PlacementOrder order, Operand replicated) {
  ModelPoint point = evaluate_model(problem, machine, comm, algorithm, order, replicated, {});
  point.feasible = false;
  point.time_s = std::numeric_limits<double>::infinity();
  return point;
}

int case_id_from_tiles(std::initializer_list<double> tile_counts) {
  int mask = 0, bit = 1;
  for (double t : tile_counts) {
    if (t <= 1 + kAtBoundTolerance) mask |= bit;
    bit <<= 1;
  }
  return mask == bit - 1 ? 0 : 1 + mask;
}

}  // namespace detail

ModelPoint model_optimum(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                         PlacementOrder order, Operand replicated) {
  switch (algorithm) {
    case Algorithm::Rotation: return detail::rotation_optimum(problem, machine, comm, order);
    case Algorithm::Replication: return detail::replication_optimum(problem, machine, comm, order, replicated);
    case Algorithm::Accumulation: break;
  }
  return detail::accumulation_optimum(problem, machine, comm, order);
}

ModelPoint best_model_optimum(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm) {
  ModelPoint best;
  bool have = false;
  for (Operand r : {Operand::A, Operand::B}) {
    if (r == Operand::B && algorithm != Algorithm::Replication) break;
    for (PlacementOrder order : kAllOrders) {
      ModelPoint p = model_optimum(problem, machine, comm, algorithm, order, r);
      const bool better = p.feasible && (!best.feasible || p.time_s < best.time_s);
      if (!have || better) best = std::move(p);
      have = true;
    }
  }
  return best;
}

}  // namespace tcec::costmodel
