// codegen/generate.cpp — generate(): the stage as the driver runs it (machine checks, plan,
// check_program, emit_program).
#include "codegen/diagnostics.h"

namespace tcec::codegen {

Generated generate(const ir::Program& program, const costmodel::PlanOptions& options, const EmitOptions& emit) {
  Generated out;
  if (!program.machine) {
    out.diagnostics.push_back(make_diagnostic(program, DiagId::err_no_machine, {}, program.file));
    return out;
  }
  if (program.machine->element_size_bytes != 8) {
    out.diagnostics.push_back(make_diagnostic(program, DiagId::err_element_size, {}, program.machine->name,
                                              program.machine->element_size_bytes));
    return out;
  }
  const costmodel::Machine machine = costmodel::machine_from(*program.machine);
  const std::vector<costmodel::StatementPlan> plans = costmodel::plan_program(program, machine, options);
  out.diagnostics = check_program(program, plans);
  if (!out.diagnostics.empty()) return out;
  out.source = emit_program(program, machine, plans, emit);
  if (emit.form == EmitForm::Library) out.header = emit_library_header(program, machine, plans, emit);
  out.contractions = static_cast<int>(plans.size());
  out.copies = static_cast<int>(program.statements.size() - plans.size());
  return out;
}

}  // namespace tcec::codegen
