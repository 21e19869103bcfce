// costmodel/analysis.cpp — run every method of the registry on one contraction and choose
// the cheapest plan (method_model.h MethodAnalysis holds the rules of the choice).
#include "costmodel/analysis.h"
#include "costmodel/methods/plans.h"
#include "costmodel/program/resident.h"
#include "costmodel/program/sequence.h"
#include "costmodel/reasons.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace tcec::costmodel {

namespace {

/// Sets the disk requests of stages 1 and 3 (and, with a disk latency, their time) of a step
/// that reaches its tensors through their files; clears them for a candidate with declared or
/// kept layouts (plan_program() counts the chosen hand-off's moves, sequence.h).
void add_stage_requests(const Plan& plan, const ir::MacroIndexGemm& gemm, const Machine& machine, bool through_files,
                        StageAccess stages, PlanVolumes& redistribution) {
  if (!through_files) return redistribution.disk_requests.clear();
  stages.perm_A = gemm.perm_A, stages.perm_B = gemm.perm_B, stages.perm_C = gemm.perm_C;
  redistribution_requests(plan, machine, stages, redistribution);
}

/// Sets the plan's disk requests (and, with a disk latency, its time) as a lone step runs it
/// (lone_step_access()). plan_program() recounts them with the hand-off's choices.
void add_requests(const ContractionAnalysis& a, const Machine& machine, PlannedCandidate& plan) {
  const ArrayAccess access = lone_step_access(a, plan.plan);
  plan_requests(plan.plan, machine, access, plan.volumes);
  add_stage_requests(plan.plan, a.gemm, machine, !a.declared.any(), {{}, {}, {}, a.accumulate, access.direct_C, true},
                     plan.redistribution);
}

std::atomic<std::uint64_t> analyses_count{0};

}  // namespace

ArrayAccess lone_step_access(const ContractionAnalysis& a, const Plan& plan) {
  ArrayAccess access;
  access.direct_A = access.direct_B = model_of(plan).reads_operands_directly(plan);
  access.direct_C = writes_result_directly(plan, &a.declared);
  if (access.direct_A) access.perm_A = a.gemm.perm_A, access.perm_B = a.gemm.perm_B;
  if (access.direct_C) access.perm_C = a.gemm.perm_C;
  return access;
}

ModelPoint candidate_row(const ContractionAnalysis& a, const Plan& plan) {
  const Method& m = method_of(plan);
  const GaoPlan* g = std::get_if<GaoPlan>(&plan.method);
  for (const Candidate& c : a.candidates) {
    if (c.row.method != &m) continue;
    if (!g || (c.row.comm == g->comm && c.row.algorithm == g->algorithm && c.row.order == g->order &&
               (g->algorithm != Algorithm::Replication || c.row.replicated == g->replicated)))
      return c.row;
  }
  for (const ModelPoint& row : a.methods)
    if (row.method == &m) return row;
  ModelPoint row;
  row.method = &m;
  return row;
}

namespace {

/// Replaces the choice by the pinned plan (PlanOptions::pins), keeping the planner's choice for
/// the report. The pin was checked against the machine (pin_plans()); with layouts kept by an
/// earlier step (the hand-off variant) a method without a TensorLayout is infeasible.
void apply_pin(ContractionAnalysis& a, const Plan& pinned, const Machine& machine) {
  const Method& m = method_of(pinned);
  Candidate c{candidate_row(a, pinned), {}};
  PlannedCandidate& pc = c.plan;
  pc.plan = pinned;
  if (a.declared.any() && !m.has_layout) {
    pc.reason = reason_text(ReasonId::pinned_without_layout, m.name);
  } else {
    pc.feasible = true;
    pc.volumes = plan_volumes(pinned, machine);
    pc.redistribution = redistribution_volumes(pinned, machine, a.accumulate, m.has_layout ? &a.declared : nullptr);
    add_requests(a, machine, pc);
  }
  a.pinned = std::move(c);
}

}  // namespace

std::uint64_t analyses_run() { return analyses_count.load(); }

const Plan* PlanOptions::pinned(int line) const {
  for (const PinnedPlan& p : pins)
    if (p.line == line) return &p.plan;
  return nullptr;
}

bool MethodAnalysis::allows(std::optional<PlacementOrder> order) const {
  return options_.allows_method(method_.name) && (!options_.force_order || order == options_.force_order);
}

bool MethodAnalysis::forced() const { return options_.force_method && *options_.force_method == method_.name; }

void MethodAnalysis::add_row(ModelPoint row) {
  row.method = &method_;
  const std::vector<std::string>& excluded = options_.exclude_methods;
  if (std::find(excluded.begin(), excluded.end(), method_.name) != excluded.end()) return;
  a_.methods.push_back(row);
  if (row.feasible && (!a_.fastest_row.feasible || row.time_s < a_.fastest_row.time_s)) a_.fastest_row = row;
}

void MethodAnalysis::add_candidate(ModelPoint row, const PlannedCandidate& given, bool allowed) {
  const Method& m = method_;
  row.method = &m;
  PlannedCandidate plan = given;
  if (plan.feasible && allowed) add_requests(a_, machine_, plan);  // with their latency, if any
  a_.candidates.push_back({row, plan});
  auto family =
      std::find_if(a_.family_plans.begin(), a_.family_plans.end(), [&](const auto& f) { return f.first == m.family; });
  if (family == a_.family_plans.end()) {
    PlannedCandidate none;
    none.reason = reason_text(ReasonId::no_candidate_allowed);
    a_.family_plans.emplace_back(m.family, none);
    family = a_.family_plans.end() - 1;
  }
  const bool is_forced = forced();
  if (!allowed) {
    if (is_forced && options_.force_order && !m.has_order)
      a_.no_choice.plan.reason =
          reason_text(ReasonId::force_order_without_orders, to_string(*options_.force_order), m.name);
    return;
  }
  bool over_writes = false;  // feasible, but removed by --max-writes (the write-avoiding limit)
  if (plan.feasible && options_.max_writes > 0) {
    a_.unconstrained_s = std::min(a_.unconstrained_s, plan.total_s());
    const double share = a_.problem.C / static_cast<double>(machine_.processors);
    if (plan_write_bytes(plan) > options_.max_writes * share * (1 + 1e-12)) {
      plan.feasible = false, over_writes = true;
      plan.reason = reason_text(ReasonId::over_max_writes, options_.max_writes, human_bytes(share));
    }
  }
  if (!plan.feasible) {
    if (!m.states_infeasibility && !is_forced && !over_writes) return;
    if (a_.chosen < 0) a_.no_choice.plan.reason = plan.reason;
    if (!family->second.feasible) family->second.reason = plan.reason;
    return;
  }
  a_.candidates.back().eligible = true;
  if (!family->second.feasible || family->second.total_s() > plan.total_s()) family->second = plan;
  // The least total wins; on a tie, the candidate of less compute-stage time (its stages 1 and 3
  // cost the same, and a one-rank cosma plan then runs the kernel on the mapped operands).
  if (a_.chosen >= 0) {
    const Candidate& chosen = a_.candidates[static_cast<std::size_t>(a_.chosen)];
    if (chosen.plan.total_s() < plan.total_s() ||
        (chosen.plan.total_s() == plan.total_s() && chosen.row.time_s <= row.time_s))
      return;
  }
  a_.chosen = static_cast<int>(a_.candidates.size()) - 1;  // its plan: `plan`, as pushed above
}

void MethodAnalysis::keep_detail(std::shared_ptr<const MethodDetail> detail) {
  a_.details.emplace_back(&method_, std::move(detail));
}

ModelPoint best_row_outside(const ContractionAnalysis& a, const std::string& family) {
  ModelPoint best;
  best.feasible = false;
  for (const ModelPoint& p : a.methods)
    if (p.method->family != family && p.feasible && (!best.feasible || p.time_s < best.time_s)) best = p;
  return best;
}

const PlannedCandidate* best_plan_outside(const ContractionAnalysis& a, const std::string& family,
                                          std::string* other_family) {
  const PlannedCandidate* best = nullptr;
  for (const auto& [name, p] : a.family_plans) {
    if (name == family) continue;
    if (!best || (p.feasible && (!best->feasible || p.total_s() < best->total_s()))) {
      best = &p;
      *other_family = name;
    }
  }
  return best;
}

ModelPoint exact_row(const PlannedCandidate& pc, const Machine& machine) {
  ModelPoint point;
  point.feasible = pc.feasible;
  point.reason = pc.reason;
  point.time_s = std::numeric_limits<double>::infinity();
  if (!pc.feasible) return point;
  const PlanVolumes& v = pc.volumes;
  point.time_s = -1;
  for (std::size_t r = 0; r < v.disk_read_bytes.size(); ++r) {
    const double t = rank_time_s(pc.plan, machine, v.disk_read_bytes[r], v.disk_write_bytes[r], v.comm_recv_bytes[r]);
    if (t <= point.time_s) continue;
    point.time_s = t;
    point.disk_read_bytes = static_cast<double>(v.disk_read_bytes[r]);
    point.disk_write_bytes = static_cast<double>(v.disk_write_bytes[r]);
    point.comm_bytes = static_cast<double>(v.comm_recv_bytes[r]);
  }
  return point;
}

std::string exact_row_text(const ModelPoint& p, const std::string& name, const std::string& what) {
  return fmt::format("    {:<26} {:<5} {:<58} {:>10} {:>10} {:>11.5g}\n", name, "-", what, human_bytes(p.comm_bytes),
                     human_bytes(p.disk_bytes()), p.time_s);
}

nlohmann::json exact_row_json(const ModelPoint& p, const char* algorithm) {
  nlohmann::json j = {{"comm", "inside"}, {"algorithm", algorithm}, {"feasible", p.feasible}, {"reason", p.reason}};
  if (!p.feasible) return j;
  j.update({{"order", "-"},
            {"model_time_s", p.time_s},
            {"model_disk_bytes", p.disk_bytes()},
            {"model_disk_read_bytes", p.disk_read_bytes},
            {"model_disk_write_bytes", p.disk_write_bytes},
            {"model_comm_bytes", p.comm_bytes}});
  return j;
}

Problem problem_from(const ir::MacroIndexGemm& g, double e) {
  Problem p;
  p.I = static_cast<double>(g.extent_I);
  p.J = static_cast<double>(g.extent_J);
  p.K = static_cast<double>(g.extent_K);
  p.A = p.I * p.K * e;
  p.B = p.J * p.K * e;
  p.C = p.I * p.J * e;
  return p;
}

double lower_bound_bytes_per_rank(const ir::MacroIndexGemm& g, const Machine& machine) {
  const double m = static_cast<double>(g.extent_I), n = static_cast<double>(g.extent_J),
               k = static_cast<double>(g.extent_K);
  const double P = static_cast<double>(machine.processors);
  const double S = machine.memory_bytes / machine.element_size_bytes;
  // Kwasniewski et al. (SC'19) Theorem 1: Q >= 2mnk/(P·√S) + mn/P words per rank.
  return (2.0 * m * n * k / (P * std::sqrt(S)) + m * n / P) * machine.element_size_bytes;
}

double syrk_lower_bound_words(double N, double M, double P, double S) {
  // Beaumont et al. Corollary 4.7, per rank as derived in analysis.h.
  return std::max(N * N * M / (std::sqrt(2.0) * P * std::sqrt(S)), N * M / P);
}

Groups groups_from(const ir::Program& program, const ir::MacroIndexGemm& gemm) {
  auto group = [&](const std::vector<int>& ids) {
    GroupTiling g;
    for (int id : ids)
      g.indices.push_back({program.indices[id].name, static_cast<std::int64_t>(program.extent(id)), 1, 1});
    return g;
  };
  return {group(gemm.I), group(gemm.J), group(gemm.K)};
}

bool PlanOptions::allows_method(std::string_view name) const {
  return (!force_method || *force_method == name) &&
         std::find(exclude_methods.begin(), exclude_methods.end(), name) == exclude_methods.end();
}

bool parse_excluded_method(std::string_view name, PlanOptions* options) {
  if (!find_method(name)) return false;
  options->exclude_methods.emplace_back(name);
  return true;
}

bool parse_method(std::string_view name, PlanOptions* options) {
  if (!find_method(name)) return false;
  options->force_method = std::string(name);
  return true;
}

bool parse_order(std::string_view name, PlanOptions* options) {
  const std::optional<PlacementOrder> order = tcert::parse_order(name);
  if (order) options->force_order = *order;
  return order.has_value();
}

ContractionAnalysis analyze(const ir::Program& program, const ir::Statement& s, const Machine& machine,
                            const PlanOptions& options, const DeclaredLayouts* kept) {
  ContractionAnalysis a;
  a.gemm = ir::macro_index_gemm(program, s);
  a.problem = problem_from(a.gemm, machine.element_size_bytes);
  a.lower_bound_bytes_per_rank = lower_bound_bytes_per_rank(a.gemm, machine);
  ++analyses_count;
  a.fastest_row.feasible = false;
  a.no_choice.plan.reason = reason_text(ReasonId::no_candidate_allowed);
  a.accumulate = accumulates(program, s);
  a.max_writes = options.max_writes;
  a.statement = &s;
  a.declared = declared_layouts(program, s, machine.processors);
  if (kept) {  // tensors an earlier step kept on the ranks (intermediates: never declared)
    for (auto [to, from] : {std::pair{&a.declared.A, &kept->A}, std::pair{&a.declared.B, &kept->B}})
      if (*from) *to = *from;
    a.declared.C_in = kept->C_in;
    a.declared.C_stays = kept->C_stays;
  }
  const Groups groups = groups_from(program, a.gemm);
  for (const Method* m : methods()) {
    MethodAnalysis ctx(a, *m, groups, machine, options);
    m->model.analyze(ctx);
  }
  if (const Plan* pin = options.pinned(s.loc.line)) apply_pin(a, *pin, machine);
  return a;
}

}  // namespace tcec::costmodel
