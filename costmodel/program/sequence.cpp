// costmodel/program/sequence.cpp — the greedy hand-off pass of sequence.h.
#include "costmodel/program/sequence.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "costmodel/costmodel.h"
#include "costmodel/program/handoff_requests.h"
#include "costmodel/program/layout.h"

namespace tcec::costmodel {

namespace {

/// The most work (handoff_requests.h move_work()) the model spends counting one move's disk
/// requests, about a second: a tensor whose move would need more (millions of blocks or rounds,
/// which only memories of a few hundred bytes make) is not taken rank to rank but flushed.
constexpr std::uint64_t kMaxMoveWork = std::uint64_t{1} << 25;

/// A tensor left on the ranks by the contraction at `line`, in `layout` (its plan's C layout).
struct Kept {
  TensorLayout layout;
  int line = 0;
  KeptSource source;
};

/// Bytes per rank and seconds to write a kept tensor to the store: every rank reads what it
/// holds and writes it (the producing step's deferred stage 3; runtime flush_kept); with a
/// disk latency also its requests (flush_requests()), charged in the time.
PlanVolumes flush_volumes(const Kept& kept, const Machine& machine) {
  const Exchange x = exchange(kept.layout, kept.layout, machine);
  PlanVolumes v;
  for (std::size_t r = 0; r < x.read.size(); ++r) append_rank(v, 1.0, machine, x.read[r], x.write[r], 0, 0);
  if (machine.disk_latency_s > 0) {
    v.disk_requests = flush_requests(kept.source.plan, kept.source.perm_C);
    v.time_s = 0;
    for (std::size_t r = 0; r < v.disk_requests.size(); ++r)
      v.time_s = std::max(v.time_s, rank_time_s(1.0, machine, v.disk_read_bytes[r], v.disk_write_bytes[r], 0) +
                                        machine.disk_latency_s * static_cast<double>(v.disk_requests[r]));
  }
  if (machine.node_local_scratch()) {  // the store has one directory per node: completed on every node
    std::uint64_t elements = 0;
    for (std::uint64_t w : x.write) elements += w;
    add_volumes(v, completion_volumes(elements, machine));
  }
  return v;
}

/// Index names of a reference, by tensor dimension.
std::vector<std::string> names_of(const ir::Program& program, const ir::TensorRef& ref) {
  std::vector<std::string> out;
  for (int x : ref.indices) out.push_back(program.indices[x].name);
  return out;
}

class Pass {
 public:
  Pass(const ir::Program& program, const Machine& machine, const PlanOptions& options)
      : program_(program), machine_(machine), options_(options) {}

  HandoffStep copy(const ir::Statement& s) {
    HandoffStep step;
    step.statement = &s;
    step.store_time_s = copy_volumes(program_, s, machine_).time_s;  // with node-local scratch, completed
    if (machine_.node_local_scratch()) {  // a copy step reads and writes the store (one directory per node)
      const ir::Tensor& result = program_.tensors[s.result.tensor];
      if (kept_.count(s.operands.at(0).tensor))
        step.through_store = fmt::format("its operand {}, kept on the ranks, is flushed to the store for a copy step",
                                         program_.tensors[s.operands[0].tensor].name);
      else if (result.role == ir::TensorRole::Intermediate)
        step.through_store = fmt::format("a copy step writes the intermediate {} to the store", result.name);
    }
    flush(s.operands.at(0).tensor, step);
    if (accumulates(program_, s)) flush(s.result.tensor, step);
    kept_.erase(s.result.tensor);  // written to the store
    step.time_s = step.flush.time_s + step.store_time_s;
    return step;
  }

  HandoffStep contraction(const ir::Statement& s, const std::optional<ContractionAnalysis>& store) {
    HandoffStep step;
    step.statement = &s;
    step.contraction = true;
    const bool accumulate = accumulates(program_, s);
    const double store_s = store && store->plan().feasible ? store->plan().total_s() : 0;
    step.store_time_s = store_s;
    // The kept operands (and C's current values), their layouts, and what flushing them costs.
    DeclaredLayouts kept;
    kept.names_A = names_of(program_, s.operands[0]);
    kept.names_B = names_of(program_, s.operands[1]);
    kept.names_C = names_of(program_, s.result);
    std::vector<std::string> taken;
    std::vector<int> tensors;  // kept tensors this step reads (each flushed once on the store path)
    double flush_all_s = 0;
    HandoffStep trial;      // the hand-off variant's moves
    bool countable = true;  // every move's requests can be counted (kMaxMoveWork)
    auto take = [&](const ir::TensorRef& ref, std::optional<TensorLayout>& into, std::optional<KeptSource>& source,
                    const char* array) {
      const auto it = kept_.find(ref.tensor);
      if (it == kept_.end()) return;
      into = it->second.layout;
      source = it->second.source;
      countable = countable && move_work(array_placement(source->plan, GemmArray::C, source->perm_C),
                                         handoff_round_elements(machine_.memory_bytes)) <= kMaxMoveWork;
      if (std::find(tensors.begin(), tensors.end(), ref.tensor) == tensors.end()) {
        tensors.push_back(ref.tensor);
        flush_all_s += flush_volumes(it->second, machine_).time_s;
      }
      taken.push_back(
          fmt::format("{} = {} (kept by line {})", array, program_.tensors[ref.tensor].name, it->second.line));
    };
    take(s.operands[0], kept.A, trial.source_A, "A");
    take(s.operands[1], kept.B, trial.source_B, "B");
    if (accumulate) take(s.result, kept.C_in, trial.source_C, "C");
    kept.C_stays = program_.tensors[s.result.tensor].role == ir::TensorRole::Intermediate;
    trial.take_A = kept.A.has_value(), trial.take_B = kept.B.has_value(), trial.take_C = kept.C_in.has_value();
    trial.result_kept = kept.C_stays;
    std::optional<ContractionAnalysis> handoff;
    if (kept.any() && countable) handoff = analyze(program_, s, machine_, options_, &kept);
    if (handoff && handoff->plan().feasible && machine_.disk_latency_s > 0)  // charge its requests
      handoff_stage_requests(trial, handoff->plan().plan, handoff->gemm, accumulate, machine_,
                             handoff->plan().redistribution);
    // Node-local scratch on several nodes: no store all ranks see, so the hand-off whatever it costs.
    const bool forced = machine_.node_local_scratch();
    const bool use = handoff && handoff->plan().feasible &&
                     (forced || !store || !store->plan().feasible || handoff->plan().total_s() < flush_all_s + store_s);
    if (use) {
      step.handoff = true;
      step.plan = handoff->plan();
      step.taken = std::move(taken);
      step.take_A = trial.take_A, step.take_B = trial.take_B, step.take_C = trial.take_C;
      step.source_A = trial.source_A, step.source_B = trial.source_B, step.source_C = trial.source_C;
      step.memory =
          plan_memory(step.plan.plan, machine_, taken_elements(step.plan.plan, step.take_A, step.take_B, step.take_C));
      step.time_s = step.plan.total_s();
      ++handoffs_;
      kept_.erase(s.result.tensor);
      if (kept.C_stays) {
        step.result_kept = true;
        kept_[s.result.tensor] = {plan_layout(step.plan.plan, GemmArray::C, kept.names_C),
                                  s.loc.line,
                                  {step.plan.plan, handoff->gemm.perm_C}};
      }
      return step;
    }
    // Through the store: kept operands are written there first.
    if (forced && kept.any())
      step.through_store =
          !countable ? "a kept tensor's move rank to rank has too many blocks or rounds to count"
          : !handoff ? "no plan keeps it on the ranks"
                     : fmt::format("no method with a rank layout (Gao et al.'s) can keep its tensors on the ranks: {}",
                                   handoff->plan().reason);
    flush(s.operands[0].tensor, step);
    flush(s.operands[1].tensor, step);
    if (accumulate) flush(s.result.tensor, step);
    kept_.erase(s.result.tensor);
    if (store) step.plan = store->plan();
    if (step.plan.feasible) step.memory = plan_memory(step.plan.plan, machine_);
    step.time_s = step.flush.time_s + store_s;
    if (forced && kept.C_stays)  // an intermediate in the store of one directory per node: completed on every node
      step.time_s += completion_volumes(program_.elements(s.result.tensor), machine_).time_s;
    return step;
  }

  int handoffs() const { return handoffs_; }

 private:
  /// Writes tensor t to the store if it is kept (charged to `step`).
  void flush(int t, HandoffStep& step) {
    const auto it = kept_.find(t);
    if (it == kept_.end()) return;
    add_volumes(step.flush, flush_volumes(it->second, machine_));
    step.flushed.push_back(program_.tensors[t].name);
    step.flushed_from.push_back(it->second.source);
    step.flushed_elements.push_back(program_.elements(t));
    kept_.erase(it);
  }

  const ir::Program& program_;
  const Machine& machine_;
  const PlanOptions& options_;
  std::map<int, Kept> kept_;  // by tensor id
  int handoffs_ = 0;
};

}  // namespace

void add_volumes(PlanVolumes& into, const PlanVolumes& v) {
  if (into.disk_read_bytes.empty()) {
    into = v;
    return;
  }
  for (std::size_t r = 0; r < v.disk_read_bytes.size(); ++r) {
    into.disk_read_bytes[r] += v.disk_read_bytes[r];
    into.disk_write_bytes[r] += v.disk_write_bytes[r];
    into.comm_sent_bytes[r] += v.comm_sent_bytes[r];
    into.comm_recv_bytes[r] += v.comm_recv_bytes[r];
  }
  const std::size_t P = v.disk_read_bytes.size();
  if (!v.internode_sent_bytes.empty()) {  // one node's volumes have none
    into.internode_sent_bytes.resize(P), into.internode_recv_bytes.resize(P);
    for (std::size_t r = 0; r < P; ++r) {
      into.internode_sent_bytes[r] += v.internode_sent_bytes[r];
      into.internode_recv_bytes[r] += v.internode_recv_bytes[r];
    }
  }
  if (into.disk_requests.size() == v.disk_requests.size())
    for (std::size_t r = 0; r < v.disk_requests.size(); ++r) into.disk_requests[r] += v.disk_requests[r];
  else
    into.disk_requests.clear();
  into.time_s += v.time_s;
}

void handoff_stage_requests(const HandoffStep& step, const Plan& plan, const ir::MacroIndexGemm& gemm, bool accumulate,
                            const Machine& machine, PlanVolumes& r) {
  StageAccess access{gemm.perm_A,       gemm.perm_B, gemm.perm_C, accumulate, false,
                     !step.result_kept, step.take_A, step.take_B, step.take_C};
  access.direct_C = !step.take_C && !step.result_kept && model_of(plan).writes_result_directly(plan);
  std::vector<std::uint64_t> extra(static_cast<std::size_t>(plan.processors), 0);
  auto add = [&](const std::vector<std::uint64_t>& requests) {
    for (std::size_t q = 0; q < extra.size() && q < requests.size(); ++q) extra[q] += requests[q];
  };
  for (const KeptSource& source : step.flushed_from) add(flush_requests(source.plan, source.perm_C));
  if (machine.node_local_scratch())  // each flushed version completed on every node
    for (std::uint64_t elements : step.flushed_elements) add(completion_volumes(elements, machine).disk_requests);
  const std::uint64_t round = handoff_round_elements(machine.memory_bytes);
  for (auto [source, array, perm] :
       {std::tuple{&step.source_A, GemmArray::A, &gemm.perm_A}, std::tuple{&step.source_B, GemmArray::B, &gemm.perm_B},
        std::tuple{&step.source_C, GemmArray::C, &gemm.perm_C}})
    if (*source)
      add(move_requests(array_placement((*source)->plan, GemmArray::C, (*source)->perm_C),
                        array_placement(plan, array, *perm), round));
  redistribution_requests(plan, machine, access, r, extra);
}

HandoffSequence plan_handoff(const ir::Program& program, const Machine& machine, const PlanOptions& options,
                             const std::vector<std::optional<ContractionAnalysis>>& store) {
  Pass pass(program, machine, options);
  HandoffSequence out;
  for (std::size_t i = 0; i < program.statements.size(); ++i) {
    const ir::Statement& s = program.statements[i];
    out.steps.push_back(s.operands.size() == 2 ? pass.contraction(s, store.at(i)) : pass.copy(s));
    out.total_s += out.steps.back().time_s;
    out.store_total_s += out.steps.back().store_time_s;
  }
  out.handoffs = pass.handoffs();
  constexpr double kTie = 1e-9;  // relative: equal totals summed in another order
  if (out.handoffs > 0 && out.total_s >= out.store_total_s * (1 - kTie) && !machine.node_local_scratch()) {
    // Greedy choices that later flushes undo: run every step through the store instead.
    out.rejected_total_s = out.total_s;
    out.total_s = out.store_total_s;
    out.handoffs = 0;
    for (std::size_t i = 0; i < out.steps.size(); ++i) {
      HandoffStep plain;
      plain.statement = out.steps[i].statement;
      plain.contraction = out.steps[i].contraction;
      plain.time_s = plain.store_time_s = out.steps[i].store_time_s;
      if (store.at(i)) plain.plan = store[i]->plan();
      if (plain.plan.feasible) plain.memory = plan_memory(plain.plan.plan, machine);
      out.steps[i] = std::move(plain);
    }
  }
  return out;
}

}  // namespace tcec::costmodel
