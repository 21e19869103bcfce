// codegen/check.cpp — check_program(): the statements code generation cannot run yet.
#include <map>

#include "codegen/diagnostics.h"

namespace tcec::codegen {

namespace {

const costmodel::StatementPlan* plan_of(const std::vector<costmodel::StatementPlan>& plans,
                                        const ir::Statement& s) {
  for (const costmodel::StatementPlan& p : plans)
    if (p.statement == &s) return &p;
  return nullptr;
}

}  // namespace

std::vector<Diagnostic> check_program(const ir::Program& program,
                                      const std::vector<costmodel::StatementPlan>& plans) {
  std::vector<Diagnostic> out;
  std::map<int, ir::SourceLocation> written;  // tensor id -> where the first statement writing it writes it
  auto name = [&](int tensor) { return program.tensors.at(tensor).name; };
  auto chained = [&](DiagId id, const ir::TensorRef& ref) {
    auto w = written.find(ref.tensor);
    if (w == written.end()) return;
    out.push_back(make_diagnostic(id, ref.loc, name(ref.tensor)));
    out.push_back(make_diagnostic(DiagId::note_written_here, w->second, name(ref.tensor)));
  };
  for (const ir::Statement& s : program.statements) {
    if (s.operands.size() != 2) {
      out.push_back(make_diagnostic(DiagId::err_one_operand_statement, s.loc, name(s.result.tensor)));
    } else {
      const std::size_t before = out.size();
      for (const ir::TensorRef& operand : s.operands) chained(DiagId::err_chained_read, operand);
      chained(DiagId::err_chained_write, s.result);
      const costmodel::StatementPlan* plan = plan_of(plans, s);
      TCEC_ASSERT(plan != nullptr, "plan_program plans every two-operand statement");
      if (out.size() == before && !plan->feasible)
        out.push_back(make_diagnostic(DiagId::err_no_feasible_plan, s.loc, plan->reason));
    }
    written.emplace(s.result.tensor, s.result.loc);
  }
  return out;
}

}  // namespace tcec::codegen
