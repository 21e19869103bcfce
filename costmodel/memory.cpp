// costmodel/memory.cpp — plan_memory(): a step's buffers per rank, by part (plan.h).
#include <algorithm>

#include "costmodel/method.h"
#include "costmodel/plan.h"

namespace tcec::costmodel {

namespace {

/// runtime/comm/placement.h handoff_round_bytes(): three buffers (the sender's blocks, the values it
/// sends, the values it receives) of at most one round's 8-byte values, a round being
/// ⌊memory / 24⌋ elements (at least 1) or the whole tensor if smaller.
std::uint64_t handoff_round_bytes(double memory_bytes, std::uint64_t elements) {
  constexpr std::uint64_t kRoundBytesPerElement = 3 * 8;
  const auto round = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(memory_bytes) / kRoundBytesPerElement);
  return kRoundBytesPerElement * std::min(round, elements);
}

}  // namespace

PlanMemory plan_memory(const Plan& plan, const Machine& machine, std::uint64_t taken_elements) {
  PlanMemory out;
  if (taken_elements > 0)
    out.parts.push_back({"hand-off rounds", handoff_round_bytes(machine.memory_bytes, taken_elements), true});
  const TileBytes t = tile_bytes(plan, machine.element_size_bytes);
  for (MemoryPart& part : method_of(plan).memory_parts(plan, t)) out.parts.push_back(std::move(part));
  std::uint64_t resident = 0, load = 0;
  for (const MemoryPart& p : out.parts) {
    if (p.load_stage)
      load = std::max(load, p.bytes);
    else
      resident += p.bytes;
  }
  out.peak_bytes = std::max(resident, load);
  return out;
}

std::uint64_t taken_elements(const Plan& plan, bool take_A, bool take_B, bool take_C) {
  const auto I = static_cast<std::uint64_t>(plan.I.extent()), J = static_cast<std::uint64_t>(plan.J.extent()),
             K = static_cast<std::uint64_t>(plan.K.extent());
  return std::max({take_A ? I * K : 0, take_B ? J * K : 0, take_C ? I * J : 0});
}

}  // namespace tcec::costmodel
