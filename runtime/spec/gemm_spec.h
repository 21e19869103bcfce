// runtime/spec/gemm_spec.h — a contraction's plan as constants the compiler writes into the generated
// program (GemmSpec), and the tensor shapes it names. Plain data with no MPI, so the compiler
// can build the very value it emits (codegen gemm_spec()) and tests can hold a plan to the
// runtime's own checks (spec_check.h) without running MPI. Units: elements unless a name says
// bytes.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "runtime/spec/cosma_spec.h"
#include "runtime/spec/gao_spec.h"
#include "runtime/spec/resident_spec.h"
#include "runtime/spec/sfc_spec.h"
#include "runtime/spec/tbs_spec.h"
#include "runtime/spec/tiling.h"
#include "runtime/spec/volumes.h"

namespace tcert {

/// A tensor as the program sees it: its name and stored (row-major) extents, outermost first.
struct TensorShape {
  std::string name;
  std::vector<std::int64_t> extents;
  std::uint64_t elements() const;  ///< product of the extents (1 for a scalar)
};

/// The method's part of a spec, one alternative per executor: the list of methods the runtime
/// runs (a new method adds its part here and its checks beside it: gao_spec.h, cosma_spec.h,
/// tbs_spec.h, sfc_spec.h, resident_spec.h).
using MethodSpec = std::variant<GaoSpec, CosmaSpec, TbsSpec, SfcSpec, ResidentSpec>;

/// One macro-index group (I, J or K): its indices in group order and the position of the
/// distribution index (-1: none; the group is then never split over the grid).
struct GroupSpec {
  std::vector<IndexTiling> indices;
  int dist = -1;
};

/// The extents of a group's indices, in group order (elements).
inline std::vector<std::int64_t> extents_of(const GroupSpec& group) {
  std::vector<std::int64_t> e;
  for (const IndexTiling& x : group.indices) e.push_back(x.extent);
  return e;
}

/// Product of `extents` (1 for none): the group's size in elements.
inline std::int64_t product(const std::vector<std::int64_t>& extents) {
  std::int64_t n = 1;
  for (std::int64_t x : extents) n *= x;
  return n;
}

/// A tensor behind A, B or C: stored shape, and for each position of the GEMM order ([I, K]
/// for A, [J, K] for B, [I, J] for C) the stored dimension holding it (ir::MacroIndexGemm perm).
struct TensorBinding {
  TensorShape shape;
  std::vector<int> perm;
};

/// A plan, as the compiler writes it into the generated program.
struct GemmSpec {
  std::string statement;  ///< the statement's source, for messages and the trace
  std::string plan;       ///< the plan's one-line text (costmodel Plan::to_string)
  /// The method's part: its schedule and buffer sizes (the executor it needs).
  MethodSpec method;
  GroupSpec I, J, K;
  TensorBinding A, B, C;
  double alpha = 1;  ///< coefficient (sign of -= folded in)
  /// C starts from its tensor's current value (an earlier statement of the program wrote it;
  /// `+=` / `-=`) instead of zero.
  bool accumulate = false;
  /// The hand-off (costmodel/sequence.h): A, B, or C's current value (with accumulate) is
  /// kept on the ranks by an earlier step (Run::kept) and taken from there rank to rank into
  /// this plan's layout (move_tensor) instead of read from the store. An operand that is kept
  /// but not taken is first flushed to the store (flush_kept).
  bool take_A = false, take_B = false, take_C = false;
  /// The result stays on the ranks in this plan's C layout for later steps (Run::keep)
  /// instead of being written to the store (no stage 3).
  bool keep_result = false;
  /// Direct tile I/O: the compute stage reads A's (B's) tiles straight from the tensor's
  /// elements (Run::input(): its file in the store, or the input) instead of a tiled copy on
  /// the scratch disk, so stage 1 lays nothing out for it; the same bytes are counted as disk
  /// reads of the compute phase. Only for an operand that is not taken, under a method whose
  /// executor reads its tiles from its own parts only (check_spec() refuses the others).
  bool direct_A = false, direct_B = false;
  /// Direct tile I/O of the result: C's tiles are read and written in the result's new version
  /// in the store (its .npy, mapped; 8 bytes counted per element as for a tiled file), created
  /// in the load stage (with C's current values copied in when accumulating) and committed at
  /// the end, so stage 3 moves nothing. Not with keep_result or take_C, nor under a method
  /// whose collectives move C's files (check_spec() refuses them).
  bool direct_C = false;
  /// The planner's peak memory per rank for this step's buffers, in bytes (costmodel
  /// plan_memory(); 0 = not given). check_spec() refuses a spec whose buffers need more (an
  /// internal error: the planner and the runtime disagree), and the step checks its measured
  /// peak against it when it ends.
  std::uint64_t planned_memory_bytes = 0;
  /// The model's exact compute-phase volumes per rank: disk read, disk write, sent, received
  /// (bytes) and disk requests (counters.h Volumes::disk_requests).
  RankVolumes predicted;
  /// The model's time for those bytes (max over ranks of read/B_dr + write/B_dw + f·recv/B_c), seconds.
  double predicted_seconds = 0;
  /// Gao et al. §2.3 stages 1 and 3 as the program runs them (costmodel redistribution_volumes):
  /// bytes per rank read and written while laying out the operands (from their files, or rank
  /// to rank when taken), storing the result unless kept, and flushing kept operands not
  /// taken; the disk requests per rank of all that (costmodel redistribution_requests(), the
  /// hand-off's moves and flushes counted by costmodel/program/handoff_requests.h; empty only in
  /// programs generated before they were predicted, whose trace then has no such row); and the
  /// model's seconds for them. The disk fields only (kStageVolumeFields; no comm bytes).
  RankVolumes predicted_redistribution;
  double predicted_redistribution_seconds = 0;
};

}  // namespace tcert
