// costmodel/program/copy_cost.cpp — one-operand statements (copies, permuted additions) as the
// runtime's copy_step runs them, and which statements add to an earlier result.
#include "costmodel/costmodel.h"
#include "costmodel/partition.h"
#include "costmodel/program/sequence.h"

namespace tcec::costmodel {

bool accumulates(const ir::Program& program, const ir::Statement& s) {
  bool out = false;
  for (const ir::Statement& earlier : program.statements) {
    if (&earlier == &s) break;
    if (earlier.result.tensor == s.result.tensor) out = s.op != ir::AssignOp::Assign;
  }
  return out;
}

PlanVolumes copy_volumes(const ir::Program& program, const ir::Statement& s, const Machine& machine) {
  const auto n = static_cast<std::int64_t>(program.elements(s.result.tensor));
  const bool accumulate = accumulates(program, s);
  PlanVolumes out;
  for (std::int64_t r = 0; r < machine.processors; ++r) {
    const auto part = static_cast<std::uint64_t>(piece(n, machine.processors, r));
    append_rank(out, 1.0, machine, accumulate ? 2 * part : part, part, 0, 0);
  }
  // An intermediate's version in a store of one directory per node is then completed on every node.
  if (machine.node_local_scratch() && program.tensors[s.result.tensor].role == ir::TensorRole::Intermediate) {
    add_volumes(out, completion_volumes(static_cast<std::uint64_t>(n), machine));
  }
  return out;
}

}  // namespace tcec::costmodel
