// costmodel/methods/gao/model_optimum.h — (private to costmodel/) the model's continuous
// optimum of one method × disk placement order, computed two independent ways:
// closed forms (rotation.cpp, replication.cpp, accumulation.cpp, shared parts in
// model_optimum.cpp) and a numerical minimiser (minimize.cpp) that uses only
// evaluate_model() and the tile constraints.
//
// Units: bytes, bytes per second, seconds. Source: Gao et al. (seed 003) §4–§5,
// Tables 2–7, with the corrections of docs/model.md ("Corrections to Gao et al.'s tables").
//
// Case ids (ModelPoint::case_id). For every method except inside rotation of
// the orders ABC/ACB/BAC/BCA the time is wX·X + wY·Y + const under the one
// binding constraint X·Y >= m of the order, with (X, Y) = (It1, Kt1) for
// ABC/ACB, (Jt1, Kt1) for BAC/BCA and (It1, Jt1) for CAB/CBA; then
//   0  m <= 1: nothing needs tiling, X = Y = 1
//   1  ⟨1⟩ interior: X, Y > 1
//   2  ⟨2⟩ X = 1
//   3  ⟨3⟩ Y = 1
// as in the paper's tables. Inside rotation of ABC/ACB/BAC/BCA couples disk and
// communication; its numbering (a superset, 1 = all interior) is in rotation.cpp.
#pragma once

#include <initializer_list>

#include "costmodel/methods/gao/volumes.h"
#include "costmodel/model.h"

namespace tcec::costmodel {

/// The model (continuous) optimum of one method under one disk placement order:
/// the minimum over real tile counts >= 1 satisfying the memory constraints of
/// time_s = D_read/B_dr + D_write/B_dw + V/B_c (seconds; volumes in bytes per
/// processor), with tiles achieving it and the case id above. Closed forms of
/// Gao et al. Tables 2–7 as corrected in docs/model.md; inside rotation is
/// the true joint optimum of time, not the paper's communication-optimal tiles.
/// Rotation with a non-square P: feasible = false, reason "P = 6 is not a
/// perfect square", time_s = +inf. `replicated` matters for Replication only.
/// Preconditions: A, B, C > 0; bandwidths > 0; M > 0; P >= 1.
ModelPoint model_optimum(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                         PlacementOrder order, Operand replicated);

/// The model value of a method: model_optimum() minimised over the six orders
/// (and, for Replication, over replicating A or B). Ties keep the first in
/// kAllOrders order, A before B. Infeasible only if every candidate is.
ModelPoint best_model_optimum(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm);

/// The same minimum found numerically, independently of the case analysis:
/// two tile counts are searched in log space by nested golden-section search
/// (the problem is a geometric program, convex in log space) and the others
/// are set to the least values the memory constraints allow. Relative precision
/// ~1e-12 in time. case_id is left 0. Same preconditions as model_optimum().
ModelPoint numerical_optimum(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                             PlacementOrder order, Operand replicated);

namespace detail {

/// Times (seconds) of a method whose time depends on the tiles only through the
/// passes: const_s + pass_A_s·passes_A + pass_B_s·passes_B + pass_C_s·passes_C.
struct PassTimes {
  double const_s = 0, pass_A_s = 0, pass_B_s = 0, pass_C_s = 0;
};

/// The optimum of min wX·X + wY·Y subject to X·Y >= m, X, Y >= 1.
struct ProductTradeoff {
  double X = 1, Y = 1;
  double value = 0;  ///< wX·X + wY·Y at the optimum
  int case_id = 0;   ///< 0..3 as in the header comment
};
/// Preconditions: wX, wY >= 0, not both 0; m > 0.
ProductTradeoff minimise_product_tradeoff(double wX, double wY, double m);

/// Closed form for a method with PassTimes (every method but inside rotation
/// of ABC/ACB/BAC/BCA): the order's one binding constraint X·Y >= m, the other
/// tile counts at the least values the other two constraints allow.
ModelPoint pass_form_optimum(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                             PlacementOrder order, Operand replicated, const PassTimes& times);

/// Bytes of evaluate_model() at `tiles`, with time_s = the closed-form value
/// `time_s` (tests check that the two agree) and the given case id.
ModelPoint closed_form_point(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                             PlacementOrder order, Operand replicated, const TileCounts& tiles, double time_s,
                             int case_id);

/// The infeasible point of Rotation on a non-square P (time_s = +inf).
ModelPoint infeasible_point(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                            PlacementOrder order, Operand replicated);

/// A real tile count within this of 1 counts as "at its bound 1" for case ids.
inline constexpr double kAtBoundTolerance = 1e-12;

/// 0 when every listed tile count is 1 (up to kAtBoundTolerance), else 1 + Σ 2^i over the
/// listed counts at 1: the numbering of the header comment for (X, Y), extended
/// to more tile counts for inside rotation.
int case_id_from_tiles(std::initializer_list<double> tile_counts);

/// The per-algorithm closed forms (one file each).
ModelPoint rotation_optimum(const Problem&, const Machine&, Communication, PlacementOrder);
ModelPoint replication_optimum(const Problem&, const Machine&, Communication, PlacementOrder, Operand);
ModelPoint accumulation_optimum(const Problem&, const Machine&, Communication, PlacementOrder);

}  // namespace detail
}  // namespace tcec::costmodel
