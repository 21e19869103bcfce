// costmodel/methods/gao/gao.h — (private) what the six methods of Gao et al. share: their
// plan part (gao_plan.h) read from a Plan, the process grid and each rank's parts of A, B and
// C (Table 1), tile buffers, validity and text form, and the registry entries (gao_method.cpp).
// Units: elements for parts and extents, bytes for buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/method.h"
#include "costmodel/plan.h"

namespace tcec::costmodel {

/// The Gao part of `plan`. Precondition: plan.method holds a GaoPlan.
inline const GaoPlan& gao(const Plan& plan) { return std::get<GaoPlan>(plan.method); }
inline GaoPlan& gao(Plan& plan) { return std::get<GaoPlan>(plan.method); }

/// "inside-rotation", …, "outside-accumulation".
std::string method_name(Communication comm, Algorithm algorithm);

/// Grid parts of each group for an array under the plan's algorithm: how many
/// parts the group is split into for that array's storage on disk (1 = whole).
///   Rotation (g = √P):  A: I g, K g;  B: J g, K g;  C: I g, J g
///   Replication of A:   A: K P (pieces; gathered to whole tiles);  B: J P;  C: J P
///   Replication of B:   mirror;   Accumulation: A: K P;  B: K P;  C: whole (rank 0)
struct ArrayParts {
  std::int64_t rows = 1, cols = 1;  ///< parts of the row group and of the column group
};
struct GridParts {
  ArrayParts A, B, C;
  std::int64_t grid_rows = 1, grid_cols = 1;  ///< process grid (√P×√P for Rotation, else P×1)
};
GridParts grid_parts(const Plan& plan);

/// Which part of each group rank `rank` holds (row-major on the grid) before
/// the compute stage; -1 where the array keeps the group whole. Rotation stores
/// A and B pre-skewed: rank (r,c) holds A(r, (r+c) mod g) and B(c, (r+c) mod g).
struct RankParts {
  std::int64_t A_rows = -1, A_cols = -1, B_rows = -1, B_cols = -1, C_rows = -1, C_cols = -1;
};
RankParts rank_parts(const Plan& plan, std::int64_t rank);

/// Tile buffer bytes per array on the fullest rank (the capacity the runtime allocates): max
/// over tiles of the rank's blocks; for Rotation, the cycled operands' blocks are sized for
/// the largest K part they will hold; the broadcast operand is whole in memory.
TileBytes gao_tile_bytes(const Plan& plan, double element_size_bytes);

/// Rotation only on a square P, every tile count valid (1 <= t1 <= n, 1 <= t2 <= n/t1), only
/// the levels the order uses tiled at a second level, the groups that must be split have a
/// distribution index whose every level-2 part is at least the grid dimension, and the tiles
/// fit memory (fits_memory_exact()). P is checked by the caller (plan.h check_valid()).
bool gao_check_valid(const Plan& plan, const Machine& machine, std::string* reason);

/// "inside-rotation order=CAB P=4 I=a:2x1,b:1x1 J=d:4x1 K=p:3x1 dist=a,d,p split=optimal";
/// replication adds "bcast=A|B"; an empty group is written "I=-"; a group not split over the
/// grid has "-" in dist.
std::string gao_plan_text(const Plan& plan);

/// Exact per-rank compute-stage bytes of ranks first … end-1 in closed form: loop counts of
/// the order times each rank's share of every array (uneven parts counted exactly), plus the
/// method's collectives (ring all-gather, recursive-doubling all-reduce, Cannon shifts;
/// runtime/comm/comm.h) (plan_volumes.cpp).
PlanVolumes gao_volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank, std::int64_t end_rank);

/// Exact compute-stage disk requests of every rank (plan.h PlanVolumes::disk_requests), the
/// arrays reached as `access` says: block visits by the passes of the order, plus the chunked
/// file collectives of the outside methods (requests.cpp).
std::vector<std::uint64_t> gao_requests(const Plan& plan, const ArrayAccess& access);
/// Exact disk requests of stages 1 and 3 of every rank (MethodModel::stage_requests()), requests.cpp:
/// per block of the rank's parts (runtime TiledMatrix::fill and for_each, one transfer each),
/// the runs of adjacent elements it reads from or writes to the tensor's file, plus one
/// request for the block's tiled copy; C's start values copied into a direct C's new file count
/// their runs twice (read and written). `direct_operands`: A and B are read by the compute stage
/// straight from their files (no stage-1 layout).
std::vector<std::uint64_t> gao_stage_requests(const Plan& plan, const StageAccess& access, bool direct_operands);
/// The registry entries of the six methods (inside, outside) × (rotation, replication,
/// accumulation), in that order.
const std::vector<const Method*>& gao_methods();

}  // namespace tcec::costmodel
