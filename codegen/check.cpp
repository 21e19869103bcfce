// codegen/check.cpp — check_program(): what code generation cannot run (no feasible plan, a
// declared distribution).
#include "codegen/diagnostics.h"

namespace tcec::codegen {

namespace {

const costmodel::StatementPlan* plan_of(const std::vector<costmodel::StatementPlan>& plans, const ir::Statement& s) {
  for (const costmodel::StatementPlan& p : plans)
    if (p.statement == &s) return &p;
  return nullptr;
}

}  // namespace

std::vector<Diagnostic> check_program(const ir::Program& program, const std::vector<costmodel::StatementPlan>& plans) {
  std::vector<Diagnostic> out;
  for (const ir::Tensor& t : program.tensors)
    if (t.distribution)
      out.push_back(make_diagnostic(program, DiagId::err_declared_distribution, t.distribution->loc, t.name));
  for (const ir::Statement& s : program.statements) {
    if (s.operands.size() != 2) continue;  // a copy or addition: always runnable
    const costmodel::StatementPlan* plan = plan_of(plans, s);
    TCEC_ASSERT(plan != nullptr, "plan_program plans every two-operand statement");
    if (!plan->feasible) out.push_back(make_diagnostic(program, DiagId::err_no_feasible_plan, s.loc, plan->reason));
  }
  return out;
}

}  // namespace tcec::codegen
