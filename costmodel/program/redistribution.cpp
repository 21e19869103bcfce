// costmodel/program/redistribution.cpp — Gao et al. §2.3 stages 1 and 3 as tcec's programs run them,
// and as declared distributions (layout.h) would.
#include <algorithm>
#include <optional>

#include "costmodel/method_model.h"
#include "costmodel/plan.h"
#include "costmodel/program/layout.h"

namespace tcec::costmodel {

namespace {

using u64 = std::uint64_t;

}  // namespace

PlanVolumes redistribution_volumes(const Plan& plan, const Machine& machine, bool accumulate,
                                   const DeclaredLayouts* declared) {
  const auto P = static_cast<std::size_t>(plan.processors);
  std::vector<u64> read(P), write(P), sent(P), recv(P), sent_apart(P), recv_apart(P);  // elements
  // Moves between a declared layout and the plan's (layout.h), added to the rank counts.
  auto move = [&](const TensorLayout& from, const TensorLayout& to) {
    const Exchange x = exchange(from, to, machine);
    for (std::size_t r = 0; r < P; ++r) {
      read[r] += x.read[r];
      write[r] += x.write[r];
      sent[r] += x.sent[r];
      recv[r] += x.recv[r];
      sent_apart[r] += x.sent_apart[r];
      recv_apart[r] += x.recv_apart[r];
    }
  };
  const bool has_A = declared && declared->A, has_B = declared && declared->B, has_C = declared && declared->C;
  // C's current values from the ranks (declared, or kept there by an earlier step); the
  // result to its declared layout, or left where the plan computed it (C_stays).
  const TensorLayout* C_from = !declared        ? nullptr
                               : declared->C_in ? &*declared->C_in
                               : has_C          ? &*declared->C
                                                : nullptr;
  const bool start_moved = accumulate && C_from, result_moved = has_C || (declared && declared->C_stays);
  if (has_A) move(*declared->A, plan_layout(plan, GemmArray::A, declared->names_A));
  if (has_B) move(*declared->B, plan_layout(plan, GemmArray::B, declared->names_B));
  if (start_moved || has_C) {
    const TensorLayout result = plan_layout(plan, GemmArray::C, declared->names_C);
    if (start_moved) move(*C_from, result);
    if (has_C) move(result, *declared->C);
  }
  const MethodModel& method = model_of(plan);
  const bool direct_C = writes_result_directly(plan, declared);
  PlanVolumes out;
  for (std::size_t rank = 0; rank < P; ++rank) {
    const StageElements e = method.stage_elements(plan, static_cast<std::int64_t>(rank));
    // From and to the store: stage 1 reads the parts (and C's current values when
    // accumulating) and writes the tiled files; stage 3 reads the result's part back (from
    // memory when the method keeps it there) and writes it to the result's file.
    const u64 operands = (has_A ? 0 : e.A) + (has_B ? 0 : e.B);
    const u64 laid_out = e.spilled ? *e.spilled : operands;
    const u64 start_read = !accumulate || start_moved ? 0 : e.C_start ? *e.C_start : e.C;
    const u64 start_write = !accumulate || start_moved || e.C_start ? 0 : e.C;
    // A result written directly into its file needs no stage 3 (its start values, when
    // accumulating, are copied into the new file in stage 1, read and written as before).
    const u64 result = result_moved || direct_C ? 0 : e.C, result_read = e.C_start ? 0 : result;
    append_rank(out, 1.0, machine,  // point-to-point moves: no collective factor
                read[rank] + operands + start_read + result_read, write[rank] + laid_out + start_write + result,
                sent[rank], recv[rank], {sent_apart[rank], recv_apart[rank]});
  }
  return out;
}

}  // namespace tcec::costmodel
