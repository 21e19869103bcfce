// costmodel/methods/gao/volumes.h — the model's volume expressions for given (real) tile
// counts: disk read/write bytes, communication bytes and time per processor
// for one method × disk placement order, plus the tile (memory) constraints.
//
// Reader's map:
//   LoopNestCounts, loop_nest_counts()   passes and tile counts of one order (Fig. 3(b))
//   MethodVolumes, method_volumes()      per-pass / per-tile / one-time bytes of one method
//   TileThresholds, tile_thresholds()    a, b, c: least tile counts of A, B, C (memory)
//   evaluate_model(), fits_memory()      the two things callers want
//
// Units: bytes, bytes per second, seconds. Problem::A/B/C are bytes and
// M = Machine::array_memory_bytes(). Source: Gao et al. (seed 003) §3–§5 with
// the corrections of docs/model.md.
#pragma once

#include <cstdint>
#include <string>

#include "costmodel/model.h"

namespace tcec::costmodel {

/// What the loop nest of one disk placement order does with given tile counts
/// (Gao et al. Fig. 3(b) after clean-up; notes "How many passes"):
///   ABC: It1,Kt1 → A; Jt1 → B; It2 → C      CAB: It1,Jt1 → C; Kt1 → A; Jt2 → B
///   ACB: It1,Kt1 → A; Jt1,It2 → C; Kt2 → B  CBA: It1,Jt1 → C; Kt1 → B; It2 → A
///   BAC/BCA mirror ABC/ACB (swap A↔B, I↔J).
struct LoopNestCounts {
  double passes_A = 1, passes_B = 1, passes_C = 1;  ///< times each array is streamed in full
  double tiles_I = 1, tiles_J = 1;                  ///< I and J tile counts (rotation shifts)
  double cuts_A = 1, cuts_B = 1, cuts_C = 1;        ///< tiles each array is cut into (memory)
};

/// Passes, tile counts and array cuts of `order` for `tiles`. Pure; no preconditions.
LoopNestCounts loop_nest_counts(PlacementOrder order, const TileCounts& tiles);

/// The volume coefficients of one method, per processor, in bytes
/// (Gao et al. §4–§5; table "Per-pass volumes per processor" of the notes).
/// Disk read = one_time_read + Σ_X read_per_pass_X · passes_X;
/// disk write = one_time_write + write_per_pass_C · passes_C;
/// V = one_time_comm + Σ_X comm_per_pass_X · passes_X
///     + comm_per_tile_I · tiles_I + comm_per_tile_J · tiles_J.
struct MethodVolumes {
  double read_per_pass_A = 0, read_per_pass_B = 0, read_per_pass_C = 0;
  double write_per_pass_C = 0;
  double comm_per_pass_A = 0, comm_per_pass_B = 0, comm_per_pass_C = 0;  ///< inside repl./accum.
  double comm_per_tile_I = 0, comm_per_tile_J = 0;                       ///< inside rotation
  double one_time_read = 0, one_time_write = 0, one_time_comm = 0;       ///< outside: D1 and V
};

/// The coefficients of `comm` × `algorithm` (`replicated` matters for
/// Replication only: the broadcast operand). Precondition: processors >= 1.
/// For Rotation with a non-square P the √P-based values are returned anyway;
/// evaluate_model() is what reports the method infeasible.
MethodVolumes method_volumes(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                             Operand replicated);

/// Least tile counts (dimensionless) of A, B and C: an array's tile, in bytes,
/// divided by the number of ranks sharing that tile must fit M:
///   Rotation and Accumulation: A/(MP), B/(MP); C/(MP) (Rotation), C/M (Accumulation);
///   Replication of A: A/M, B/(MP), C/(MP); of B: A/(MP), B/M, C/(MP).
/// Source: Gao et al. Eqs. 4.1–4.3, 4.6–4.8, 4.11–4.13.
struct TileThresholds {
  double a = 0, b = 0, c = 0;
};
TileThresholds tile_thresholds(const Problem& problem, const Machine& machine, Algorithm algorithm, Operand replicated);

/// True when P is a perfect square (Cannon's √P×√P grid). Precondition: P >= 1.
bool is_perfect_square(std::int64_t processors);

/// The model at given real tile counts (each >= 1; not checked here, see
/// fits_memory()): per-processor disk read/write bytes, communication bytes V
/// (collective factors included) and time_s = D_read/B_dr + D_write/B_dw + V/B_c.
/// Outside methods include the one-time D1 and V. For Rotation with a non-square
/// P, feasible = false with reason "P = 6 is not a perfect square" (the volumes
/// are still filled in). case_id is left 0. Preconditions: bandwidths > 0.
ModelPoint evaluate_model(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                          PlacementOrder order, Operand replicated, const TileCounts& tiles);

/// The same with the coefficients already computed (used by minimisers, which
/// evaluate one method many times). Fills the bytes and time only.
ModelPoint evaluate_volumes(const MethodVolumes& volumes, const Machine& machine, PlacementOrder order,
                            const TileCounts& tiles);

/// True when every tile count is >= 1 and each array's cut count reaches its
/// threshold (tile_thresholds()), up to a relative slack of 1e-12 for real
/// tile counts computed as quotients. On false, `reason` (if given) names the
/// failing array or tile count with the numbers.
bool fits_memory(const Problem& problem, const Machine& machine, Algorithm algorithm, PlacementOrder order,
                 Operand replicated, const TileCounts& tiles, std::string* reason = nullptr);

}  // namespace tcec::costmodel
