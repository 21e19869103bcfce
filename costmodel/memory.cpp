// costmodel/memory.cpp — plan_memory(): a step's buffers per rank, by part (plan.h).
#include <algorithm>

#include "costmodel/method_model.h"
#include "costmodel/plan.h"
#include "runtime/spec/step_memory.h"

namespace tcec::costmodel {

PlanMemory plan_memory(const Plan& plan, const Machine& machine, std::uint64_t taken_elements) {
  PlanMemory out;
  if (taken_elements > 0)
    out.parts.push_back({"hand-off rounds",
                         tcert::handoff_round_bytes(static_cast<std::uint64_t>(machine.memory_bytes), taken_elements),
                         true});
  const TileBytes t = tile_bytes(plan, machine.element_size_bytes);
  for (MemoryPart& part : model_of(plan).memory_parts(plan, t)) out.parts.push_back(std::move(part));
  out.peak_bytes = tcert::step_peak_bytes(out.parts);
  return out;
}

std::uint64_t taken_elements(const Plan& plan, bool take_A, bool take_B, bool take_C) {
  const auto I = static_cast<std::uint64_t>(plan.I.extent()), J = static_cast<std::uint64_t>(plan.J.extent()),
             K = static_cast<std::uint64_t>(plan.K.extent());
  return std::max({take_A ? I * K : 0, take_B ? J * K : 0, take_C ? I * J : 0});
}

}  // namespace tcec::costmodel
