// costmodel/redistribution.cpp — Gao et al. §2.3 stages 1 and 3 as tcec's programs run them,
// and as declared distributions (layout.h) would.
#include <algorithm>
#include <optional>

#include "costmodel/cosma.h"
#include "costmodel/layout.h"
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
  u64 A = 0, B = 0, C = 0;
  /// Cosma: elements of C's old values read into the C block (kept in memory, not written);
  /// the other methods lay their part of C out on disk instead (read and written). Set for
  /// cosma only, whose result part also stays in memory until stage 3 writes it.
  std::optional<u64> C_start;
  /// Cosma: elements of A and B written to the local disk (the rounds that stream); the
  /// other methods write all they lay out.
  std::optional<u64> spilled;
  bool owns_C = false;   // holds final values of C (stage 3 writes them)
};

LocalElements local_elements(const Plan& plan, std::int64_t rank) {
  LocalElements out;
  if (plan.algorithm == Algorithm::Cosma) {
    const CosmaGrid& g = plan.cosma;
    const CosmaRankWords w = cosma_rank_words(g, plan.I.extent(), plan.J.extent(), plan.K.extent(), rank);
    out.C = w.result;    // its piece of C
    out.A = w.owned;     // its pieces of every A and B slice (cosma has no declared layouts)
    out.spilled = w.read;
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
  out.A = share(plan.I, parts.A.rows, rp.A_rows) * share(plan.K, parts.A.cols, rp.A_cols);
  out.B = share(plan.J, parts.B.rows, rp.B_rows) * share(plan.K, parts.B.cols, rp.B_cols);
  out.owns_C = plan.algorithm != Algorithm::Accumulation || rank == 0;
  out.C = out.owns_C ? share(plan.I, parts.C.rows, rp.C_rows) * share(plan.J, parts.C.cols, rp.C_cols) : 0;
  return out;
}

}  // namespace

PlanVolumes redistribution_volumes(const Plan& plan, const Machine& machine, bool accumulate,
                                   const DeclaredLayouts* declared) {
  const auto P = static_cast<std::size_t>(plan.processors);
  std::vector<u64> read(P), write(P), sent(P), recv(P);   // elements
  // Moves between a declared layout and the plan's (layout.h), added to the rank counts.
  auto move = [&](const TensorLayout& from, const TensorLayout& to) {
    const Exchange x = exchange(from, to, plan.processors);
    for (std::size_t r = 0; r < P; ++r) {
      read[r] += x.read[r];
      write[r] += x.write[r];
      sent[r] += x.sent[r];
      recv[r] += x.recv[r];
    }
  };
  const bool has_A = declared && declared->A, has_B = declared && declared->B, has_C = declared && declared->C;
  // C's current values from the ranks (declared, or kept there by an earlier step); the
  // result to its declared layout, or left where the plan computed it (C_stays).
  const TensorLayout* C_from = !declared ? nullptr : declared->C_in ? &*declared->C_in : has_C ? &*declared->C : nullptr;
  const bool start_moved = accumulate && C_from, result_moved = has_C || (declared && declared->C_stays);
  if (has_A) move(*declared->A, plan_layout(plan, GemmArray::A, declared->names_A));
  if (has_B) move(*declared->B, plan_layout(plan, GemmArray::B, declared->names_B));
  if (start_moved || has_C) {
    const TensorLayout result = plan_layout(plan, GemmArray::C, declared->names_C);
    if (start_moved) move(*C_from, result);
    if (has_C) move(result, *declared->C);
  }
  Plan plain = plan;   // rank_time_s: point-to-point moves, no collective factor
  plain.algorithm = Algorithm::Rotation;
  PlanVolumes out;
  for (std::size_t rank = 0; rank < P; ++rank) {
    const LocalElements e = local_elements(plan, static_cast<std::int64_t>(rank));
    // From and to the store: stage 1 reads the parts (and C's current values when
    // accumulating) and writes the tiled files; stage 3 reads the result's part back (cosma:
    // from memory) and writes it to the result's file.
    const u64 operands = (has_A ? 0 : e.A) + (has_B ? 0 : e.B);
    const u64 laid_out = e.spilled ? *e.spilled : operands;
    const u64 start_read = !accumulate || start_moved ? 0 : e.C_start ? *e.C_start : e.C;
    const u64 start_write = !accumulate || start_moved || e.C_start ? 0 : e.C;
    const u64 result = result_moved ? 0 : e.C, result_read = e.C_start ? 0 : result;
    append_rank(out, plain, machine, read[rank] + operands + start_read + result_read,
                write[rank] + laid_out + start_write + result, sent[rank], recv[rank]);
  }
  return out;
}

}  // namespace tcec::costmodel
