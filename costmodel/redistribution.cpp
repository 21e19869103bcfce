// costmodel/redistribution.cpp — Gao et al. §2.3 stages 1 and 3 as tcec's programs run them.
#include <algorithm>
#include <optional>

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
  /// Cosma: elements of C's old values read into the C block (kept in memory, not written);
  /// the other methods lay their part of C out on disk instead (read and written).
  std::optional<u64> C_start;
  bool owns_C = false;   // holds final values of C (stage 3 writes them)
};

LocalElements local_elements(const Plan& plan, std::int64_t rank) {
  LocalElements out;
  if (plan.algorithm == Algorithm::Cosma) {
    const CosmaGrid& g = plan.cosma;
    const CosmaRankWords w = cosma_rank_words(g, plan.I.extent(), plan.J.extent(), plan.K.extent(), rank);
    out.C = w.write;         // its piece of C
    out.operands = w.read;   // its pieces of every A and B slice
    out.owns_C = rank < g.used();
    out.C_start = 0;
    if (out.owns_C && rank % g.pk == 0) {   // rank (x,y,0) starts its C block from C's old values
      const std::int64_t x = rank / (g.pn * g.pk), y = rank / g.pk % g.pn;
      out.C_start = static_cast<u64>(piece(plan.I.extent(), g.pm, x) * piece(plan.J.extent(), g.pn, y));
    }
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
    const u64 start_read = !accumulate ? 0 : e.C_start ? *e.C_start : e.C;
    const u64 start_write = !accumulate || e.C_start ? 0 : e.C;
    append_rank(out, disk_only, machine, e.operands + start_read + e.C, e.operands + start_write + e.C, 0, 0);
  }
  return out;
}

}  // namespace tcec::costmodel
