// costmodel/program_plan.cpp — make_plan(): a whole program's plan computed once (costmodel.h
// ProgramPlan), plan_program(), plan_lines() and the --plan pins (pin_plans()).
#include "costmodel/program_plan.h"
#include "costmodel/methods/plans.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace tcec::costmodel {

namespace {

/// What each two-operand statement runs, from the analyses, the groups and the hand-off.
std::vector<StatementPlan> statement_plans(const ir::Program& program, const Machine& machine,
                                           const ProgramAnalysis& pa) {
  const std::vector<std::optional<ContractionAnalysis>>& store = pa.analyses;
  const std::vector<ResidentGroup>& groups = pa.resident;
  // Resident accumulation groups run in place of their statements' plans, and a program with
  // one runs no hand-off (the groups read every tensor from the store).
  std::vector<std::optional<std::pair<const ResidentGroup*, std::size_t>>> resident(program.statements.size());
  for (const ResidentGroup& g : groups)
    for (std::size_t q = 0; q < g.statements.size() && g.chosen; ++q) resident[g.statements[q]] = std::pair{&g, q};
  const HandoffSequence* seq = pa.handoff.used ? &pa.handoff : nullptr;
  std::vector<StatementPlan> out;
  for (std::size_t i = 0; i < program.statements.size(); ++i) {
    if (!store[i]) continue;
    if (resident[i]) {  // a step of a resident accumulation
      const auto [g, q] = *resident[i];
      StatementPlan sp;
      sp.statement = &program.statements[i];
      sp.gemm = store[i]->gemm;
      sp.feasible = true;
      const Groups tiling = groups_from(program, sp.gemm);
      sp.plan.processors = machine.processors;
      sp.plan.I = tiling.I, sp.plan.J = tiling.J, sp.plan.K = tiling.K;
      sp.resident = g->steps[q];
      sp.volumes = g->volumes[q];
      const std::vector<std::uint64_t> none(static_cast<std::size_t>(machine.processors), 0);
      sp.redistribution.disk_read_bytes = sp.redistribution.disk_write_bytes = none;
      sp.redistribution.comm_sent_bytes = sp.redistribution.comm_recv_bytes = none;
      sp.redistribution.disk_requests = none;
      if (machine.nodes() > 1) sp.redistribution.internode_sent_bytes = sp.redistribution.internode_recv_bytes = none;
      sp.memory = g->memory[q];
      out.push_back(std::move(sp));
      continue;
    }
    const PlannedCandidate& chosen = seq ? seq->steps[i].plan : store[i]->plan();
    StatementPlan sp;
    sp.statement = &program.statements[i];
    sp.gemm = store[i]->gemm;
    sp.feasible = chosen.feasible;
    sp.reason = chosen.reason;
    sp.plan = chosen.plan;
    sp.volumes = chosen.volumes;
    sp.redistribution = chosen.redistribution;
    if (seq) {
      const HandoffStep& step = seq->steps[i];
      if (!step.flushed.empty()) add_volumes(sp.redistribution, step.flush);
      sp.take_A = step.take_A, sp.take_B = step.take_B, sp.take_C = step.take_C, sp.keep_result = step.result_kept;
      sp.taken = step.taken, sp.flushed = step.flushed;
      sp.memory = step.memory;
    } else if (sp.feasible) {
      sp.memory = plan_memory(sp.plan, machine);
    }
    if (sp.feasible && model_of(sp.plan).reads_operands_directly(sp.plan))
      sp.direct_A = !sp.take_A, sp.direct_B = !sp.take_B;
    sp.direct_C = sp.feasible && !sp.take_C && !sp.keep_result && model_of(sp.plan).writes_result_directly(sp.plan);
    if (sp.feasible) {  // how the compute stage reaches the arrays decides its disk requests
      ArrayAccess access{sp.direct_A, sp.direct_B, sp.direct_C, {}, {}, {}};
      if (sp.direct_A) access.perm_A = sp.gemm.perm_A;
      if (sp.direct_B) access.perm_B = sp.gemm.perm_B;
      if (sp.direct_C) access.perm_C = sp.gemm.perm_C;
      plan_requests(sp.plan, machine, access, sp.volumes);
      if (store[i]->declared.any())  // declared layouts: moved rank to rank, not predicted (model only)
        sp.redistribution.disk_requests.clear();
      else  // through the files, and the hand-off's moves and flushes
        handoff_stage_requests(seq ? seq->steps[i] : HandoffStep{}, sp.plan, sp.gemm, store[i]->accumulate, machine,
                               sp.redistribution);
    }
    // An intermediate written to a store of one directory per node is completed on every node.
    const ir::Tensor& result = program.tensors[sp.statement->result.tensor];
    if (sp.feasible && machine.node_local_scratch() && !sp.keep_result && result.role == ir::TensorRole::Intermediate)
      add_volumes(sp.redistribution, completion_volumes(program.elements(sp.statement->result.tensor), machine));
    out.push_back(std::move(sp));
  }
  return out;
}

/// The two-operand statements at source line `line` (indices into program.statements).
std::vector<std::size_t> contractions_at(const ir::Program& program, int line) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < program.statements.size(); ++i)
    if (program.statements[i].loc.line == line && program.statements[i].operands.size() == 2) out.push_back(i);
  return out;
}

}  // namespace

ProgramPlan make_plan(const ir::Program& program, const std::optional<Machine>& machine, const ReportOptions& options) {
  ProgramPlan out;
  out.program = &program;
  out.machine = machine;
  out.options = options;
  if (!machine) return out;
  const PlanOptions& po = options.plan;
  auto pa = std::make_shared<ProgramAnalysis>();
  for (const ir::Statement& s : program.statements)
    pa->analyses.push_back(s.operands.size() == 2 ? std::optional(analyze(program, s, *machine, po)) : std::nullopt);
  pa->resident = plan_resident(program, *machine, po, pa->analyses);
  pa->handoff = plan_handoff(program, *machine, po, pa->analyses);
  if (machine->node_local_scratch() && pa->handoff.handoffs > 0)  // resident groups read every tensor from the store
    for (ResidentGroup& g : pa->resident) g.chosen = false;
  pa->handoff.resident =
      std::any_of(pa->resident.begin(), pa->resident.end(), [](const ResidentGroup& g) { return g.chosen; });
  pa->handoff.used = po.handoff && !pa->handoff.resident;
  out.statements = statement_plans(program, *machine, *pa);
  out.analysis = std::move(pa);
  return out;
}

std::vector<StatementPlan> plan_program(const ir::Program& program, const Machine& machine,
                                        const PlanOptions& options) {
  return make_plan(program, machine, {false, options}).statements;
}

std::string plan_lines(const ProgramPlan& plan) {
  std::string out;
  for (const StatementPlan& sp : plan.statements) {
    const int line = sp.statement->loc.line;
    if (sp.resident)
      out += fmt::format("{}=resident accumulation step (split dimension {}, chunk {}{}{})\n", line,
                         sp.resident->split + 1, sp.resident->chunk, sp.resident->first ? ", first" : "",
                         sp.resident->last ? ", last" : "");
    else if (!sp.feasible)
      out += fmt::format("{}=none ({})\n", line, sp.reason);
    else
      out += fmt::format("{}={}\n", line, sp.plan.to_string());
  }
  return out;
}

std::vector<PinError> pin_plans(const ir::Program& program, const Machine& machine,
                                const std::vector<std::string>& texts, PlanOptions* options) {
  std::vector<PinError> errors;
  for (const std::string& text : texts) {
    const std::size_t eq = text.find('=');
    int line = 0;
    const char* end = text.data() + (eq == std::string::npos ? 0 : eq);
    const auto [ptr, ec] = std::from_chars(text.data(), end, line);
    if (eq == std::string::npos || ec != std::errc() || ptr != end || line <= 0) {
      errors.push_back(
          {{0, 0}, fmt::format("--plan expects LINE=PLAN (a source line and a plan's text), got '{}'", text)});
      continue;
    }
    const std::vector<std::size_t> at = contractions_at(program, line);
    if (at.size() != 1) {
      errors.push_back({{line, 1},
                        at.empty() ? fmt::format("--plan {}: no contraction (two-operand statement) "
                                                 "at line {}",
                                                 line, line)
                                   : fmt::format("--plan {}: line {} holds {} contractions (a product "
                                                 "split into binary steps); a pin needs one",
                                                 line, line, at.size())});
      continue;
    }
    const ir::Statement& s = program.statements[at[0]];
    const ir::MacroIndexGemm gemm = ir::macro_index_gemm(program, s);
    const Groups groups = groups_from(program, gemm);
    std::string error;
    std::optional<Plan> plan = parse_plan(std::string_view(text).substr(eq + 1), groups.I, groups.J, groups.K, &error);
    if (plan && !check_valid(*plan, machine, &error)) plan.reset();
    if (plan) {
      const Method& m = method_of(*plan);
      const bool accumulate = accumulates(program, s);
      if (plan->accumulate != accumulate)
        error = accumulate ? "the statement adds to an earlier result: the plan needs C0=current"
                           : "C0=current, but the statement's result starts from zero",
        plan.reset();
      else if (std::holds_alternative<TbsPlan>(plan->method) && !gemm.symmetric)
        error = "tbs multiplies symmetric products (C[I,J] = A[I,K] * A[J,K]) only", plan.reset();
      else if (!m.has_layout && declared_layouts(program, s, machine.processors).any())
        error = fmt::format("{} has no rank layout, and the statement's tensors have declared distributions", m.name),
        plan.reset();
    }
    if (!plan) {
      errors.push_back({s.loc, fmt::format("--plan {}: {}", line, error)});
      continue;
    }
    auto& pins = options->pins;
    pins.erase(std::remove_if(pins.begin(), pins.end(), [&](const PinnedPlan& p) { return p.line == line; }),
               pins.end());
    pins.push_back({line, *plan});
  }
  return errors;
}

}  // namespace tcec::costmodel
