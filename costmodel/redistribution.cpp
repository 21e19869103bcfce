// costmodel/redistribution.cpp — Gao et al. §2.3 stages 1 and 3 as tcec's programs run them.
#include <algorithm>

#include "costmodel/cosma.h"
#include "costmodel/partition.h"
#include "costmodel/plan.h"

namespace tcec::costmodel {

namespace {

using u64 = std::uint64_t;

/// Elements of `group` held by part p of g (p < 0 or g == 1: all of it).
u64 share(const GroupTiling& group, std::int64_t g, std::int64_t p) {
  return static_cast<u64>(p < 0 ? group.extent() : group_share(group, g, p));
}

/// Elements of A and B a rank lays out (its disk parts), and of C it holds (its part of the result).
struct LocalElements {
  u64 operands = 0, C = 0;
  bool owns_C = false;   // holds final values of C (stage 3 writes them)
};

LocalElements local_elements(const Plan& plan, std::int64_t rank) {
  LocalElements out;
  if (plan.algorithm == Algorithm::Cosma) {
    const CosmaRankWords w =
        cosma_rank_words(plan.cosma, plan.I.extent(), plan.J.extent(), plan.K.extent(), rank);
    out.C = w.write;                  // its piece of C
    out.operands = w.read - w.write;  // its pieces of every A and B slice
    out.owns_C = rank < plan.cosma.used();
    return out;
  }
  const GridParts parts = grid_parts(plan);
  const RankParts rp = rank_parts(plan, rank);
  out.operands = share(plan.I, parts.A.rows, rp.A_rows) * share(plan.K, parts.A.cols, rp.A_cols) +
                 share(plan.J, parts.B.rows, rp.B_rows) * share(plan.K, parts.B.cols, rp.B_cols);
  out.owns_C = plan.algorithm != Algorithm::Accumulation || rank == 0;
  out.C = out.owns_C ? share(plan.I, parts.C.rows, rp.C_rows) * share(plan.J, parts.C.cols, rp.C_cols) : 0;
  return out;
}

}  // namespace

PlanVolumes redistribution_volumes(const Plan& plan, const Machine& machine, bool accumulate) {
  Plan disk_only = plan;   // rank_time_s: reads and writes only (nothing is received)
  PlanVolumes out;
  for (std::int64_t rank = 0; rank < plan.processors; ++rank) {
    const LocalElements e = local_elements(plan, rank);
    // Stage 1: read the parts (and C's current values when accumulating), write the tiled files.
    // Stage 3: read the result's part back, write it to the result's file.
    const u64 stage1 = e.operands + (accumulate ? e.C : 0), stage3 = e.C;
    append_rank(out, disk_only, machine, stage1 + stage3, stage1 + stage3, 0, 0);
  }
  return out;
}

}  // namespace tcec::costmodel
