// costmodel/rotation.cpp — closed-form model optimum of Rotation (Cannon on a
// √P×√P grid: A and B circular-shift), outside and inside. Source: Gao et al.
// §4.1, §5.1, Tables 2 and 5, corrected by shared/notes/gao-model.md.
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
// needs tiling, 1 = all interior) mark which tile counts end at their bound 1:
//   CAB/CBA: the paper's: 1 interior, 2 It1 = 1, 3 Jt1 = 1.
//   ACB: 1 + [It1=1] + 2·[Kt1=1] + 4·[Jt1=1]   (It2 = 1 always), ids 1..7:
//     1 interior (It1·Kt1 = a and It1·Jt1 = c bind), 2 It1 = 1 (Table 5 (3)),
//     3 Kt1 = 1, 4 It1 = Kt1 = 1, 5 Jt1 = 1, 6 It1 = Jt1 = 1, 7 Kt1 = Jt1 = 1.
//   ABC: 1 + [It1=1] + 2·[Kt1=1] + 4·[Jt1=1] + 8·[It2=1], ids 1..15; e.g.
//     1 all interior (It2 > 1), 9 only It2 = 1 (the shape of Table 5 (1)),
//     3 only Kt1 = 1 (the shape of Table 5 (2)).
//   BCA, BAC: the mirrors, with It1 ↔ Jt1 and It2 ↔ Jt2 in the formulas above.
// Which product constraints bind then follows from the KKT conditions (see
// solve_chain / solve_cycle); every id is reached (tests/costmodel).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "costmodel/model_optimum.h"

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
      {cy.a, cy.b, cy.b / j0, cy.a * j0 / cy.c, std::sqrt(cy.a * cy.b / cy.c), cy.b / cy.c,
       cy.a / cy.c},
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
  return {shifted * (read + write) + shifted / m.network_bytes_per_s, pr.A / sqrtP * read,
          pr.B / sqrtP * read, pr.C / sqrtP * (read + write)};
}

}  // namespace

// Inside (§5.1, Table 5 corrected): A/P, B/P, 2C/P per pass and
// V = (A·(J tiles) + B·(I tiles))/√P.
ModelPoint rotation_optimum(const Problem& pr, const Machine& m, CommMethod comm,
                            DiskPlacementOrder order) {
  constexpr auto kRot = Algorithm::Rotation;
  constexpr auto kA = ReplicatedOperand::A;
  if (!is_perfect_square(m.processors)) return infeasible_point(pr, m, comm, kRot, order, kA);
  if (comm == CommMethod::Outside)
    return pass_form_optimum(pr, m, comm, kRot, order, kA, outside_times(pr, m));
  const double P = static_cast<double>(m.processors), sqrtP = std::sqrt(P);
  const double read = 1 / m.disk_read_bytes_per_s, write = 1 / m.disk_write_bytes_per_s;
  const double tA = pr.A / P * read, tB = pr.B / P * read, tC = pr.C / P * (read + write);
  const double vI = pr.B / sqrtP / m.network_bytes_per_s;  // per I tile: B shifted
  const double vJ = pr.A / sqrtP / m.network_bytes_per_s;  // per J tile: A shifted
  const TileThresholds th = tile_thresholds(pr, m, kRot, kA);
  TileCounts t;
  switch (order) {
    case DiskPlacementOrder::CAB:  // I tiles It1, J tiles Jt1 (Jt2 = 1 or It2 = 1)
    case DiskPlacementOrder::CBA:
      return pass_form_optimum(pr, m, comm, kRot, order, kA, {0, tA + vJ, tB + vI, tC});
    case DiskPlacementOrder::ACB: {
      Chain ch{tB + vI, tC, vJ, th.a, th.c};
      solve_chain(ch);
      t.It1 = ch.u, t.Kt1 = ch.K, t.Jt1 = ch.J, t.Kt2 = std::max(1.0, th.b / (ch.J * ch.K));
      return closed_form_point(pr, m, comm, kRot, order, kA, t, tA + ch.value(),
                               case_id_from_tiles({t.It1, t.Kt1, t.Jt1}));
    }
    case DiskPlacementOrder::BCA: {
      Chain ch{tA + vJ, tC, vI, th.b, th.c};
      solve_chain(ch);
      t.Jt1 = ch.u, t.Kt1 = ch.K, t.It1 = ch.J, t.Kt2 = std::max(1.0, th.a / (ch.J * ch.K));
      return closed_form_point(pr, m, comm, kRot, order, kA, t, tB + ch.value(),
                               case_id_from_tiles({t.Jt1, t.Kt1, t.It1}));
    }
    case DiskPlacementOrder::ABC: {
      Cycle cy{tB, tC, vI, vJ, th.a, th.b, th.c};
      solve_cycle(cy);
      t.It1 = cy.x, t.Kt1 = cy.K, t.Jt1 = cy.J, t.It2 = cy.u / cy.x;
      return closed_form_point(pr, m, comm, kRot, order, kA, t, tA + cy.value(),
                               case_id_from_tiles({t.It1, t.Kt1, t.Jt1, t.It2}));
    }
    case DiskPlacementOrder::BAC:
      break;
  }
  Cycle cy{tA, tC, vJ, vI, th.b, th.a, th.c};
  solve_cycle(cy);
  t.Jt1 = cy.x, t.Kt1 = cy.K, t.It1 = cy.J, t.Jt2 = cy.u / cy.x;
  return closed_form_point(pr, m, comm, kRot, order, kA, t, tB + cy.value(),
                           case_id_from_tiles({t.Jt1, t.Kt1, t.It1, t.Jt2}));
}

}  // namespace tcec::costmodel::detail
