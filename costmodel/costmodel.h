// costmodel/costmodel.h — the public face of the cost model: machine
// conversion and the dry-run report (text and JSON).
//
// Source: Gao et al., "Compiler Techniques for Efficient Parallelization of
// Out-of-Core Tensor Contractions" (seed 003), with the corrections of
// docs/model.md. Volumes are bytes, bandwidths bytes per second,
// times seconds.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "costmodel/model.h"
#include "costmodel/plan.h"
#include "ir/ir.h"

namespace tcec::costmodel {

/// The cost model's view of a machine description (units unchanged: bytes, bytes/s).
Machine machine_from(const ir::MachineDesc& desc);

/// When resident accumulation (costmodel/program/resident.h: consecutive statements adding into
/// one tensor keep its blocks in memory, so it is written once) may replace the statements' own
/// plans: Auto on machines whose disk writes are slower than their reads or under --max-writes
/// (no method or order forced), On on every machine (by predicted time), All every feasible group
/// whatever its time (for comparisons), Off never.
enum class ResidentMode { Auto, On, All, Off };

/// A plan the user pinned for one statement (--plan LINE=PLAN; pin_plans()).
struct PinnedPlan {
  int line = 0;  ///< the statement's source line (one contraction per line)
  Plan plan;     ///< parsed against the statement's groups and checked against the machine
};

/// How plans are chosen.
struct PlanOptions {
  MemorySplit split = MemorySplit::Optimal;  ///< --memory-split
  /// --force-method: only the method of this name plans (method.h find_method()).
  std::optional<std::string> force_method;
  /// --exclude-method (repeatable): these methods do not plan.
  std::vector<std::string> exclude_methods;
  std::optional<PlacementOrder> force_order;  ///< --force-order
  /// The sequence hand-off (sequence.h): intermediates stay on the ranks between steps where
  /// that is cheaper (false: --no-handoff, every tensor through the store).
  bool handoff = true;
  /// Overlap (issue 17): each Gao candidate is also planned with two buffers per array in half
  /// the memory (GaoPlan::overlap), and the faster by predicted wall time is kept (false:
  /// --no-overlap, serial plans only, as Gao et al. model them).
  bool overlap = true;
  /// Symmetric contractions (ir MacroIndexGemm::symmetric) may be planned with tbs's triangle
  /// blocks (Beaumont et al. SPAA'22); false: --no-symmetry, every product as a general one.
  bool symmetry = true;
  /// --max-writes FACTOR: only plans whose fullest rank writes at most FACTOR times its share
  /// of the result, |C|/P (compute stage and stages 1 and 3), may be chosen; 1.0 is
  /// write-avoiding (Carson et al., seed 004: the output written once). 0: no limit.
  double max_writes = 0;
  ResidentMode resident = ResidentMode::Auto;  ///< --resident
  /// --plan LINE=PLAN: these statements run the given plan instead of the planner's choice (the
  /// report still lists every candidate and names the planner's choice as the runner-up). Like
  /// --force-method, a pin keeps --resident auto from forming resident groups.
  std::vector<PinnedPlan> pins;
  /// The pinned plan of the statement at source line `line`, or null.
  const Plan* pinned(int line) const;
  /// True when the method called `name` may plan (no other method forced). --force-order
  /// further restricts the candidates to that order, which excludes a method without disk
  /// placement orders (with --force-method NAME of such a method there is then no plan, and
  /// the reason says so).
  bool allows_method(std::string_view name) const;
};

/// A --plan error at the statement it names (or at LINE:1 when no statement is there).
struct PinError {
  ir::SourceLocation loc;
  std::string message;  ///< e.g. "--plan: P = 3 does not match the machine's 4 processors"
};

/// Resolves --plan LINE=PLAN texts (`texts` as given, "12=inside-rotation order=ABC P=4 …") into
/// options->pins: LINE must be the source line of exactly one two-operand statement of
/// `program`; PLAN is parsed against its macro-index groups (plan.h parse_plan(): the plan's text
/// form, as the dry-run's "plan:" line and --print-after plan print it) and checked as the
/// planner checks its own plans (plan.h check_valid(): P, the method's rules, memory), plus: C0
/// matches whether the statement adds to an earlier result, a symmetric method only on a
/// symmetric product, and a method without rank layouts not on a statement with declared
/// distributions. Returns the errors (empty: every pin resolved). A second pin of a line replaces
/// the first.
std::vector<PinError> pin_plans(const ir::Program& program, const Machine& machine,
                                const std::vector<std::string>& texts, PlanOptions* options);

/// Parses a --force-method name (a method's name: "inside-rotation", …, "outside-accumulation",
/// "cosma"; method_names()) into `options`; false when the name is unknown.
bool parse_method(std::string_view name, PlanOptions* options);
/// Adds a --exclude-method name (a method's name) to `options`; false when the name is unknown.
bool parse_excluded_method(std::string_view name, PlanOptions* options);
/// Parses a --force-order name ("ABC", …); false when unknown.
bool parse_order(std::string_view name, PlanOptions* options);
/// "inside-rotation, inside-replication, …, outside-accumulation or cosma": every method's
/// name, for --help and diagnostics.
std::string method_names();

/// What the report shows.
struct ReportOptions {
  bool all_candidates = false;  ///< --all: every candidate, not only each method's best
  PlanOptions plan;
};

/// A statement's step of a resident accumulation group (costmodel/program/resident.h; the
/// runtime's ResidentSpec, resident_spec.h THE SCHEDULE).
struct ResidentStep {
  int split = 0;           ///< the result's stored dimension whose ranges the ranks hold
  std::int64_t chunk = 1;  ///< K's flat columns per panel
  bool first = false;      ///< the group's first step (the block starts)
  bool last = false;       ///< its last (the block is written)
};

/// The chosen plan of one two-operand statement, for code generation: the plan (its method's
/// part in plan.method) and its exact per-rank volumes.
struct StatementPlan {
  const ir::Statement* statement = nullptr;
  ir::MacroIndexGemm gemm;
  bool feasible = false;
  std::string reason;  ///< why no plan (infeasible only)
  Plan plan;
  PlanVolumes volumes;         ///< exact per-rank compute-stage bytes
  PlanVolumes redistribution;  ///< exact per-rank bytes of stages 1 and 3 (redistribution_volumes), flushes included
  /// The sequence hand-off (sequence.h): A, B or C's current values taken rank to rank from
  /// where an earlier step kept them (descriptions in `taken`, e.g. "A = i1 (kept by line
  /// 10)"), the result kept on the ranks, and the kept tensors flushed to the store first.
  bool take_A = false, take_B = false, take_C = false, keep_result = false;
  std::vector<std::string> taken, flushed;
  /// Direct tile I/O: the compute stage reads A (B) straight from its tensor, with no tiled
  /// copy in stage 1 (the plan's method reads operands directly and the operand is not taken).
  bool direct_A = false, direct_B = false;
  /// The compute stage reads and writes C in the result's new file in the store (no stage 3).
  bool direct_C = false;
  /// The statement runs as a step of a resident accumulation (then `plan` is its plan through the
  /// store, for the record; volumes, redistribution and memory are the step's).
  std::optional<ResidentStep> resident;
  /// The memory per rank the step needs, by buffer (plan_memory(): the method's buffers, and
  /// the hand-off's rounds when it takes a tensor); peak_bytes goes into the generated program,
  /// whose runtime refuses to run a step that would need more. Feasible plans only.
  PlanMemory memory;
};

/// Whether statement `s` of `program` adds to a result an earlier statement wrote (`+=` or
/// `-=` after an earlier statement into the same tensor): its result then starts from the
/// current value.
bool accumulates(const ir::Program& program, const ir::Statement& s);

/// A one-operand statement (a copy or a permuted addition) as the runtime's copy_step runs it,
/// in bytes per rank: rank r takes the r-th balanced range of the result's elements (the first
/// n mod P ranges one longer), reads them from the operand's file (and the result's current
/// values when accumulates()), and writes them to the result's file. time_s = the slowest
/// rank's read/B_dr + write/B_dw (seconds), and on a machine with node-local scratch, for an
/// intermediate result, completion_volumes() after it. A prediction only: copy_step works on
/// memory-mapped files and its bytes are not counted, so `tcec compare` cannot check them.
PlanVolumes copy_volumes(const ir::Program& program, const ir::Statement& s, const Machine& machine);

/// On a machine with node-local scratch (Machine::node_local_scratch()) the runtime's store is one
/// directory per node (runtime TensorStore::per_node()), and a version of `elements` elements
/// written there is completed on every node (TensorStore::complete()): rank r = node·R + j
/// (R = ranks_per_node) with j < S (the fewest ranks of a node) takes the j-th of S balanced
/// element ranges, m elements, reads them (8·m bytes), combines them with its peers of local
/// rank j on the N nodes by recursive doubling (runtime comm.h allreduce(): sent = recv = m·log2 N'
/// + (node + N' < N ? m : 0) for node < N', m for the others, N' the largest power of two ≤ N)
/// and writes them back (8·m), one read and one write request per chunk of
/// tcert::kCompletionChunkElements. Per rank, in bytes; time_s the slowest rank's, its
/// requests at the disk latency included. Precondition: machine.node_local_scratch().
PlanVolumes completion_volumes(std::uint64_t elements, const Machine& machine);

struct ProgramAnalysis;  // costmodel/program_plan.h (private): analyses, resident groups, hand-off

/// A program's plan, computed once (make_plan()) and then only rendered (dry_run_text(),
/// dry_run_json(), dry_run_svg()) and consumed (codegen): per two-operand statement the analysis
/// (every candidate of every method with its integer plan, and the choice), the resident
/// accumulation groups, the sequence hand-off, and from them what each statement runs.
struct ProgramPlan {
  const ir::Program* program = nullptr;  ///< the program planned (must outlive the plan)
  std::optional<Machine> machine;        ///< none: no plan, the report shows the program only
  ReportOptions options;
  /// The analyses, resident groups and hand-off (null without a machine).
  std::shared_ptr<const ProgramAnalysis> analysis;
  /// What each two-operand statement runs, in statement order (empty without a machine): the
  /// choice, or its resident step, or its hand-off variant (the hand-off unless
  /// options.plan.handoff is off).
  std::vector<StatementPlan> statements;
};

/// Plans `program` on `machine` once: analyze() of every two-operand statement (analysis.h), the
/// resident accumulation groups (program/resident.h), the hand-off pass (program/sequence.h, as
/// a prediction too when --no-handoff or a resident group keeps the program from running it) and
/// the statements' plans from them. Without a machine only `program` and `options` are set.
ProgramPlan make_plan(const ir::Program& program, const std::optional<Machine>& machine, const ReportOptions& options);

/// The number of contraction analyses (analysis.h analyze(): every method on one contraction)
/// this process has run, for tests that hold a program to be planned once (make_plan()) and
/// then only rendered and emitted.
std::uint64_t analyses_run();

/// make_plan(program, machine, {false, options}).statements: the plan each two-operand statement
/// of `program` runs, in statement order.
std::vector<StatementPlan> plan_program(const ir::Program& program, const Machine& machine, const PlanOptions& options);

/// "12=inside-rotation order=ABC P=4 …": each two-operand statement's source line and the one-line
/// text of the plan it runs (Plan::to_string(), the form --plan LINE=PLAN reads back; a resident
/// step's "resident" with its group), one a line; "12=none (REASON)" without a feasible plan.
std::string plan_lines(const ProgramPlan& plan);

/// The dry-run report of `plan` as text: per statement its source, the macro-index form, sizes
/// and flops (and, with a machine, the methods table and one "chosen:" line, the plan generated
/// programs run and why it beat the runner-up, analysis.h choice_text(); then its plan section);
/// with a machine and several statements, the total and the hand-off section (sequence.h
/// handoff_text()). Renders only: analyses nothing.
std::string dry_run_text(const ProgramPlan& plan);

/// The same as JSON: {"file", "machine" (bytes, bytes/s; null without a machine),
/// "contractions": [{"statement", "line", "I", "J", "K", "extents", "elements",
/// "bytes", "flops", "permutation", and with a machine "methods" (seven entries: the six
/// Gao methods with comm, algorithm, feasible, reason, order, case, model_time_s,
/// model_disk_bytes, model_comm_bytes, tiles; then cosma with comm "inside", algorithm
/// "cosma", feasible, reason, order "-", model_time_s etc. of its exact schedule (the slowest
/// rank), grid, idle_ranks, rounds), "chosen" (the row of the chosen plan's candidate: the plan
/// "plan" describes, the one generated programs run; with "choice" (the report's one line: the
/// plan and why it beat the runner-up), "pinned" (true when --plan set it), "runner_up" ({"name",
/// "total_time_s" (null when it has no feasible plan), "reason", "fastest_row", "planner_choice"},
/// or null) and "why" when it is
/// cosma), "fastest_row" (the methods table's row of least compute-stage time), "cosma" (the
/// strategy: Eq. 32 a, b, bound, stretch), "plan", "lower_bound_bytes_per_rank"}], "copies"
/// (statement, line, elements and, with a machine, copy_volumes(): disk_read_bytes[],
/// disk_write_bytes[], time_s)}. The schema of the cost-model issue; `--all` adds "candidates";
/// "total_predicted_time_s" sums the chosen plans' and the copies' predicted seconds (null without a machine);
/// "io_lower_bound_s" the planned contractions' I/O lower bounds (each plan's "io_bound": the
/// larger of the compulsory I/O and Theorem 1 of Kwasniewski et al., analysis.h IoBound);
/// "handoff" is the greedy rank-to-rank hand-off over the steps, which generated programs run
/// unless --no-handoff ("model_only" then true; sequence.h handoff_json(); null without a
/// machine); "tensors" ({name:
/// {"shape", "role"}}) and "statements" (canonical text, in order) describe the program.
/// The dry run as a picture (SVG 1.1 text): per two-operand statement, every feasible candidate
/// (ContractionAnalysis::candidates: each method × order × broadcast operand's integer plan, and a
/// pinned plan no method proposed) as a
/// horizontal bar of seconds split into its compute stage's disk, network and kernel time on the
/// slowest rank (plan.h wall_parts()) and its stages 1 and 3, a black mark at its predicted total
/// (below the sum of the parts where the plan overlaps them), the chosen plan in bold, and the
/// contraction's I/O lower bound (analysis.h io_bound()) as a dashed red line; an axis in seconds.
/// Precondition: plan.machine.
std::string dry_run_svg(const ProgramPlan& plan);

nlohmann::json dry_run_json(const ProgramPlan& plan);

}  // namespace tcec::costmodel
