// costmodel/report/report_sequence.cpp — the dry-run's section on the sequence hand-off (sequence.h).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "costmodel/program/sequence.h"

namespace tcec::costmodel {

namespace {

/// What a step does with the hand-off, e.g. "hand-off inside-replication-B ...: A = i1 (kept
/// by line 10); result kept on the ranks" or "through the store: ...".
std::string step_what(const HandoffStep& step, const Machine& machine) {
  if (!step.contraction) return "copy step through the store";
  if (!step.plan.feasible) return "no feasible plan";
  std::string out = fmt::format("{} {}", step.handoff ? "hand-off" : "through the store:", step.plan.plan.to_string());
  if (!step.taken.empty()) out += fmt::format("; takes {}", fmt::join(step.taken, ", "));
  if (step.result_kept) out += "; result kept on the ranks";
  if (!step.taken.empty()) out += fmt::format("; memory per rank: {}", memory_text(step.memory, machine));
  return out;
}

}  // namespace

std::string handoff_text(const HandoffSequence& seq, const Machine& machine) {
  const bool any_contraction =
      std::any_of(seq.steps.begin(), seq.steps.end(), [](const HandoffStep& s) { return s.contraction; });
  if (!any_contraction) return "";
  std::vector<std::string> readers = {"copy steps"};  // and the methods without a rank layout
  for (const Method* m : methods())
    if (!m->has_layout) readers.push_back(m->name);
  std::string store_readers = readers.front();
  for (std::size_t i = 1; i < readers.size(); ++i)
    store_readers += (i + 1 == readers.size() ? " and " : ", ") + readers[i];
  std::string out = fmt::format(
      "\nsequence with rank-to-rank hand-off ({};\n"
      "greedy in program order, Gao et al. §2.3 stages 1 and 3 between steps: an intermediate result stays on the\n"
      "ranks in its plan's C layout and later contractions take it rank to rank; {} read the\n"
      "store, so kept tensors are written there first: a flush); the steps it changes:\n",
      seq.used       ? "the generated program runs it; --no-handoff passes every tensor through the store"
      : seq.resident ? "MODEL ONLY: the generated program runs resident accumulation, which reads every tensor "
                       "from the store"
                     : "MODEL ONLY with --no-handoff: the generated program passes every tensor through the store",
      store_readers);
  if (machine.node_local_scratch())
    out += fmt::format(
        "  (the machine's {} nodes have node-local scratch: the tensor store is one directory per node, and each\n"
        "  version written there is copied to every node over the network; so every contraction that can keep its\n"
        "  result on the ranks, or take its kept operands, does so whatever it costs)\n",
        machine.nodes());
  int same = 0;  // steps that run as through the store
  for (const HandoffStep& step : seq.steps) {
    if (!step.through_store.empty())
      out += fmt::format("  line {}: note: through the store, copied to every node: {}\n", step.statement->loc.line,
                         step.through_store);
    if (!step.handoff && step.flushed.empty()) {
      ++same;
      continue;
    }
    const std::string flushed =
        step.flushed.empty() ? ""
                             : fmt::format("flushes {} ({:.5g} s); ", fmt::join(step.flushed, ", "), step.flush.time_s);
    out += fmt::format("  line {}: {}{}; {:.5g} s (through the store {:.5g} s)\n", step.statement->loc.line, flushed,
                       step_what(step, machine), step.time_s, step.store_time_s);
  }
  out += fmt::format("  ({} other step{} as through the store)\n", same, same == 1 ? "" : "s");
  out += fmt::format(
      "total predicted time with hand-off: {:.5g} s, {} contraction{} planned with kept tensors "
      "(through the store: {:.5g} s, {:.3f}x)\n",
      seq.total_s, seq.handoffs, seq.handoffs == 1 ? "" : "s", seq.store_total_s,
      seq.store_total_s > 0 ? seq.total_s / seq.store_total_s : 1.0);
  if (seq.rejected_total_s > 0)
    out += fmt::format(
        "(the greedy pass kept results for a total of {:.5g} s, not below the store's: every step "
        "runs through the store)\n",
        seq.rejected_total_s);
  return out;
}

nlohmann::json handoff_json(const HandoffSequence& seq, const Machine& machine) {
  nlohmann::json steps = nlohmann::json::array();
  for (const HandoffStep& step : seq.steps)
    steps.push_back(
        {{"line", step.statement->loc.line},
         {"statement", step.statement->source_text},
         {"kind", step.contraction ? "contraction" : "copy"},
         {"handoff", step.handoff},
         {"plan", step.contraction && step.plan.feasible ? nlohmann::json(step.plan.plan.to_string())
                                                         : nlohmann::json(nullptr)},
         {"taken", step.taken},
         {"result_kept", step.result_kept},
         {"flushed", step.flushed},
         {"flush_s", step.flush.time_s},
         {"memory_bytes_per_rank",
          step.contraction && step.plan.feasible ? memory_json(step.memory, machine) : nlohmann::json(nullptr)},
         {"time_s", step.time_s},
         {"store_time_s", step.store_time_s},
         {"through_store", step.through_store.empty() ? nlohmann::json(nullptr) : nlohmann::json(step.through_store)}});
  return {{"model_only", !seq.used},
          {"steps", steps},
          {"handoffs", seq.handoffs},
          {"total_predicted_time_s", seq.total_s},
          {"store_total_predicted_time_s", seq.store_total_s},
          {"rejected_total_predicted_time_s",
           seq.rejected_total_s > 0 ? nlohmann::json(seq.rejected_total_s) : nlohmann::json(nullptr)}};
}

}  // namespace tcec::costmodel
