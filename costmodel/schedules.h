// costmodel/schedules.h — the methods' schedules as data, the public face code generation
// prints them from, so that the program it emits is the one the cost model counted:
//   Gao et al.'s tiled loop nest of a disk placement order (§3, Fig. 3(b) after the notes'
//     clean-up; defined in methods/gao/loop_nest.cpp, walked by methods/gao/simulate.cpp);
//   sfc's tiles in curve order cut into the ranks' segments (methods/sfc/sfc_walk.cpp, which
//     also walks them: methods/sfc/sfc_walk.h);
//   tbs's triangle-block family dealt to the ranks (methods/tbs/family.cpp; Beaumont et al.,
//     SPAA'22, §5.1), which the runtime runs block for block (runtime/spec/tbs_spec.h THE SCHEDULE).
// Units: elements (rows and tiles of C are flat I and J indices).
#pragma once

#include <array>
#include <cstdint>
#include <variant>
#include <vector>

#include "costmodel/plan.h"

namespace tcec::costmodel {

// ---- Gao et al.: the loop nest of a disk placement order ----

/// A tiling loop: over level-1 or level-2 tiles of I, J or K.
enum class LoopVar { I1, I2, J1, J2, K1, K2 };

/// What happens at a level of the nest. Reads bring the array's tile for the
/// loop variables bound so far (a level-1 tile of a group whose level-2 loop is
/// not yet bound, else one finest tile); Compute multiplies the finest blocks
/// C(i,j) += A(i,k)·B(j,k)ᵀ of the bound variables; WriteC writes C's tile back.
enum class Action { ReadA, ReadB, ReadC, Compute, WriteC };

/// One level: loops over `vars` (outer first), then `before` in the body, then
/// the next level, then `after` (still inside this level's loops).
struct LoopLevel {
  std::vector<LoopVar> vars;
  std::vector<Action> before;
  std::vector<Action> after;
};

/// The three levels of `order`:
///   ABC: [I1 K1: read A] [J1: read B] [I2: read C, compute, write C]
///   ACB: [I1 K1: read A] [J1 I2: read C | write C] [K2: read B, compute]
///   BAC: [J1 K1: read B] [I1: read A] [J2: read C, compute, write C]
///   BCA: [J1 K1: read B] [I1 J2: read C | write C] [K2: read A, compute]
///   CAB: [I1 J1: read C | write C] [K1: read A] [J2: read B, compute]
///   CBA: [I1 J1: read C | write C] [K1: read B] [I2: read A, compute]
/// Loop variables that do not appear have one iteration.
std::vector<LoopLevel> loop_nest(PlacementOrder order);

/// Whether `order` loops over level-2 tiles of I, J and K (index 0, 1, 2):
/// ABC, CBA: I;  ACB: I and K;  BAC, CAB: J;  BCA: J and K. A plan's level-2
/// counts of the other groups are 1.
std::array<bool, 3> second_levels(PlacementOrder order);

const char* to_string(LoopVar v);  ///< "I1", …
const char* to_string(Action a);   ///< "read A", …

// ---- sfc: the curve's order and the ranks' segments ----

/// The sfc part of `plan`. Precondition: plan.method holds an SfcPlan.
inline const SfcPlan& sfc_plan(const Plan& plan) { return std::get<SfcPlan>(plan.method); }

/// The tiles (t = ti·tiles_J + tj) in curve order, and the segments of a layer's g = P/c ranks:
/// rank r (layer x = r / g, position q = r mod g) walks order[segment[q]] ..
/// order[segment[q + 1] − 1]; segment[q] is the first position whose elements of C before it
/// come nearest to q/g of all (ties: the earlier). segment has g + 1 entries.
struct SfcSchedule {
  std::vector<std::int64_t> order, segment;
};
/// Precondition: the plan's grid fits |I| and |J|. (The last result is kept per thread.)
SfcSchedule sfc_schedule(const Plan& plan);

// ---- tbs: the triangle-block family dealt to the ranks ----

/// One triangle block TB(R_0 ∪ … ∪ R_{k-1}) (Beaumont et al. Definition 3.5 with tiles as
/// rows): C[R_u, R_v] for u > v, and with `diagonal` the lower triangles of C[R_u, R_u] too
/// (a leaf of the recursion on the diagonal zones). Ranges ascend and do not overlap.
/// A `stream` block (runtime/spec/tbs_spec.h) instead keeps R_0 in memory, all K columns, and
/// streams R_1 … past it: it computes C[R_u, R_0] for u >= 1 only, one tile at a time.
struct TbsBlock {
  std::int64_t rank = 0;
  bool diagonal = false;
  std::vector<std::int64_t> starts, lengths;
  bool stream = false;
  /// Σ lengths: the A rows the block reads (its panel's rows).
  std::int64_t rows() const;
  /// Elements of its C block: Σ_{u>v} len_u·len_v, plus Σ len_u² when diagonal; a stream
  /// block's largest tile, len_0·max len_u.
  std::int64_t block_elements() const;
  /// Multiply-adds per K column: Σ_{u>v} len_u·len_v, plus Σ len_u(len_u+1)/2 when diagonal; a
  /// stream block's Σ_{u>=1} len_u·len_0.
  std::int64_t pairs() const;
  /// Elements it writes to C's file: each computed tile and its mirror, plus Σ len_u² when
  /// diagonal.
  std::int64_t written() const;
};

/// The family of an n-row problem with C blocks of at most `block_words` elements, dealt to
/// `processors` ranks; the buffers each rank allocates.
struct TbsSchedule {
  std::vector<TbsBlock> blocks;
  std::int64_t panel_rows = 0;       ///< max rows() over the triangle blocks
  std::int64_t stream_elements = 0;  ///< max (len_0 + max len_u)·|K| over the stream blocks
  std::int64_t block_elements = 0;   ///< max block_elements() over blocks
  /// Rows of the A panel buffer for panels of `chunk` K columns: panel_rows, or more when a
  /// stream block needs more (runtime TbsSpec::panel_rows).
  std::int64_t buffer_rows(std::int64_t chunk) const;
};

/// The tbs part of `plan`. Precondition: plan.method holds a TbsPlan.
inline const TbsPlan& tbs_plan(const Plan& plan) { return std::get<TbsPlan>(plan.method); }
/// The plan's family dealt to its ranks: the family of |I| rows with C blocks of block_words
/// elements over P ranks, streamed as the plan says (methods/tbs/family.h tbs_schedule()).
TbsSchedule tbs_schedule(const Plan& plan);

}  // namespace tcec::costmodel
