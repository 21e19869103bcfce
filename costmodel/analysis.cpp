// costmodel/analysis.cpp — enumerate the methods of Gao et al. for one
// contraction and choose the cheapest by the model optimum.
#include "costmodel/analysis.h"
#include "costmodel/sequence.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "costmodel/model_optimum.h"

namespace tcec::costmodel {

namespace {

constexpr CommMethod kComms[] = {CommMethod::Inside, CommMethod::Outside};
constexpr Algorithm kAlgorithms[] = {Algorithm::Rotation, Algorithm::Replication, Algorithm::Accumulation};

/// With declared distributions, the plan's distribution indices that could match them: each
/// group's chosen index and every index of the group a declared distribution splits; the
/// variant of least compute-plus-redistribution time replaces `p` (ties keep the search's).
void match_declared(PlannedCandidate& p, const ContractionAnalysis& a, const Machine& machine) {
  std::vector<std::string> split;   // index names some declared (or kept) layout splits
  auto add = [&](const std::optional<TensorLayout>& layout, const std::vector<std::string>& names) {
    if (!layout) return;
    for (std::size_t d = 0; d < layout->dims.size(); ++d)
      if (layout->dims[d].parts > 1) split.push_back(names[d]);
  };
  add(a.declared.A, a.declared.names_A);
  add(a.declared.B, a.declared.names_B);
  add(a.declared.C, a.declared.names_C);
  add(a.declared.C_in, a.declared.names_C);
  auto choices = [&](const GroupTiling& g) {
    std::vector<int> out{g.dist};
    if (g.dist < 0) return out;
    for (std::size_t i = 0; i < g.indices.size(); ++i)
      if (static_cast<int>(i) != g.dist && std::count(split.begin(), split.end(), g.indices[i].name))
        out.push_back(static_cast<int>(i));
    return out;
  };
  const Plan base = p.plan;
  for (int di : choices(base.I))
    for (int dj : choices(base.J))
      for (int dk : choices(base.K)) {
        if (di == base.I.dist && dj == base.J.dist && dk == base.K.dist) continue;
        PlannedCandidate v;
        v.plan = base;
        v.plan.I.dist = di;
        v.plan.J.dist = dj;
        v.plan.K.dist = dk;
        if (!check_valid(v.plan, machine, nullptr)) continue;
        v.feasible = true;
        v.volumes = plan_volumes(v.plan, machine);
        v.redistribution = redistribution_volumes(v.plan, machine, a.accumulate, &a.declared);
        if (v.total_s() < p.total_s()) p = v;
      }
}

/// Plans `model`'s candidate and keeps it as the chosen plan when allowed and cheapest.
void add_plan(ContractionAnalysis& a, const Groups& groups, const Machine& machine,
              const PlanOptions& options, const ModelPoint& model) {
  const TileCounts hint = model.feasible ? model.tiles : TileCounts{};
  a.plans.push_back(plan_candidate(groups, machine, model.comm, model.algorithm, model.order, model.replicated,
                                   options.split, hint));
  PlannedCandidate& p = a.plans.back();
  if (!options.allows(model.comm, model.algorithm, model.order)) return;
  if (!p.feasible) {
    if (!a.plan.feasible) a.plan.reason = p.reason;
    return;
  }
  p.redistribution = redistribution_volumes(p.plan, machine, a.accumulate, &a.declared);
  if (a.declared.any()) match_declared(p, a, machine);
  if (a.plan.feasible && a.plan.total_s() <= p.total_s()) return;
  a.plan = p;
  a.plan_model = model;
}

/// The ModelPoint row of cosma: its exact schedule on the slowest rank.
ModelPoint cosma_point(const PlannedCandidate& pc, const Machine& machine) {
  ModelPoint point;
  point.comm = CommMethod::Inside;
  point.algorithm = Algorithm::Cosma;
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

/// Fits COSMA, adds its row and candidate, and keeps its plan when allowed and cheapest.
void add_cosma(ContractionAnalysis& a, const Groups& groups, const Machine& machine, const PlanOptions& options) {
  const double S = machine.memory_bytes / machine.element_size_bytes;
  a.cosma = cosma_strategy(a.gemm.extent_I, a.gemm.extent_J, a.gemm.extent_K, machine.processors, S, -1, options.split);
  PlannedCandidate pc;
  pc.plan = {CommMethod::Inside, Algorithm::Cosma, ReplicatedOperand::A, DiskPlacementOrder::ABC, machine.processors,
             groups.I,           groups.J,         groups.K,              options.split,            a.cosma.grid};
  pc.feasible = a.cosma.feasible;
  pc.reason = a.cosma.reason;
  if (pc.feasible && a.declared.any()) {
    pc.feasible = false;
    const std::string declared = a.declared.which();
    pc.reason = declared.empty()
                    ? "tensors kept on the ranks are not modelled against cosma's blocked layout"
                    : fmt::format("the declared distribution of {} is not modelled against cosma's blocked layout",
                                  declared);
  }
  if (pc.feasible) pc.volumes = plan_volumes(pc.plan, machine);
  const ModelPoint point = cosma_point(pc, machine);
  a.methods.push_back(point);
  a.candidates.push_back(point);
  a.plans.push_back(pc);
  if (point.feasible && (!a.chosen.feasible || point.time_s < a.chosen.time_s)) a.chosen = point;
  const bool forced = options.force_algorithm == Algorithm::Cosma;
  if (!options.allows_cosma()) {
    if (forced && options.force_order)
      a.plan.reason = fmt::format("--force-order {} does not apply to cosma, which has no disk placement order",
                                  to_string(*options.force_order));
    return;
  }
  if (!pc.feasible) {
    if (forced) a.plan.reason = pc.reason;
    return;
  }
  a.plans.back().redistribution = redistribution_volumes(pc.plan, machine, a.accumulate);
  if (a.plan.feasible && a.plan.total_s() <= a.plans.back().total_s()) return;
  a.plan = a.plans.back();
  a.plan_model = point;
}

}  // namespace

ModelPoint best_gao_method(const ContractionAnalysis& a) {
  ModelPoint best;
  best.feasible = false;
  for (const ModelPoint& p : a.methods)
    if (p.algorithm != Algorithm::Cosma && p.feasible && (!best.feasible || p.time_s < best.time_s)) best = p;
  return best;
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
  // Kwasniewski et al. (COSMA) Theorem 1: Q >= 2mnk/(P·√S) + mn/P words per rank.
  return (2.0 * m * n * k / (P * std::sqrt(S)) + m * n / P) * machine.element_size_bytes;
}

Groups groups_from(const ir::Program& program, const ir::MacroIndexGemm& gemm) {
  auto group = [&](const std::vector<int>& ids) {
    GroupTiling g;
    for (int id : ids)
      g.indices.push_back({program.indices[id].name,
                           static_cast<std::int64_t>(program.extent(id)), 1, 1});
    return g;
  };
  return {group(gemm.I), group(gemm.J), group(gemm.K)};
}

bool PlanOptions::allows(CommMethod comm, Algorithm algorithm, DiskPlacementOrder order) const {
  return (!force_comm || *force_comm == comm) && (!force_algorithm || *force_algorithm == algorithm) &&
         (!force_order || *force_order == order);
}

bool PlanOptions::allows_cosma() const {
  return (!force_comm || *force_comm == CommMethod::Inside) && (!force_algorithm || *force_algorithm == Algorithm::Cosma) &&
         !force_order;
}

bool parse_method(std::string_view name, PlanOptions* options) {
  if (name == "cosma") {
    options->force_comm = CommMethod::Inside;
    options->force_algorithm = Algorithm::Cosma;
    return true;
  }
  for (CommMethod comm : kComms)
    for (Algorithm algorithm : kAlgorithms)
      if (name == method_name(comm, algorithm)) {
        options->force_comm = comm;
        options->force_algorithm = algorithm;
        return true;
      }
  return false;
}

bool parse_order(std::string_view name, PlanOptions* options) {
  for (DiskPlacementOrder order : kAllOrders)
    if (name == to_string(order)) {
      options->force_order = order;
      return true;
    }
  return false;
}

std::vector<StatementPlan> plan_program(const ir::Program& program, const Machine& machine,
                                        const PlanOptions& options) {
  std::vector<std::optional<ContractionAnalysis>> store;
  for (const ir::Statement& s : program.statements)
    store.push_back(s.operands.size() == 2 ? std::optional(analyze(program, s, machine, options)) : std::nullopt);
  std::optional<HandoffSequence> seq;
  if (options.handoff) seq = plan_handoff(program, machine, options, store);
  std::vector<StatementPlan> out;
  for (std::size_t i = 0; i < program.statements.size(); ++i) {
    if (!store[i]) continue;
    const PlannedCandidate& chosen = seq ? seq->steps[i].plan : store[i]->plan;
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
    out.push_back(std::move(sp));
  }
  return out;
}

ContractionAnalysis analyze(const ir::Program& program, const ir::Statement& s, const Machine& machine,
                            const PlanOptions& options, const DeclaredLayouts* kept) {
  ContractionAnalysis a;
  a.gemm = ir::macro_index_gemm(program, s);
  a.problem = problem_from(a.gemm, machine.element_size_bytes);
  a.lower_bound_bytes_per_rank = lower_bound_bytes_per_rank(a.gemm, machine);
  a.chosen.feasible = false;
  a.plan.reason = "no candidate is allowed by --force-method / --force-order";
  a.accumulate = accumulates(program, s);
  a.statement = &s;
  a.declared = declared_layouts(program, s, machine.processors);
  if (kept) {   // tensors an earlier step kept on the ranks (intermediates: never declared)
    for (auto [to, from] : {std::pair{&a.declared.A, &kept->A}, std::pair{&a.declared.B, &kept->B}})
      if (*from) *to = *from;
    a.declared.C_in = kept->C_in;
    a.declared.C_stays = kept->C_stays;
  }
  const Groups groups = groups_from(program, a.gemm);
  for (CommMethod comm : kComms) {
    for (Algorithm algorithm : kAlgorithms) {
      ModelPoint best = best_model_optimum(a.problem, machine, comm, algorithm);
      a.methods.push_back(best);
      if (best.feasible && (!a.chosen.feasible || best.time_s < a.chosen.time_s)) a.chosen = best;
      for (DiskPlacementOrder order : kAllOrders) {
        for (ReplicatedOperand r : {ReplicatedOperand::A, ReplicatedOperand::B}) {
          if (r == ReplicatedOperand::B && algorithm != Algorithm::Replication) continue;
          a.candidates.push_back(model_optimum(a.problem, machine, comm, algorithm, order, r));
          add_plan(a, groups, machine, options, a.candidates.back());
        }
      }
    }
  }
  a.gao_plan = a.plan;
  add_cosma(a, groups, machine, options);
  return a;
}

}  // namespace tcec::costmodel
