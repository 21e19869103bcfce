// costmodel/report/report.cpp — the dry-run report: text for people, JSON for tools.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/program/resident.h"
#include "costmodel/program/sequence.h"
#include "costmodel/program_plan.h"

namespace tcec::costmodel {

namespace {

std::vector<std::string> names(const ir::Program& p, const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (int i : ids) out.push_back(p.indices.at(i).name);
  return out;
}

std::string machine_text(const Machine& m) {
  return fmt::format(
      "machine: P = {}, memory {} per processor (M = {} per array), B_c = {}/s, B_d = {}/s read, {}/s "
      "write{}, element {} B, f_rep = {}, f_red = {}{}{}, kernel {:g} GFLOP/s{}{}{}{}\n",
      m.processors, human_bytes(m.memory_bytes), human_bytes(m.array_memory_bytes()),
      human_bytes(m.network_bytes_per_s), human_bytes(m.disk_read_bytes_per_s), human_bytes(m.disk_write_bytes_per_s),
      m.disk_mixed_bytes_per_s > 0
          ? fmt::format(", {}/s reading and writing at once", human_bytes(m.disk_mixed_bytes_per_s))
          : std::string(),
      m.element_size_bytes, m.replication_factor, m.reduction_factor,
      m.disk_latency_s > 0 ? fmt::format(", disk latency {:g} s per request", m.disk_latency_s) : std::string(),
      m.page_fault_s > 0 ? fmt::format(", {:g} s per page fault", m.page_fault_s) : std::string(), m.flops_per_s / 1e9,
      m.memory_bytes_per_s > 0 ? fmt::format(" streaming {}/s", human_bytes(m.memory_bytes_per_s)) : std::string(),
      m.overlap < 1 ? fmt::format(", overlap {:g}", m.overlap) : std::string(),
      m.buffered_overlap >= 0 && m.direct_read_bytes > 0
          ? fmt::format(", overlap {:g} for reads through the page cache", m.buffered_overlap)
          : std::string(),
      m.node_local_scratch()
          ? fmt::format(", {} nodes of {} processors, each with node-local scratch{}", m.nodes(), m.ranks_per_node,
                        m.internode_network_bytes_per_s > 0
                            ? fmt::format(", B_c between nodes = {}/s", human_bytes(m.internode_network_bytes_per_s))
                            : std::string())
          : std::string());
}

/// The statement's text block; `sym`: its symmetry blocks' counts (ir::contraction_symmetry()), if any.
std::string statement_text(const ir::Program& p, const ir::Statement& s, double element_size,
                           const std::optional<ir::ContractionSymmetry>& sym) {
  std::string out = fmt::format("{}:{}: {}\n", p.file, s.loc.line, s.source_text);
  if (s.operands.size() != 2) {
    return out + fmt::format("  copy of {} elements ({})\n", p.elements(s.result.tensor),
                             human_bytes(p.elements(s.result.tensor) * element_size));
  }
  auto g = ir::macro_index_gemm(p, s);
  out += fmt::format("  {}\n", ir::format_macro_gemm(p, s, g));
  out += fmt::format("  |I| = {}, |J| = {}, |K| = {}\n", g.extent_I, g.extent_J, g.extent_K);
  out += fmt::format("  A = {} ({}), B = {} ({}), C = {} ({})\n", p.tensors[s.operands[0].tensor].name,
                     human_bytes(g.elements_A * element_size), p.tensors[s.operands[1].tensor].name,
                     human_bytes(g.elements_B * element_size), p.tensors[s.result.tensor].name,
                     human_bytes(g.elements_C * element_size));
  out += fmt::format("  flops = 2·|I|·|J|·|K| = {:.6g}\n", g.flops);
  if (sym)
    out += fmt::format(
        "  symmetry blocks ({}{}; not used by the plan yet, which computes dense): A {}, B {}, C {}; flops {:.6g}, "
        "{:.3g}x fewer\n",
        p.symmetry->name, p.symmetry->restricted ? ", restricted" : "",
        human_bytes(static_cast<double>(sym->stored_A) * element_size),
        human_bytes(static_cast<double>(sym->stored_B) * element_size),
        human_bytes(static_cast<double>(sym->stored_C) * element_size), sym->flops,
        sym->flops > 0 ? g.flops / sym->flops : 0.0);
  return out;
}

/// The flops of a program's contractions over their symmetry blocks and dense (the same
/// contractions: those with counts), and how many contractions have counts and how many not;
/// add() each contraction's counts as the report computes them (once per contraction).
struct SymmetryTotals {
  double flops = 0, dense_flops = 0;
  int counted = 0, dense = 0;
  /// The counts of a contraction of `dense` flops (macro-index GEMM), nullopt when it has none.
  void add(const std::optional<ir::ContractionSymmetry>& sym, double dense) {
    if (!sym) return void(++this->dense);
    flops += sym->flops, dense_flops += dense, ++counted;
  }
};

/// ir::contraction_symmetry() of a two-operand statement; nullopt for a copy step.
std::optional<ir::ContractionSymmetry> symmetry_of(const ir::Program& p, const ir::Statement& s) {
  return s.operands.size() == 2 ? ir::contraction_symmetry(p, s) : std::nullopt;
}

/// The symmetry blocks' counts of a contraction, null when none.
nlohmann::json symmetry_json(const std::optional<ir::ContractionSymmetry>& sym) {
  if (!sym) return nullptr;
  return {{"stored_elements", {{"A", sym->stored_A}, {"B", sym->stored_B}, {"C", sym->stored_C}}},
          {"flops", sym->flops}};
}

std::string point_row(const ModelPoint& p, const ContractionAnalysis& a) {
  if (!p.feasible) return fmt::format("    {:<26} infeasible: {}\n", p.method->report.row_name(p), p.reason);
  return p.method->report.row_text(p, a);
}

std::string analysis_text(const ContractionAnalysis& a, const Machine& machine, const ReportOptions& options) {
  std::string out;
  for (const Method* m : methods()) out += m->report.analysis_note(a);
  out += "  methods (model optimum over real tile counts; Gao et al. Tables 2-7, corrected):\n";
  out += fmt::format("    {:<26} {:<5} {:>4} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10} {:>10} {:>11}\n", "method",
                     "order", "case", "It1", "It2", "Jt1", "Jt2", "Kt1", "Kt2", "V", "D", "time (s)");
  if (!options.all_candidates) {
    for (const ModelPoint& p : a.methods) out += point_row(p, a);
  } else {
    for (const Candidate& c : a.candidates) {
      out += point_row(c.row, a);
      const PlannedCandidate& pc = c.plan;
      out += pc.feasible ? fmt::format("      integer plan: {:.5g} s  {}\n", pc.volumes.time_s, pc.plan.to_string())
                         : fmt::format("      integer plan: none ({})\n", pc.reason);
    }
  }
  // One choice: the plan generated programs run (the least total time, compute stage and
  // stages 1 and 3; or the pinned plan), and why it beat the runner-up.
  out += "  " + choice_text(a) + "\n";
  if (!a.plan().feasible) return out + plan_text(a, machine);
  const MethodReport& chosen = report_of(a.plan().plan);
  const double moved = moved_bytes(a.plan().plan, a.plan().volumes, machine);  // exact, the fullest rank
  out += fmt::format(
      "  lower bound on data moved per rank (COSMA Theorem 1): {}; chosen moves {} ({} + V + disk writes), {:.3f}x\n",
      human_bytes(a.lower_bound_bytes_per_rank), human_bytes(moved), chosen.moved_label(),
      moved / a.lower_bound_bytes_per_rank);
  return out + plan_text(a, machine);
}

nlohmann::json analysis_json(const ContractionAnalysis& a, const Machine& machine, const ReportOptions& options) {
  nlohmann::json j;
  j["lower_bound_bytes_per_rank"] = a.lower_bound_bytes_per_rank;
  j["methods"] = nlohmann::json::array();
  for (const ModelPoint& p : a.methods) j["methods"].push_back(p.method->report.row_json(p, a));
  if (options.all_candidates) {
    j["candidates"] = nlohmann::json::array();
    for (const Candidate& c : a.candidates) {
      nlohmann::json row = c.row.method->report.row_json(c.row, a);
      const PlannedCandidate& pc = c.plan;  // its integer plan, as the text's "integer plan:" line
      row["integer_plan"] = pc.feasible ? nlohmann::json{{"feasible", true},
                                                         {"text", pc.plan.to_string()},
                                                         {"time_s", pc.volumes.time_s},
                                                         {"wall_s", pc.volumes.wall_s},
                                                         {"total_time_s", pc.total_s()}}
                                        : nlohmann::json{{"feasible", false}, {"reason", pc.reason}};
      j["candidates"].push_back(std::move(row));
    }
  }
  j["chosen"] = chosen_json(a);
  j["fastest_row"] = a.fastest_row.feasible ? a.fastest_row.method->report.row_json(a.fastest_row, a) : nullptr;
  for (const Method* m : methods()) m->report.analysis_json(a, j);
  j["plan"] = plan_json(a, machine);
  return j;
}

nlohmann::json machine_json(const Machine& m) {
  return {{"processors", m.processors},
          {"memory_bytes", m.memory_bytes},
          {"array_memory_bytes", m.array_memory_bytes()},
          {"network_bytes_per_s", m.network_bytes_per_s},
          {"disk_read_bytes_per_s", m.disk_read_bytes_per_s},
          {"disk_write_bytes_per_s", m.disk_write_bytes_per_s},
          {"element_size_bytes", m.element_size_bytes},
          {"replication_factor", m.replication_factor},
          {"reduction_factor", m.reduction_factor},
          {"disk_latency_s", m.disk_latency_s},
          {"page_fault_s", m.page_fault_s},
          {"flops_per_s", m.flops_per_s},
          {"memory_bytes_per_s", m.memory_bytes_per_s},
          {"overlap", m.overlap},
          {"ranks_per_node", m.ranks_per_node},
          {"internode_network_bytes_per_s",
           m.internode_network_bytes_per_s > 0 ? m.internode_network_bytes_per_s : m.network_bytes_per_s},
          {"nodes", m.nodes()},
          {"direct_read_bytes", m.direct_read_bytes},
          {"disk_mixed_bytes_per_s", m.disk_mixed_bytes_per_s},
          {"buffered_overlap", m.buffered_overlap < 0 ? m.overlap : m.buffered_overlap}};
}

nlohmann::json contraction_json(const ir::Program& p, const ir::Statement& s, double element_size,
                                const std::optional<ir::ContractionSymmetry>& sym) {
  auto g = ir::macro_index_gemm(p, s);
  const auto bytes_per = static_cast<std::uint64_t>(element_size);
  return {{"statement", s.source_text},
          {"line", s.loc.line},
          {"I", names(p, g.I)},
          {"J", names(p, g.J)},
          {"K", names(p, g.K)},
          {"extents", {{"I", g.extent_I}, {"J", g.extent_J}, {"K", g.extent_K}}},
          {"tensors",
           {{"A", p.tensors[s.operands[0].tensor].name},
            {"B", p.tensors[s.operands[1].tensor].name},
            {"C", p.tensors[s.result.tensor].name}}},
          {"elements", {{"A", g.elements_A}, {"B", g.elements_B}, {"C", g.elements_C}}},
          {"bytes", {{"A", g.bytes_A(bytes_per)}, {"B", g.bytes_B(bytes_per)}, {"C", g.bytes_C(bytes_per)}}},
          {"flops", g.flops},
          {"symmetry", symmetry_json(sym)},
          {"permutation", {{"A", g.perm_A}, {"B", g.perm_B}, {"C", g.perm_C}}}};
}

}  // namespace

Machine machine_from(const ir::MachineDesc& d) {
  Machine m;
  m.processors = d.processors;
  m.memory_bytes = static_cast<double>(d.memory_bytes);
  m.network_bytes_per_s = d.network_bytes_per_s;
  m.disk_read_bytes_per_s = d.disk_read_bytes_per_s;
  m.disk_write_bytes_per_s = d.disk_write_bytes_per_s;
  m.element_size_bytes = static_cast<double>(d.element_size_bytes);
  m.replication_factor = d.replication_factor;
  m.reduction_factor = d.reduction_factor;
  m.disk_latency_s = d.disk_latency_s;
  m.page_fault_s = d.page_fault_s;
  m.flops_per_s = d.flops_per_s;
  m.memory_bytes_per_s = d.memory_bytes_per_s;
  m.overlap = d.overlap;
  m.ranks_per_node = d.ranks_per_node;
  m.internode_network_bytes_per_s = d.internode_network_bytes_per_s;
  m.direct_read_bytes = d.direct_read_bytes;
  m.disk_mixed_bytes_per_s = d.disk_mixed_bytes_per_s;
  m.buffered_overlap = d.buffered_overlap;
  return m;
}

namespace {

/// The grid of a declared distribution on the machine's P (as declared without a machine).
std::vector<std::int64_t> grid_of(const ir::Distribution& d, const std::optional<Machine>& machine) {
  return machine ? d.grid_for(machine->processors) : d.grid;
}

/// "declared distributions (Gao et al. §2.3): A dimension 2 in 4 blocks; C dimensions 1, 2 on a
/// 2x2 grid" (empty when none is declared).
std::string distributions_text(const ir::Program& program, const std::optional<Machine>& machine) {
  std::string out;
  for (const ir::Tensor& t : program.tensors) {
    if (!t.distribution) continue;
    const std::vector<std::int64_t> grid = grid_of(*t.distribution, machine);
    std::vector<int> dims;
    for (int d : t.distribution->dims) dims.push_back(d + 1);
    out += fmt::format("{}{} dimension{} {} {}", out.empty() ? "" : "; ", t.name, dims.size() > 1 ? "s" : "",
                       fmt::join(dims, ", "),
                       grid.empty()       ? "over a grid chosen from P"
                       : grid.size() == 1 ? fmt::format("in {} blocks", grid[0])
                                          : fmt::format("on a {} grid", fmt::join(grid, "x")));
  }
  return out.empty() ? out : "declared distributions (Gao et al. §2.3, balanced blocks): " + out + "\n";
}

}  // namespace

namespace {

/// Bytes that all ranks together send to ranks of other nodes (PlanVolumes::internode_sent_bytes),
/// as the program runs: the compute stages and stages 1 and 3 (with the hand-off's moves and
/// flushes and the store's completions) of the plans in plan.statements, and the copy steps.
struct Crossing {
  std::uint64_t compute = 0, stages = 0, copies = 0;
  std::uint64_t total() const { return compute + stages + copies; }
};
Crossing crossing_of(const ProgramPlan& plan) {
  auto sum = [](const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); };
  Crossing out;
  for (const StatementPlan& sp : plan.statements)
    if (sp.feasible)
      out.compute += sum(sp.volumes.internode_sent_bytes), out.stages += sum(sp.redistribution.internode_sent_bytes);
  const HandoffSequence* handoff = plan.analysis && plan.analysis->handoff.used ? &plan.analysis->handoff : nullptr;
  for (std::size_t i = 0; i < plan.program->statements.size(); ++i) {
    const ir::Statement& s = plan.program->statements[i];
    if (s.operands.size() == 2) continue;
    out.copies += sum(copy_volumes(*plan.program, s, *plan.machine).internode_sent_bytes);
    if (handoff && i < handoff->steps.size())  // the kept tensors flushed for the copy, completed on every node
      out.copies += sum(handoff->steps[i].flush.internode_sent_bytes);
  }
  return out;
}

std::string crossing_text(const ProgramPlan& plan) {
  const Crossing c = crossing_of(plan);
  return fmt::format(
      "\nbytes that cross nodes ({} nodes of {} processors; sent by all ranks): {} ({}): compute stages {}, "
      "stages 1 and 3 {}, copy steps {}\n",
      plan.machine->nodes(), plan.machine->ranks_per_node, c.total(), human_bytes(static_cast<double>(c.total())),
      c.compute, c.stages, c.copies);
}

}  // namespace

std::string dry_run_text(const ProgramPlan& plan) {
  const ir::Program& program = *plan.program;
  const std::optional<Machine>& machine = plan.machine;
  const ReportOptions& options = plan.options;
  std::string out =
      machine ? machine_text(*machine) : "machine: none (add a machine block or --machine FILE to plan)\n";
  out += distributions_text(program, machine);
  const double e = machine ? machine->element_size_bytes : static_cast<double>(tcert::kElementBytes);
  const std::vector<std::optional<ContractionAnalysis>> none(program.statements.size());
  const std::vector<std::optional<ContractionAnalysis>>& analyses = plan.analysis ? plan.analysis->analyses : none;
  double total_s = 0;  // sum of the chosen plans' and the copies' predicted times
  double bound_s = 0;  // sum of the planned contractions' I/O lower bounds
  int planned = 0, unplanned = 0, copies = 0;
  SymmetryTotals symmetry;
  for (std::size_t i = 0; i < program.statements.size(); ++i) {
    const ir::Statement& s = program.statements[i];
    const std::optional<ir::ContractionSymmetry> sym = symmetry_of(program, s);
    if (s.operands.size() == 2) symmetry.add(sym, ir::macro_index_gemm(program, s).flops);
    out += "\n";  // two appends: "\n" + string trips GCC 12's -Wrestrict false positive here
    out += statement_text(program, s, e, sym);
    if (machine && s.operands.size() != 2) {
      const PlanVolumes v = copy_volumes(program, s, *machine);
      out += fmt::format("  copy step: per rank disk read {} .. {} B, disk write {} .. {} B; {:.5g} s\n",
                         v.disk_read_bytes.back(), v.disk_read_bytes.front(), v.disk_write_bytes.back(),
                         v.disk_write_bytes.front(), v.time_s);
      total_s += v.time_s;
      ++copies;
    }
    if (analyses[i]) {
      const ContractionAnalysis& a = *analyses[i];
      out += analysis_text(a, *machine, options);
      if (a.plan().feasible) {
        total_s += a.plan().total_s();
        bound_s += io_bound(a, *machine).time_s;
        ++planned;
      } else {
        ++unplanned;
      }
    }
  }
  if (program.symmetry) {
    const SymmetryTotals& t = symmetry;
    out +=
        fmt::format("\nsymmetry blocks ({}{}): {:.6g} flops over {} contractions, of {:.6g} dense ({:.3g}x fewer){}\n",
                    program.symmetry->name, program.symmetry->restricted ? ", restricted" : "", t.flops, t.counted,
                    t.dense_flops, t.flops > 0 ? t.dense_flops / t.flops : 0.0,
                    t.dense > 0 ? fmt::format("; {} more with a dense tensor, not counted", t.dense) : "");
  }
  if (machine && machine->nodes() > 1) out += crossing_text(plan);
  if (machine && planned + unplanned + copies > 1) {
    out += fmt::format(
        "\ntotal predicted time: {:.5g} s over {} contractions (compute stages and redistribution) "
        "and {} copy steps{}\n",
        total_s, planned, copies,
        unplanned ? fmt::format(" ({} more without a feasible plan, not counted)", unplanned) : "");
    out += fmt::format(
        "I/O lower bound: {:.5g} s, the sum of the contractions' (copy steps count 0; each "
        "contraction's operands read from and result written to files); total / bound {:.3f}x\n",
        bound_s, bound_s > 0 ? total_s / bound_s : 0.0);
    out += program_writes_text(program_writes(program, *machine, analyses));
    const std::vector<ResidentGroup>& groups = plan.analysis->resident;
    out += resident_text(groups, program, resident_program_writes(program, *machine, analyses, groups));
    out += handoff_text(plan.analysis->handoff, *machine);
  }
  return out;
}

nlohmann::json dry_run_json(const ProgramPlan& plan) {
  const ir::Program& program = *plan.program;
  const std::optional<Machine>& machine = plan.machine;
  const ReportOptions& options = plan.options;
  nlohmann::json out;
  out["file"] = program.file;
  out["machine"] = machine ? machine_json(*machine) : nlohmann::json(nullptr);
  out["contractions"] = nlohmann::json::array();
  out["copies"] = nlohmann::json::array();
  const double e = machine ? machine->element_size_bytes : static_cast<double>(tcert::kElementBytes);
  double total_s = 0;  // the chosen plans' and the copies' predicted times (contractions without a plan add nothing)
  double bound_s = 0;  // the planned contractions' I/O lower bounds
  SymmetryTotals symmetry;  // the contractions' symmetry blocks, summed
  const std::vector<std::optional<ContractionAnalysis>> none(program.statements.size());
  const std::vector<std::optional<ContractionAnalysis>>& analyses = plan.analysis ? plan.analysis->analyses : none;
  for (std::size_t i = 0; i < program.statements.size(); ++i) {
    const ir::Statement& s = program.statements[i];
    if (s.operands.size() == 2) {
      const std::optional<ir::ContractionSymmetry> sym = symmetry_of(program, s);
      symmetry.add(sym, ir::macro_index_gemm(program, s).flops);
      nlohmann::json c = contraction_json(program, s, e, sym);
      if (analyses[i]) {
        const ContractionAnalysis& a = *analyses[i];
        c.update(analysis_json(a, *machine, options));
        if (a.plan().feasible) total_s += a.plan().total_s(), bound_s += io_bound(a, *machine).time_s;
      }
      out["contractions"].push_back(c);
    } else {
      nlohmann::json copy = {
          {"statement", s.source_text}, {"line", s.loc.line}, {"elements", program.elements(s.result.tensor)}};
      if (machine) {
        const PlanVolumes v = copy_volumes(program, s, *machine);
        copy["disk_read_bytes"] = v.disk_read_bytes;
        copy["disk_write_bytes"] = v.disk_write_bytes;
        copy["time_s"] = v.time_s;
        total_s += v.time_s;
      }
      out["copies"].push_back(copy);
    }
  }
  out["total_predicted_time_s"] = machine ? nlohmann::json(total_s) : nlohmann::json(nullptr);
  if (machine && machine->nodes() > 1) {
    const Crossing c = crossing_of(plan);
    out["internode_sent_bytes"] = {
        {"compute", c.compute}, {"stages", c.stages}, {"copies", c.copies}, {"total", c.total()}};
  }
  out["io_lower_bound_s"] = machine ? nlohmann::json(bound_s) : nlohmann::json(nullptr);
  out["program_writes"] =
      machine ? program_writes_json(program_writes(program, *machine, analyses)) : nlohmann::json(nullptr);
  out["handoff"] = nullptr;
  if (machine) {
    const std::vector<ResidentGroup>& groups = plan.analysis->resident;
    out["handoff"] = handoff_json(plan.analysis->handoff, *machine);
    const nlohmann::json resident = resident_json(groups, program);
    if (!resident.empty()) {  // only where groups compete (resident.h)
      out["resident"] = resident;
      out["resident_program_writes"] =
          program_writes_json(resident_program_writes(program, *machine, analyses, groups));
    }
  }
  // The program itself, for tools that evaluate it independently (tests/e2e/npy_check.py).
  out["tensors"] = nlohmann::json::object();
  for (const ir::Tensor& t : program.tensors) {
    nlohmann::json shape = nlohmann::json::array();
    for (int range : t.dims) shape.push_back(program.ranges.at(range).extent);
    out["tensors"][t.name] = {{"shape", shape}, {"role", ir::to_string(t.role)}};
    if (t.distribution)
      out["tensors"][t.name]["distribution"] = {{"dims", t.distribution->dims},
                                                {"grid", grid_of(*t.distribution, machine)}};
    if (program.symmetry) {  // its symmetry blocks' declaration (ir.h Tensor)
      nlohmann::json ranges = nlohmann::json::array();
      for (int range : t.dims) ranges.push_back(program.ranges.at(range).name);
      out["tensors"][t.name]["symmetry"] = {
          {"ranges", ranges}, {"upper", t.upper_dims()}, {"irrep", t.irrep}, {"dense", t.dense}};
      if (t.antisymmetric) out["tensors"][t.name]["symmetry"]["antisymmetric"] = *t.antisymmetric;  // not the rule
    }
  }
  if (program.symmetry) {
    nlohmann::json irreps = nlohmann::json::object();
    for (const ir::Range& r : program.ranges) irreps[r.name] = r.irreps;
    const SymmetryTotals& t = symmetry;
    out["symmetry"] = {{"point_group", program.symmetry->name},
                       {"restricted", program.symmetry->restricted},
                       {"irreps", irreps},
                       {"flops", t.flops},
                       {"dense_flops", t.dense_flops},
                       {"contractions", t.counted},
                       {"dense_contractions", t.dense}};
  }
  out["statements"] = nlohmann::json::array();
  for (const auto& s : program.statements) out["statements"].push_back(ir::format_statement(program, s));
  return out;
}

}  // namespace tcec::costmodel
