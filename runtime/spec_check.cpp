// runtime/spec_check.cpp — check_spec() and step_memory(): a plan's checks and buffers per rank.
#include "runtime/spec_check.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/error.h"
#include "runtime/linear_map.h"
#include "runtime/placement.h"

namespace tcert {

namespace {

using i64 = std::int64_t;

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

/// The most elements of a tensor the spec takes rank to rank (0 when it takes none).
std::uint64_t taken_elements(const GemmSpec& spec) {
  std::uint64_t most = 0;
  for (auto [take, binding] : {std::pair{spec.take_A, &spec.A}, std::pair{spec.take_B, &spec.B},
                               std::pair{spec.take_C && spec.accumulate, &spec.C}})
    if (take) most = std::max(most, binding->shape.elements());
  return most;
}

/// The layouts DistributedGemm builds (its constructor), for the errors they raise.
void check_layouts(const GemmSpec& spec, i64 ranks) {
  const bool rotation = spec.algorithm == Algorithm::Rotation;
  const i64 g = rotation ? rotation_grid_side(ranks) : 1;
  if (rotation && g * g != ranks) throw Error(fmt::format("rotation needs a square number of ranks, not {}", ranks));
  const i64 split = rotation ? g : ranks;
  for (const GroupSpec* group : {&spec.I, &spec.J, &spec.K}) {
    (void)GroupLayout(group->indices, group->dist, 1);
    if (group->dist >= 0) (void)GroupLayout(group->indices, group->dist, split);
  }
}

void check_cosma(const GemmSpec& spec, i64 ranks) {
  const i64 pm = spec.cosma_grid[0], pn = spec.cosma_grid[1], pk = spec.cosma_grid[2];
  const i64 m = product(extents_of(spec.I)), n = product(extents_of(spec.J)), k = product(extents_of(spec.K));
  // Every rank of the grid cuts its K columns (k / pk or one more) into the rounds.
  if (pm < 1 || pn < 1 || pk < 1 || pm * pn * pk > ranks || pm > m || pn > n || pk > k || spec.cosma_rounds < 1 ||
      spec.cosma_rounds > k / pk)
    throw Error(fmt::format("invalid cosma grid {}x{}x{} with {} rounds for {} ranks and m, n, k = {}, {}, {}", pm, pn,
                            pk, spec.cosma_rounds, ranks, m, n, k));
  if (spec.take_A || spec.take_B || spec.take_C || spec.keep_result)
    throw Error("cosma reads its operands from the store and stores its result; it takes and keeps nothing");
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
  if (spec.algorithm == Algorithm::Cosma) {   // rank 0's: the first pieces are the largest
    const i64 pm = spec.cosma_grid[0], pn = spec.cosma_grid[1], pk = spec.cosma_grid[2];
    const auto m = static_cast<std::uint64_t>(ceil_div(product(extents_of(spec.I)), pm));
    const auto n = static_cast<std::uint64_t>(ceil_div(product(extents_of(spec.J)), pn));
    const auto slice = static_cast<std::uint64_t>(ceil_div(ceil_div(product(extents_of(spec.K)), pk), spec.cosma_rounds));
    const std::uint64_t buffers = spec.cosma_rounds > 1 ? 2 : 1;   // double buffering over rounds
    out.parts.push_back({"C block", 8 * m * n, false});
    out.parts.push_back({"A slices", 8 * buffers * m * slice, false});
    out.parts.push_back({"B slices", 8 * buffers * n * slice, false});
  } else {
    out.parts.push_back({"tile of A", 8 * spec.capacity_A, false});
    out.parts.push_back({"tile of B", 8 * spec.capacity_B, false});
    out.parts.push_back({"tile of C", 8 * spec.capacity_C, false});
  }
  std::uint64_t resident = 0, load = 0;
  for (const MemoryPart& p : out.parts) {
    if (p.load_stage) load = std::max(load, p.bytes);
    else resident += p.bytes;
  }
  out.peak_bytes = std::max(resident, load);
  return out;
}

StepMemory check_spec(const GemmSpec& spec, std::int64_t ranks, std::uint64_t memory_bytes) {
  if (spec.algorithm == Algorithm::Cosma) check_cosma(spec, ranks);
  else check_layouts(spec, ranks);
  StepMemory need = step_memory(spec, memory_bytes);
  if (memory_bytes > 0 && need.peak_bytes > memory_bytes)
    throw Error(fmt::format("the plan needs {} bytes per rank ({}) but the memory per rank is {} bytes", need.peak_bytes,
                            parts_text(need), memory_bytes));
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
