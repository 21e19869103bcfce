// codegen/generate.cpp — generate(): the stage as the driver runs it (machine checks, plan,
// check_program, emit_program).
#include "codegen/diagnostics.h"

namespace tcec::codegen {

namespace {

/// err_no_machine / err_element_size for `program`, or none.
std::vector<Diagnostic> machine_errors(const ir::Program& program) {
  std::vector<Diagnostic> out;
  if (!program.machine)
    out.push_back(make_diagnostic(program, DiagId::err_no_machine, {}, program.file));
  else if (program.machine->element_size_bytes != tcert::kElementBytes)
    out.push_back(make_diagnostic(program, DiagId::err_element_size, {}, program.machine->name,
                                  program.machine->element_size_bytes));
  return out;
}

}  // namespace

Generated generate(const ir::Program& program, const costmodel::PlanOptions& options, const EmitOptions& emit) {
  Generated out;
  out.diagnostics = machine_errors(program);
  if (!out.diagnostics.empty()) return out;
  return generate(costmodel::make_plan(program, costmodel::machine_from(*program.machine), {false, options}), emit);
}

Generated generate(const costmodel::ProgramPlan& plan, const EmitOptions& emit) {
  const ir::Program& program = *plan.program;
  Generated out;
  out.diagnostics = machine_errors(program);
  if (out.diagnostics.empty() && !plan.machine)
    out.diagnostics.push_back(make_diagnostic(program, DiagId::err_no_machine, {}, program.file));
  if (!out.diagnostics.empty()) return out;
  const costmodel::Machine& machine = *plan.machine;
  const std::vector<costmodel::StatementPlan>& plans = plan.statements;
  out.diagnostics = check_program(program, plans);
  if (!out.diagnostics.empty()) return out;
  out.source = emit_program(program, machine, plans, emit);
  if (emit.form == EmitForm::Library) out.header = emit_library_header(program, machine, plans, emit);
  out.contractions = static_cast<int>(plans.size());
  out.copies = static_cast<int>(program.statements.size() - plans.size());
  return out;
}

}  // namespace tcec::codegen
