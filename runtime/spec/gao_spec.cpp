// runtime/spec/gao_spec.cpp — the checks, buffers and trace names of a Gao plan's spec (gao_spec.h).
#include "runtime/spec/gao_spec.h"

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/units.h"

namespace tcert {

void check_method(const GaoSpec& part, const GemmSpec& spec, std::int64_t ranks) {
  const bool rotation = part.algorithm == Algorithm::Rotation;
  const std::int64_t g = rotation ? rotation_grid_side(ranks) : 1;
  if (rotation && g * g != ranks) throw Error(fmt::format("rotation needs a square number of ranks, not {}", ranks));
  if ((spec.direct_A && spec.take_A) || (spec.direct_B && spec.take_B))
    throw Error("an operand taken rank to rank is read from its tiled copy, not directly");
  if (spec.direct_C && (spec.take_C || spec.keep_result))
    throw Error("a result taken from or kept on the ranks is not written directly");
  if (spec.direct_C && part.comm == Communication::Outside && part.algorithm == Algorithm::Accumulation)
    throw Error("outside accumulation sums its partial C files disk to disk; it cannot write C directly");
  if ((spec.direct_A || spec.direct_B) && part.comm == Communication::Outside)
    throw Error("outside methods move their operands' files disk to disk; they cannot read them directly");
  const std::int64_t split = rotation ? g : ranks;
  for (const GroupSpec* group : {&spec.I, &spec.J, &spec.K}) {
    (void)GroupLayout(group->indices, group->dist, 1);
    if (group->dist >= 0) (void)GroupLayout(group->indices, group->dist, split);
  }
}

std::vector<MemoryPart> method_buffers(const GaoSpec& part, const GemmSpec&) {
  std::vector<MemoryPart> out = {{"tile of A", bytes_of(part.capacity_A), false},
                                 {"tile of B", bytes_of(part.capacity_B), false},
                                 {"tile of C", bytes_of(part.capacity_C), false}};
  if (part.overlap)
    out.insert(out.end(), {{"second tile of A", bytes_of(part.capacity_A), false},
                           {"second tile of B", bytes_of(part.capacity_B), false},
                           {"second tile of C", bytes_of(part.capacity_C), false}});
  return out;
}

std::pair<const char*, const char*> trace_names(const GaoSpec& part) {
  return {to_string(part.comm), to_string(part.algorithm)};
}

}  // namespace tcert
