// costmodel/methods/gao/rotation.cpp — closed-form model optimum of Rotation (Cannon on a
// √P×√P grid: A and B circular-shift), outside and inside. Source: Gao et al.
// §4.1, §5.1, Tables 2 and 5, corrected as in docs/model.md ("Table 2", "Table 5").
// Units: bytes, bytes per second, seconds.
//
// Reader's map:
//   outside_times()      Table 2: the pass form of model_optimum.cpp
//   inside, CAB/CBA      Table 5 (7)–(10): pass form, per-tile shifts folded in
//   solve_chain()        inside ACB/BCA: 3 variables, 2 constraints
//   solve_cycle()        inside ABC/BAC: 4 variables, 3 constraints and It2 >= 1
//   argmin_piecewise()   the one-dimensional problem both reduce to
//
// Inside rotation is the true joint optimum of D/B_d + V/B_c; the paper picks
// the communication-optimal tiles instead (§5.1, notes "Table 5"), which for
// ABC/BAC can cost up to ~6% more. Its case ids (model_optimum.h: 0 = nothing
// needs tiling) mark which tile counts end at their bound 1:
//   CAB/CBA: the paper's: 1 interior, 2 It1 = 1, 3 Jt1 = 1.
//   ACB, and ABC with It2 = 1: 1 + [It1=1] + 2·[Kt1=1] + 4·[Jt1=1], ids 0..7:
//     1 all interior (It1, Kt1, Jt1 > 1; for ABC the shape of Table 5 (1)),
//     2 It1 = 1 (ACB: Table 5 (3)), 3 Kt1 = 1, 4 It1 = Kt1 = 1, 5 Jt1 = 1,
//     6 It1 = Jt1 = 1, 7 Kt1 = Jt1 = 1.
//   ABC with It2 > 1, which needs Kt1 = 1 (below): 8 + [It1=1] + 2·[Jt1=1],
//     ids 8..11 (8 is the shape of Table 5 (2)).
//   BCA, BAC: the mirrors, with It1 ↔ Jt1 and It2 ↔ Jt2 in the formulas above.
// Which product constraints bind then follows from the KKT conditions (see
// solve_chain / solve_cycle); every id is reached (tests/costmodel).
//
// Why ABC never has It2 > 1 with Kt1 > 1. Let s = I·√(e/(MP)), e the element
// size: the communication-optimal I tile count (Eq. 5.2: u·J = c with
// B·u = A·J). Alone, the disk trade-off would take It1 = s·√(1 + B_dr/B_dw) > s
// (C is read and written per pass, B only read), and the communication side
// never takes u = It1·It2 above s. With Kt1 > 1 and u > It1 the KKT conditions
// leave: the piece where only It1·Kt1 = a and u·Jt1 = c bind (then
// It1 = s·√(1 + B_dr/B_dw) > s >= u); the piece where Jt1·Kt1 = b binds too
// (its stationary Kt1² = (wx·a + wJ·b)/(wK + wu·c/b), names of solve_cycle, is
// below a²/s² by that
// factor, so u < It1); the pieces and kink with It1 = 1 (they need s <= 1, so
// u <= 1); and the kink Kt1 = b with Jt1 = 1 (it needs a >= b·c, i.e. u <= It1).
// All contradict u > It1. Hence It2 = 1 whenever Kt1 > 1; the tests
// check it on every random problem.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "costmodel/methods/gao/model_optimum.h"

namespace tcec::costmodel::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// p/t + q·t + r: the form of every one-dimensional cost below between breakpoints.
struct Piece {
  double p = 0, q = 0, r = 0;
  void add(double coef, int power) { (power < 0 ? p : power > 0 ? q : r) += coef; }
  double at(double t) const { return p / t + q * t + r; }
};

// argmin over t >= 1 of a continuous function that equals piece_at(s) on the
// interval between consecutive breakpoints containing s. On each interval the
// minimum of p/t + q·t + r is at √(p/q) clamped to it; the least of those is
// the global minimum (no convexity needed, only exact pieces).
template <class PieceAt>
double argmin_piecewise(std::vector<double> breaks, PieceAt piece_at) {
  std::erase_if(breaks, [](double t) { return !(t > 1) || !std::isfinite(t); });
  breaks.push_back(1);
  std::sort(breaks.begin(), breaks.end());
  breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
  double best_t = 1, best = kInf;
  for (std::size_t i = 0; i < breaks.size(); ++i) {
    const double lo = breaks[i], hi = i + 1 < breaks.size() ? breaks[i + 1] : kInf;
    const Piece f = piece_at(std::isfinite(hi) ? std::sqrt(lo * hi) : 2 * lo);
    double t = f.q > 0 ? std::sqrt(f.p / f.q) : (f.p > 0 ? hi : lo);
    t = std::clamp(t, lo, hi);
    if (!std::isfinite(t)) continue;
    if (const double v = f.at(t); v < best) best = v, best_t = t;
  }
  return best_t;
}

// Inside ACB (BCA mirrored): min wu·u + wK·K + wJ·J s.t. u·K >= a, u·J >= c,
// u, J, K >= 1, with u = It1 (the I tile count; It2 = 1 since It1 carries the
// same cost and also relaxes u·K >= a), K = Kt1, J = Jt1. For fixed u the least
// K = max(1, a/u), J = max(1, c/u); the cost of u is then piecewise p/u + q·u + r
// with breakpoints a and c. Gao et al. Table 5 (3) is the piece u = 1.
struct Chain {
  double wu, wK, wJ, a, c;
  double u = 1, K = 1, J = 1;
  double value() const { return wu * u + wK * K + wJ * J; }
};
void solve_chain(Chain& ch) {
  ch.u = argmin_piecewise({ch.a, ch.c}, [&ch](double u) {
    Piece f;
    f.add(ch.wu, 1);
    ch.c / u > 1 ? f.add(ch.wJ * ch.c, -1) : f.add(ch.wJ, 0);
    ch.a / u > 1 ? f.add(ch.wK * ch.a, -1) : f.add(ch.wK, 0);
    return f;
  });
  ch.K = std::max(1.0, ch.a / ch.u);
  ch.J = std::max(1.0, ch.c / ch.u);
}

// Inside ABC (BAC mirrored): min wx·x + wK·K + wu·u + wJ·J s.t. x·K >= a,
// J·K >= b, u·J >= c, u >= x >= 1, J, K >= 1, with x = It1 (passes of B),
// K = Kt1 (passes of C), u = It1·It2 (I tiles: shifts of B), J = Jt1 (J tiles:
// shifts of A). KKT, nested on K: x only costs, so x = max(1, a/K); u only
// costs, so u = max(x, c/J); then wu·max(x, c/J) + wJ·J is convex in J with
// free minimum J0 = √(wu·c/wJ) (u·J = c, wu·u = wJ·J) and flat-then-rising
// beyond c/x, so J = clamp(J0, Jmin, c/x), Jmin = max(1, b/K) (J = Jmin when
// Jmin >= c/x). The cost of K is then p/K + q·K + r between the breakpoints
// where a regime switches: K = a, b, b/J0, a·J0/c, √(ab/c), b/c, a/c.
struct Cycle {
  double wx, wK, wu, wJ, a, b, c;
  double x = 1, K = 1, u = 1, J = 1;
  double j0() const { return std::sqrt(wu * c / wJ); }
  double value() const { return wx * x + wK * K + wu * u + wJ * J; }
};
void cycle_at(Cycle& cy, double K) {
  cy.K = K;
  cy.x = std::max(1.0, cy.a / K);
  const double j_min = std::max(1.0, cy.b / K), j_top = cy.c / cy.x;
  cy.J = j_min >= j_top ? j_min : std::clamp(cy.j0(), j_min, j_top);
  cy.u = std::max(cy.x, cy.c / cy.J);
}
// The cost of cycle_at(K) as monomials of K on the piece around K.
Piece cycle_piece(const Cycle& cy, double K) {
  const bool x_cut = cy.a / K > 1, j_cut = cy.b / K > 1;  // x = a/K, Jmin = b/K
  Piece f;
  auto add_x = [&](double w) { x_cut ? f.add(w * cy.a, -1) : f.add(w, 0); };
  auto add_j_min = [&](double w) { j_cut ? f.add(w * cy.b, -1) : f.add(w, 0); };
  auto add_c_by_x = [&](double w) { x_cut ? f.add(w * cy.c / cy.a, 1) : f.add(w * cy.c, 0); };
  auto add_c_by_j_min = [&](double w) { j_cut ? f.add(w * cy.c / cy.b, 1) : f.add(w * cy.c, 0); };
  add_x(cy.wx);
  f.add(cy.wK, 1);
  const double j_min = j_cut ? cy.b / K : 1, j_top = x_cut ? cy.c * K / cy.a : cy.c;
  if (j_min >= j_top) {  // J = Jmin, u = x
    add_x(cy.wu), add_j_min(cy.wJ);
  } else if (cy.j0() <= j_min) {  // J = Jmin, u = c/J
    add_c_by_j_min(cy.wu), add_j_min(cy.wJ);
  } else if (cy.j0() >= j_top) {  // J = c/x, u = x
    add_x(cy.wu), add_c_by_x(cy.wJ);
  } else {  // J = J0, u = c/J0: wu·u + wJ·J = 2√(wu·wJ·c)
    f.add(2 * std::sqrt(cy.wu * cy.wJ * cy.c), 0);
  }
  return f;
}
void solve_cycle(Cycle& cy) {
  const double j0 = cy.j0();
  const double K = argmin_piecewise(
      {cy.a, cy.b, cy.b / j0, cy.a * j0 / cy.c, std::sqrt(cy.a * cy.b / cy.c), cy.b / cy.c, cy.a / cy.c},
      [&cy](double k) { return cycle_piece(cy, k); });
  cycle_at(cy, K);
}

// Table 2 (corrected): √P rounds over the local A/P, B/P, C/P, so A/√P, B/√P,
// 2C/√P per pass; D1 = 2(A+B)/√P (half read, half written); V = (A+B)/√P.
// ABC ⟨1⟩: It1 = I√(2/(MP)), Kt1 = K/√(2MP), D2 = A/√P + √(8ABC/M)/P.
// CAB ⟨1⟩: It1 = I/√(MP), Jt1 = J/√(MP), D2 = 2C/√P + √(4ABC/M)/P.
PassTimes outside_times(const Problem& pr, const Machine& m) {
  const double sqrtP = std::sqrt(static_cast<double>(m.processors));
  const double read = 1 / m.disk_read_bytes_per_s, write = 1 / m.disk_write_bytes_per_s;
  const double shifted = (pr.A + pr.B) / sqrtP;
  return {shifted * (read + write) + shifted / m.network_bytes_per_s, pr.A / sqrtP * read, pr.B / sqrtP * read,
          pr.C / sqrtP * (read + write)};
}

// The case id of inside ABC/ACB from (It1, Kt1, Jt1, It2); numbering in the
// header comment.
int inside_case_id(double i1, double k1, double j1, double i2) {
  if (i2 > 1 + kAtBoundTolerance) return 8 + (i1 <= 1 + kAtBoundTolerance) + 2 * (j1 <= 1 + kAtBoundTolerance);
  return case_id_from_tiles({i1, k1, j1});
}

// Inside (§5.1, Table 5 corrected): A/P, B/P, 2C/P per pass (times tA, tB, tC)
// and V = (A·(J tiles) + B·(I tiles))/√P (times vJ per J tile, vI per I tile).
struct InsideTimes {
  double tA, tB, tC, vI, vJ;
};
InsideTimes inside_times(const Problem& pr, const Machine& m) {
  const double P = static_cast<double>(m.processors), sqrtP = std::sqrt(P);
  const double read = 1 / m.disk_read_bytes_per_s, write = 1 / m.disk_write_bytes_per_s;
  return {pr.A / P * read, pr.B / P * read, pr.C / P * (read + write), pr.B / sqrtP / m.network_bytes_per_s,
          pr.A / sqrtP / m.network_bytes_per_s};
}

// BAC/BCA are ABC/ACB with A↔B and I↔J (notes; Gao et al. Table 5 rows).
InsideTimes mirrored(const InsideTimes& w) { return {w.tB, w.tA, w.tC, w.vJ, w.vI}; }
TileThresholds mirrored(const TileThresholds& th) { return {th.b, th.a, th.c}; }
TileCounts mirrored(const TileCounts& t) { return {t.Jt1, t.Jt2, t.It1, t.It2, t.Kt1, t.Kt2}; }

struct InsideOptimum {
  TileCounts tiles;
  double time_s;
  int case_id;
};

// ACB: passes A 1, B It1·It2, C Kt1; I tiles It1·It2, J tiles Jt1.
InsideOptimum inside_acb(const InsideTimes& w, const TileThresholds& th) {
  Chain ch{w.tB + w.vI, w.tC, w.vJ, th.a, th.c};
  solve_chain(ch);
  TileCounts t;
  t.It1 = ch.u, t.Kt1 = ch.K, t.Jt1 = ch.J, t.Kt2 = std::max(1.0, th.b / (ch.J * ch.K));
  return {t, w.tA + ch.value(), inside_case_id(t.It1, t.Kt1, t.Jt1, 1)};
}

// ABC: passes A 1, B It1, C Kt1; I tiles It1·It2, J tiles Jt1.
InsideOptimum inside_abc(const InsideTimes& w, const TileThresholds& th) {
  Cycle cy{w.tB, w.tC, w.vI, w.vJ, th.a, th.b, th.c};
  solve_cycle(cy);
  TileCounts t;
  t.It1 = cy.x, t.Kt1 = cy.K, t.Jt1 = cy.J, t.It2 = cy.u / cy.x;
  return {t, w.tA + cy.value(), inside_case_id(t.It1, t.Kt1, t.Jt1, t.It2)};
}

}  // namespace

ModelPoint rotation_optimum(const Problem& pr, const Machine& m, Communication comm, PlacementOrder order) {
  constexpr auto kRot = Algorithm::Rotation;
  constexpr auto kA = Operand::A;
  using enum PlacementOrder;
  if (!is_perfect_square(m.processors)) return infeasible_point(pr, m, comm, kRot, order, kA);
  if (comm == Communication::Outside) return pass_form_optimum(pr, m, comm, kRot, order, kA, outside_times(pr, m));
  InsideTimes w = inside_times(pr, m);
  if (order == CAB || order == CBA)  // I tiles It1, J tiles Jt1 (It2 = Jt2 = 1)
    return pass_form_optimum(pr, m, comm, kRot, order, kA, {0, w.tA + w.vJ, w.tB + w.vI, w.tC});
  TileThresholds th = tile_thresholds(pr, m, kRot, kA);
  const bool mirror = order == BAC || order == BCA;
  if (mirror) w = mirrored(w), th = mirrored(th);
  InsideOptimum o = order == ACB || order == BCA ? inside_acb(w, th) : inside_abc(w, th);
  if (mirror) o.tiles = mirrored(o.tiles);
  return closed_form_point(pr, m, comm, kRot, order, kA, o.tiles, o.time_s, o.case_id);
}

}  // namespace tcec::costmodel::detail
