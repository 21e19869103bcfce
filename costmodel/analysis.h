// costmodel/analysis.h — (private) everything the report says about one
// contraction on one machine: each method's rows (method.h; the Gao methods' model optima,
// other methods' exact schedules), every candidate with its integer plan, the chosen method
// and plan, and the communication lower bound.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "costmodel/costmodel.h"
#include "costmodel/method_model.h"
#include "costmodel/method_report.h"
#include "costmodel/model.h"
#include "costmodel/program/layout.h"
#include "ir/ir.h"

namespace tcec::costmodel {

/// One candidate of a contraction: a row of one method × order × broadcast operand (its model
/// optimum, or its exact schedule for methods without a closed form) and its integer plan
/// (infeasible with a reason when none fits, or when the options do not allow it).
struct Candidate {
  ModelPoint row;
  PlannedCandidate plan;
  /// The plan competed for the choice: feasible, allowed by the options (--force-method,
  /// --exclude-method, --force-order) and within --max-writes.
  bool eligible = false;
};

struct ContractionAnalysis {
  const ir::Statement* statement = nullptr;  ///< the analysed statement (of the program passed to analyze)
  ir::MacroIndexGemm gemm;
  Problem problem;  ///< bytes, from gemm and the element size
  /// Each method's rows in registry order (method.h): the Gao methods' best order each (model
  /// optimum), other methods' exact schedules (the slowest rank's bytes and time).
  std::vector<ModelPoint> methods;
  /// Every candidate of every method (e.g. method × order × broadcast operand), in registry order.
  std::vector<Candidate> candidates;
  /// The feasible methods-table row of least compute-stage time (model figures, no stages 1 and 3):
  /// what the table shows fastest. Not the choice: `plan` is (by total time).
  ModelPoint fastest_row;
  double lower_bound_bytes_per_rank = 0;
  /// PlanOptions::max_writes of the analysis (0: none), and the best total time of the allowed
  /// feasible plans before it removed any (infinity when none was feasible), for the report.
  double max_writes = 0;
  double unconstrained_s = std::numeric_limits<double>::infinity();
  /// Whether the statement adds to a result an earlier statement of the program wrote (its C
  /// then starts from the current value: stage 1 also lays out C).
  bool accumulate = false;
  /// Declared distributions of A, B and C (Gao et al. §2.3 "constrained"): stages 1 and 3 move
  /// them rank to rank, and the plans try each declared dimension as distribution index.
  DeclaredLayouts declared;
  /// The choice: the index in `candidates` of the eligible plan of least exact total time,
  /// compute stage plus stages 1 and 3 (ties: the candidate of less compute-stage time, then
  /// the earlier), a greedy choice per statement in program order; -1 when no candidate is
  /// eligible (then `no_choice` says why).
  int chosen = -1;
  /// What the choice is when no candidate was chosen: no row (ModelPoint::method null), its
  /// plan infeasible with the reason.
  Candidate no_choice;
  /// The plan --plan pinned (PlanOptions::pins, --plan LINE=PLAN), which replaces the choice: a
  /// plan of its own, not a candidate (its plan infeasible when its method cannot take the
  /// tensors kept on the ranks), with the candidate row of its method × order (candidate_row());
  /// `chosen` then stays what the planner would have chosen.
  std::optional<Candidate> pinned;

  /// The pinned plan, else the chosen candidate, else no_choice.
  const Candidate& choice() const {
    return pinned ? *pinned : chosen >= 0 ? candidates[static_cast<std::size_t>(chosen)] : no_choice;
  }
  Candidate& choice() { return const_cast<Candidate&>(std::as_const(*this).choice()); }
  /// The plan generated programs run (unless the hand-off or a resident group replaces it):
  /// choice()'s plan, infeasible with a reason when there is none.
  const PlannedCandidate& plan() const { return choice().plan; }
  PlannedCandidate& plan() { return choice().plan; }
  /// The row of the plan's candidate (model optimum of its method × order).
  const ModelPoint& plan_row() const { return choice().row; }
  /// What the planner chose, pinned plan or not (infeasible when nothing was).
  const PlannedCandidate& planner_choice() const {
    return chosen >= 0 ? candidates[static_cast<std::size_t>(chosen)].plan : no_choice.plan;
  }

  /// The best allowed plan of each method family (Method::family), in registry order, with
  /// the rules of the choice; an infeasible entry's reason says why.
  std::vector<std::pair<std::string, PlannedCandidate>> family_plans;
  /// What each method's analysis kept for its report (MethodAnalysis::keep_detail()).
  std::vector<std::pair<const Method*, std::shared_ptr<const MethodDetail>>> details;

  /// The detail method `m` kept, as T (null when none or of another type).
  template <class T>
  const T* detail(const Method& m) const {
    for (const auto& [method, d] : details)
      if (method == &m) return dynamic_cast<const T*>(d.get());
    return nullptr;
  }
};

/// The candidate row of `plan` (the model optimum of its method × order × broadcast operand;
/// the exact row of a method without orders); its method's table row when no candidate matches.
ModelPoint candidate_row(const ContractionAnalysis& a, const Plan& plan);

/// How the compute stage of `plan`, run as a lone step of `a`'s contraction, reaches the tensors'
/// files: A and B directly where its method reads them so, C directly unless declared or kept
/// (writes_result_directly()), with the contraction's dimension orders. Its disk requests
/// (plan_requests()) are counted from it.
ArrayAccess lone_step_access(const ContractionAnalysis& a, const Plan& plan);

/// The runner-up of the choice (report/choice.cpp): when the methods table's fastest row
/// (ContractionAnalysis::fastest_row) is of another method than the chosen plan, that method
/// (its best eligible plan, or why it has none); otherwise the eligible candidate of least total
/// time of another method; with a pinned plan, the planner's choice.
struct RunnerUp {
  bool exists = false;
  std::string name;             ///< MethodReport::choice_name() of its plan, or its method's row name
  PlannedCandidate plan;        ///< infeasible when it has no plan (then plan.reason says why)
  bool fastest_row = false;     ///< its compute stage is the methods table's fastest
  double fastest_row_s = 0;     ///< that row's time (seconds)
  bool planner_choice = false;  ///< the pinned plan's runner-up: what the planner would have chosen
};
RunnerUp runner_up(const ContractionAnalysis& a);
/// The chosen plan and why it beat the runner-up, one line without indentation or newline:
/// "chosen: inside replication-B, order CAB: 13.115 s predicted in all (compute stage and
/// redistribution); runner-up cosma, grid 2x2x1 (0 idle), 8 rounds: 24.942 s in all, though its
/// compute stage is the methods table's fastest (6.32 s): plans are picked by the total" or
/// "chosen: none (REASON)".
std::string choice_text(const ContractionAnalysis& a);
/// The JSON "chosen" object: the chosen plan's candidate row (MethodReport::row_json()) with its
/// method's chosen_json() keys, "choice" (choice_text() after "chosen: "), "pinned" and
/// "runner_up" ({"name", "total_time_s" (null without a feasible plan), "reason", "fastest_row",
/// "planner_choice"} or null); null without a feasible plan.
nlohmann::json chosen_json(const ContractionAnalysis& a);

/// The feasible row of least time among the methods of families other than `family`;
/// infeasible when none is.
ModelPoint best_row_outside(const ContractionAnalysis& a, const std::string& family);
/// The best plan among families other than `family` (the feasible one of least total time,
/// else the first); null when there is no other family.
const PlannedCandidate* best_plan_outside(const ContractionAnalysis& a, const std::string& family,
                                          std::string* other_family);

/// The I/O lower bound per rank of a contraction whose operands start in files and whose
/// result ends in one (bytes, seconds), and the chosen plan against it (io_bound.cpp):
///  (a) compulsory: every rank reads its share of A and B once (and of C's current values when
///      the statement adds to them) and writes its share of C once: (|A| + |B| [+ |C|]) / P
///      read, |C| / P written;
///  (b) Theorem 1 of Kwasniewski et al.: a rank loads or stores at least 2mnk/(P√S) + mn/P
///      words (S its memory in words);
///  (c) disks of all memories: Theorem 1 for one sequential machine whose fast memory is all
///      ranks' memories (P·S words; moves between ranks free) bounds the disk traffic of all
///      ranks, (2mnk/√(PS) + mn) words, and the fullest rank carries at least 1/P of it.
/// bytes = max(a's reads + writes, b, c); time_s = max(a's reads at B_dr + writes at B_dw, b at
/// the fastest of B_dr, B_dw and B_c, c's mn/P result words at B_dw and the rest at the faster
/// of B_dr and B_dw). The plan's figures: every byte its fullest rank reads, receives and writes
/// in the compute stage and the redistribution, and its total time.
struct IoBound {
  /// Which term is largest in bytes (ties: the earlier).
  enum class Binds { compulsory, theorem1, aggregate };
  double compulsory_read_bytes = 0, compulsory_write_bytes = 0, theorem1_bytes = 0, aggregate_bytes = 0;
  Binds binds = Binds::compulsory;
  /// A symmetric result (C = A·Aᵀ, not added to C's current value): A is read once for both
  /// operands, and (b) and (c) are Beaumont et al.'s SYRK bound, which counts A's loads and C's
  /// traffic together (syrk_lower_bound_words(); over the disks of all memories
  /// max(mnk/√(2PS), mn)/P) instead of Theorem 1; the text names it "SYRK bound" (JSON "binds":
  /// "theorem1" all the same).
  bool symmetric = false;
  Binds time_binds = Binds::compulsory;  ///< which term's time is longest (ties: the earlier)
  double bytes = 0, time_s = 0;
  double plan_bytes = 0, plan_time_s = 0;  ///< 0 without a feasible plan
};
IoBound io_bound(const ContractionAnalysis& a, const Machine& machine);
/// "    I/O lower bound per rank: 1.64 TB (compulsory I/O binds: compulsory reads 819 GB + writes
/// 819 GB; Theorem 1 1.28 TB; disks of all memories 1.1 TB), 2.048e+05 s (compulsory I/O binds);
/// the plan moves … in … s: 1.000x in bytes, 1.000x in time" (the binding terms in bytes and in
/// time: "compulsory I/O", "Theorem 1" or "disks of all memories").
std::string io_bound_text(const IoBound& b);
/// {"binds": "compulsory" | "theorem1" | "aggregate", "time_binds" (the same three),
/// "compulsory_read_bytes",
/// "compulsory_write_bytes", "theorem1_bytes", "aggregate_bytes", "bytes", "time_s", "plan_bytes", "plan_time_s", "bytes_ratio", "time_ratio"}.
nlohmann::json io_bound_json(const IoBound& b);

/// The methods-table row of a method planned by its exact schedule (no closed-form model):
/// infeasible with pc's reason, or the bytes of its slowest rank by rank_time_s() and that time.
/// Its ModelPoint::method is unset (MethodAnalysis::add_row() sets it).
ModelPoint exact_row(const PlannedCandidate& pc, const Machine& machine);
/// Such a row as the methods table prints it: "    NAME  -  WHAT  V  D  time", WHAT its schedule
/// in words (e.g. "grid 2x2x1, 0 idle, 8 rounds (exact schedule)"); V, D in bytes, time in s.
std::string exact_row_text(const ModelPoint& row, const std::string& name, const std::string& what);
/// Such a row as JSON: {"comm": "inside", "algorithm", "feasible", "reason"} and, when
/// feasible, "order": "-", "model_time_s", "model_disk_bytes", "model_disk_read_bytes",
/// "model_disk_write_bytes", "model_comm_bytes" (bytes per rank, seconds).
nlohmann::json exact_row_json(const ModelPoint& row, const char* algorithm);

/// Writes and reads per rank against their lower bounds (Carson et al., seed 004, §II: the
/// output must reach slow memory once, so a rank writes at least its share of the result,
/// |C|/P; it reads at least its share of each operand, io_bound()'s compulsory reads), bytes of
/// the fullest rank over the compute stage and stages 1 and 3.
struct WriteReport {
  double write_bytes = 0, write_bound_bytes = 0;
  double read_bytes = 0, read_bound_bytes = 0;
  double max_writes = 0;                                             ///< PlanOptions::max_writes (0: none)
  double unconstrained_s = std::numeric_limits<double>::infinity();  ///< ContractionAnalysis::unconstrained_s
  double plan_s = 0;                                                 ///< the chosen plan's total time
};
/// Precondition: a.plan().feasible.
WriteReport write_report(const ContractionAnalysis& a, const Machine& machine);
/// The fullest rank's writes of `pc` (compute stage plus stages 1 and 3), bytes.
double plan_write_bytes(const PlannedCandidate& pc);
/// "    writes per rank: 72 MB against the write lower bound 72 MB (the result's share, |C|/P),
/// 1.000x; reads 1.44 GB against 144 MB (each operand's share once), 10.000x" and, with
/// --max-writes, "; --max-writes 1: 2.3 s against 2.2 s without the limit (+4.5%)".
std::string write_text(const WriteReport& w);
/// {"write_bytes", "write_bound_bytes", "write_ratio", "read_bytes", "read_bound_bytes",
/// "read_ratio", and with --max-writes "max_writes", "unconstrained_s"}.
nlohmann::json write_json(const WriteReport& w);

/// A whole program's writes per rank through the store (every contraction's plan, compute stage
/// and stages 1 and 3, and every copy step, summed per rank; the fullest rank), against the
/// outputs' share, Σ |output|/P (intermediates count zero: a program could keep them in
/// memory), bytes. Contractions without a feasible plan add nothing.
struct ProgramWrites {
  double write_bytes = 0, bound_bytes = 0;
};
ProgramWrites program_writes(const ir::Program& program, const Machine& machine,
                             const std::vector<std::optional<ContractionAnalysis>>& analyses);
/// "writes per rank over the program (through the store): 2.88 MB against the outputs' share
/// 720 KB, 4.000x".
std::string program_writes_text(const ProgramWrites& w);
/// {"write_bytes", "bound_bytes", "ratio"}.
nlohmann::json program_writes_json(const ProgramWrites& w);

/// "5" when every rank has 5, else "3 .. 5" (min .. max over ranks).
std::string range_text(const std::vector<std::uint64_t>& v);
/// The plan section's per-rank volumes line: "    per rank (bytes, min .. max): disk read …, disk
/// write …, sent …, received …; disk requests …" and ", page faults about …" when counted.
std::string per_rank_text(const PlanVolumes& v);
/// The plan section's wall-time line for the chosen plan (plan.h plan_wall(), its slowest
/// rank): "    wall time 13.12 s predicted, serial: disk 12 s + network 0.48 s + kernel 0.64 s
/// (50 GFLOP/s)", or "…, overlapped: max(disk …, network … + kernel …) + fill and drain …", with
/// "+ 0.75 of the shorter … s (overlap 0.25)" before the fill when Machine::overlap < 1.
std::string wall_text(const ContractionAnalysis& a, const Machine& machine);
/// "146 MB": bytes in decimal units, three significant digits.
std::string human_bytes(double bytes);

/// The "plan:" section of the dry-run text (report_plan.cpp): the plan's text
/// form, integer tile counts, tile bytes, per-rank exact volumes, predicted
/// time against the model optimum and data moved against the lower bound.
std::string plan_text(const ContractionAnalysis& a, const Machine& machine);
/// The JSON "plan" object of the cost-model issue's schema (null when none).
nlohmann::json plan_json(const ContractionAnalysis& a, const Machine& machine);

/// A step's memory per rank (plan_memory()) for the dry-run: "tile of A 1152000 + tile of B
/// 576000 + tile of C 5760000 = 7488000 B of 8000000 B", with hand-off rounds first when the
/// step takes a tensor: "hand-off rounds 7999992 B (load stage), then tile of A … = 7488000 B;
/// peak 7999992 B of 8000000 B".
std::string memory_text(const PlanMemory& memory, const Machine& machine);
/// The same as JSON: {"parts": [{"what", "bytes", "stage": "load" | "step"}], "peak_bytes",
/// "memory_bytes"}.
nlohmann::json memory_json(const PlanMemory& memory, const Machine& machine);

/// Words a rank loads and stores in the compute stage, in bytes: disk reads, bytes received and
/// disk writes, on the rank where that sum is largest (the quantity Theorem 1 limits: loads and
/// stores), plus what the method loads straight into memory outside its counted reads
/// (MethodModel::resident_bytes()), so that every element a rank multiplies is counted once, as
/// Theorem 1 of Kwasniewski et al. counts it.
/// `v` must be plan_volumes(plan, machine, ...) of all plan.processors ranks.
double moved_bytes(const Plan& plan, const PlanVolumes& v, const Machine& machine);

/// The macro-index groups of a contraction: index names and extents in group order.
Groups groups_from(const ir::Program& program, const ir::MacroIndexGemm& gemm);

/// The model problem of a macro-index GEMM: extents in elements, sizes in bytes.
Problem problem_from(const ir::MacroIndexGemm& g, double element_size_bytes);

/// Per-rank lower bound on words moved for C = A·B with m = |I|, n = |J|, k = |K|
/// on P ranks of S words each: 2·(mnk/P)/√S + mn/P (Kwasniewski et al.,
/// Theorem 1), returned in bytes (words × element size).
double lower_bound_bytes_per_rank(const ir::MacroIndexGemm& g, const Machine& machine);

/// The SYRK bounds of a symmetric contraction per rank (elements a rank loads or stores, A's
/// and C's together, as the bound counts them): Beaumont et al. Corollary 4.7, (1/√2)·N²M/√S
/// for one processor with S words; on P ranks the
/// busiest does at least N²M/(2P) of the N²M/2 multiply-adds, and Theorem 4.1's bound on what X
/// loads can compute holds on every rank alone, so it loads at least (1/√2)·N²M/(P√S). Also at
/// least its share of A once, N·M/P. Returns the larger.
double syrk_lower_bound_words(double N, double M, double P, double S);

/// Analyses a two-operand statement: every method of the registry (method.h) adds its rows
/// and candidates with integer plans; the plan is chosen among the candidates `options`
/// permits, by exact time (ties keep the earlier method). Precondition: s has two operands.
/// `kept` (sequence.h, model only): operands A, B and C's current values that an earlier
/// step left on the ranks (their layouts; they then move rank to rank in stage 1), and
/// whether the result stays on the ranks (C_stays: no stage 3). A method whose layout has no
/// TensorLayout is then infeasible, as with declared distributions.
ContractionAnalysis analyze(const ir::Program& program, const ir::Statement& s, const Machine& machine,
                            const PlanOptions& options, const DeclaredLayouts* kept = nullptr);

}  // namespace tcec::costmodel
