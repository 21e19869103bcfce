// costmodel/program/sequence.h — (private) distributions chosen for a program's sequence of steps,
// counting the redistribution between them (Gao et al. §2.3 stages 1 and 3): a greedy pass in
// program order that lets a step's result stay on the ranks, in its plan's C layout, and the
// next steps take it from there rank to rank. Generated programs run this sequence
// (plan_program(); runtime GemmSpec::take_A …, keep_result, flush_kept) unless
// PlanOptions::handoff is off (--no-handoff), when every tensor goes through the run's store
// and the pass is a prediction only.
//
// The pass, step by step (a tensor is either in the store or kept on the ranks in a layout):
//  - A contraction is planned twice: through the store (the dry-run's analysis, after writing
//    any kept operand to the store: a flush) and with its kept operands (A, B, and C's current
//    values when it adds to them) moved rank to rank from their layouts (layout.h exchange()),
//    its result staying on the ranks when it is an intermediate (no stage 3). The cheaper
//    total, flushes included, is kept. Only methods with a TensorLayout (Method::has_layout)
//    plan the hand-off variant; the others are infeasible there, as with declared distributions.
//  - A copy step (one operand) reads its operand and, when it adds to it, its result from the
//    store: kept tensors among them are flushed first; its result is then in the store.
//  - A flush costs what the producing step's stage 3 would have: each rank reads the part it
//    holds and writes it to the tensor's file (exchange(L, L).read / .write; no messages).
//  - Kept tensors that no later step reads are never written (intermediates are freed).
//  - A kept tensor whose move the model cannot count in about a second (handoff_requests.h
//    move_work() above 2^25: millions of blocks or rounds, which memories of a few hundred bytes
//    make) is not taken: a step reading it plans no hand-off variant and flushes it.
//  - Disk requests: a move rank to rank and a flush are counted exactly, per rank, from the
//    producer's and the consumer's tilings (handoff_requests.h); with a disk latency they are
//    charged in the steps' times (the hand-off candidates of one step compete without them;
//    the chosen one is charged before it competes with the store's plan).
// Greedy: a step sees the layouts earlier steps chose and never revises them; when the whole
// sequence is not cheaper than the store's, every step runs through the store (the hand-off
// never costs more than no hand-off). Units: bytes per rank in PlanVolumes, seconds.
// On a machine whose nodes have node-local scratch (Machine::node_local_scratch()) the store is
// one directory per node, and every version written there is copied to every node
// (completion_volumes()): every contraction that can keep its result or take its kept operands
// does (a method with a rank layout, whatever it costs), the sequence is never rejected, and a
// step that still goes through the store says why (HandoffStep::through_store).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "costmodel/analysis.h"

namespace tcec::costmodel {

/// A tensor kept on the ranks: the plan of the step that produced it (the tensor lies in that
/// plan's C layout) and the stored dimension of each GEMM position of that step's C
/// (ir::MacroIndexGemm perm_C).
struct KeptSource {
  Plan plan;
  std::vector<int> perm_C;
};

/// One step of the hand-off sequence.
struct HandoffStep {
  const ir::Statement* statement = nullptr;
  bool contraction = false;  ///< two operands (else a copy step)
  /// Kept tensors written to the store before this step (their names), and the bytes and
  /// time of those flushes (one after the other: times add).
  std::vector<std::string> flushed;
  PlanVolumes flush;  ///< the flushes' bytes per rank (empty vectors when none) and seconds
  /// Contractions: whether the hand-off variant was chosen; its plan (or the store plan).
  bool handoff = false;
  PlannedCandidate plan;
  /// Operands taken rank to rank: "A = t1 (kept by line 12)"; empty when none.
  std::vector<std::string> taken;
  bool take_A = false, take_B = false, take_C = false;  ///< which arrays are taken (C: its current values)
  bool result_kept = false;                             ///< the result stays on the ranks for a later step
  /// Where the tensors it moves lie, for their disk requests: each flushed tensor (in the order
  /// of `flushed`) and each taken array (nullopt when not taken).
  std::vector<KeptSource> flushed_from;
  std::vector<std::uint64_t> flushed_elements;  ///< each flushed tensor's elements (its completion on every node)
  std::optional<KeptSource> source_A, source_B, source_C;
  PlanMemory memory;        ///< contractions with a plan: plan_memory() with what it takes
  double time_s = 0;        ///< this step with the hand-off: flushes + plan total (or copy)
  double store_time_s = 0;  ///< this step through the store (the dry-run's choice)
  /// On a machine with node-local scratch (Machine::node_local_scratch()): why this step writes
  /// an intermediate to the run's tensor store all the same ("a copy step writes the
  /// intermediate t1 to the store"), where each version is copied to every node; "" when it
  /// does not.
  std::string through_store;
};

/// The hand-off pass over a whole program.
struct HandoffSequence {
  std::vector<HandoffStep> steps;  ///< one per statement, in program order
  double total_s = 0;              ///< Σ steps' time_s
  double store_total_s = 0;        ///< Σ steps' store_time_s (the dry-run's total)
  int handoffs = 0;                ///< contractions planned with kept tensors
  /// When the greedy pass's total was not below the store's (keeping a result that later steps
  /// flush anyway, or that a direct read beats), its total in seconds; every step then runs
  /// through the store (0 otherwise).
  double rejected_total_s = 0;
  bool used = true;  ///< the generated program runs it (false: --no-handoff, or resident accumulation)
  /// Not used because the program runs resident accumulation groups (program/resident.h).
  bool resident = false;
};

/// into += v, rank by rank and in time (one after the other); `into` may be empty (then = v).
/// Disk requests add rank by rank when both have them.
void add_volumes(PlanVolumes& into, const PlanVolumes& v);

/// Sets r.disk_requests to the exact disk requests per rank of stages 1 and 3 of contraction
/// step `step` run with `plan` as the generated program runs it, and with a disk latency r.time_s
/// (redistribution_requests()): the arrays it reaches through their files (operands read
/// directly where the plan's method does so and they are not taken; C written directly unless
/// taken or kept), plus the moves of the arrays it takes (handoff_requests.h move_requests(),
/// from each source's C placement into the plan's, rounds of handoff_round_elements() of the
/// machine's memory) and the flushes before it (flush_requests()). `gemm` gives the tensors'
/// perms; `accumulate`: C starts from its current values. r holds the step's redistribution
/// volumes, flushes included. Precondition: a feasible plan; plans that take are Gao plans.
void handoff_stage_requests(const HandoffStep& step, const Plan& plan, const ir::MacroIndexGemm& gemm, bool accumulate,
                            const Machine& machine, PlanVolumes& r);

/// Runs the greedy pass (header comment). `store[i]` is analyze() of statement i without
/// hand-off (the dry-run's analysis) for a contraction, nullopt for a copy step; contractions
/// without a feasible plan add no time. Precondition: store.size() == program.statements.size().
HandoffSequence plan_handoff(const ir::Program& program, const Machine& machine, const PlanOptions& options,
                             const std::vector<std::optional<ContractionAnalysis>>& store);

/// The dry-run section of the pass: a header saying whether the program runs it, one line per step
/// ("  line 12: i1[...] += ...: hand-off ...; 1.23 s (through the store 1.45 s)"; a step that takes
/// a tensor also says its memory per rank, memory_text()) and the two totals. Empty when the program has no contraction.
std::string handoff_text(const HandoffSequence& seq, const Machine& machine);

/// The same as JSON: {"model_only": !seq.used, "steps": [{"line", "statement", "kind" ("contraction"
/// or "copy"), "handoff", "plan" (text or null), "taken" [..], "result_kept", "flushed" [..],
/// "flush_s", "memory_bytes_per_rank" (memory_json(); null for copies), "time_s", "store_time_s"}], "handoffs", "total_predicted_time_s",
/// "store_total_predicted_time_s", "rejected_total_predicted_time_s" (null unless the greedy
/// sequence was rejected)} (seconds).
nlohmann::json handoff_json(const HandoffSequence& seq, const Machine& machine);

}  // namespace tcec::costmodel
