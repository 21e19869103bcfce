// runtime/spec/spec_check.cpp — check_spec() and step_memory(): a plan's checks and buffers per rank.
#include "runtime/spec/spec_check.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/base/error.h"

namespace tcert {

namespace {

using i64 = std::int64_t;

/// The most elements of a tensor the spec takes rank to rank (0 when it takes none).
std::uint64_t taken_elements(const GemmSpec& spec) {
  std::uint64_t most = 0;
  for (auto [take, binding] : {std::pair{spec.take_A, &spec.A}, std::pair{spec.take_B, &spec.B},
                               std::pair{spec.take_C && spec.accumulate, &spec.C}})
    if (take) most = std::max(most, binding->shape.elements());
  return most;
}

}  // namespace

std::int64_t rotation_grid_side(std::int64_t ranks) {
  i64 g = 1;
  while ((g + 1) * (g + 1) <= ranks) ++g;
  return g;
}

StepMemory step_memory(const GemmSpec& spec, std::uint64_t memory_bytes) {
  StepMemory out;
  if (const std::uint64_t taken = taken_elements(spec); taken > 0)
    out.parts.push_back({"hand-off rounds", handoff_round_bytes(memory_bytes, taken), true});
  for (MemoryPart& part : std::visit([&](const auto& m) { return method_buffers(m, spec); }, spec.method))
    out.parts.push_back(std::move(part));
  out.peak_bytes = step_peak_bytes(out.parts);
  return out;
}

StepMemory check_spec(const GemmSpec& spec, std::int64_t ranks, std::uint64_t memory_bytes) {
  std::visit([&](const auto& m) { check_method(m, spec, ranks); }, spec.method);
  StepMemory need = step_memory(spec, memory_bytes);
  if (memory_bytes > 0 && need.peak_bytes > memory_bytes)
    throw Error(fmt::format("the plan needs {} bytes per rank ({}) but the memory per rank is {} bytes",
                            need.peak_bytes, parts_text(need), memory_bytes));
  if (spec.planned_memory_bytes > 0 && need.peak_bytes > spec.planned_memory_bytes)
    throw Error(fmt::format("internal error: the plan said {} bytes per rank but the step needs {} ({})",
                            spec.planned_memory_bytes, need.peak_bytes, parts_text(need)));
  return need;
}

std::string parts_text(const StepMemory& memory) {
  std::vector<std::string> resident, load;
  for (const MemoryPart& p : memory.parts)
    (p.load_stage ? load : resident).push_back(fmt::format("{} {}", p.what, p.bytes));
  std::string out = fmt::format("{}", fmt::join(resident, " + "));
  if (!load.empty()) out += fmt::format("; {} (load stage)", fmt::join(load, ", "));
  return out;
}

}  // namespace tcert
