// costmodel/method.h — (private) the interface every parallel method implements, and the
// registry that lists them. Analysis, plan text, volumes, memory, redistribution and the
// report go through it; nothing outside a method's own files (methods/<name>/) names a method.
//
// What a method implements (see docs/architecture.md, "The Method interface"):
//   identity      name() (--force-method, the plan text's first word), family(), has_order()
//   analysis      analyze(): its model rows, its candidates with their integer plans
//   plan          its part of Plan (methods/plans.h); plan_text(), parse_field(), check_valid()
//   volumes       volumes() exact per rank, walk() (the independent simulator), collective
//                 factor, tile_bytes() and memory_parts(), stage_elements() (stages 1 and 3)
//   report        its rows, "chosen:" line, plan section, and JSON
// Units: elements where a name says so, otherwise bytes; seconds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "costmodel/model.h"
#include "costmodel/plan.h"
#include "costmodel/program/layout.h"

namespace tcec::costmodel {

struct ContractionAnalysis;
struct PlanOptions;

/// The best integer plan found for one candidate, with its exact volumes.
struct PlannedCandidate {
  Plan plan;
  PlanVolumes volumes;
  PlanVolumes redistribution;  ///< stages 1 and 3 (redistribution_volumes); set by the method's analysis
  /// What the plan costs in all: compute stage plus redistribution (seconds).
  /// (The compute stage's predicted wall time, plan.h plan_wall().)
  double total_s() const { return volumes.wall_s + redistribution.time_s; }
  bool feasible = false;
  std::string reason;  ///< why no plan exists (infeasible only)
};

/// The three macro-index groups of a contraction with the extents of their
/// indices (tile counts 1, no distribution index yet).
struct Groups {
  GroupTiling I, J, K;
};

/// The elements one rank handles in Gao et al. §2.3 stages 1 and 3 (program/redistribution.cpp).
struct StageElements {
  /// Its parts of A and B laid out in stage 1 (read from their files, written to its tiled
  /// copies); 0 for operands the compute stage reads directly (reads_operands_directly()).
  std::uint64_t A = 0, B = 0;
  std::uint64_t C = 0;  ///< its part of the result
  /// Elements of C's old values read into memory when accumulating (and not written); unset:
  /// the rank lays its part of C out on disk instead (read and written).
  std::optional<std::uint64_t> C_start;
  /// Elements of A and B written to the local disk; unset: all it lays out. When set, C's
  /// part also stays in memory until stage 3 writes it (no read back).
  std::optional<std::uint64_t> spilled;
  bool owns_C = false;  ///< holds final values of C (stage 3 writes them)
};

/// Data a method's analysis keeps for its report (e.g. a fitted strategy); see
/// ContractionAnalysis::detail().
struct MethodDetail {
  virtual ~MethodDetail() = default;
};

/// What a method's analyze() adds its rows and candidates through: the contraction, the
/// machine, the options, and the common rules of the plan choice.
class MethodAnalysis {
 public:
  MethodAnalysis(ContractionAnalysis& a, const Groups& groups, const Machine& machine, const PlanOptions& options)
      : a_(a), groups_(groups), machine_(machine), options_(options) {}
  ContractionAnalysis& analysis() const { return a_; }
  const Groups& groups() const { return groups_; }
  const Machine& machine() const { return machine_; }
  const PlanOptions& options() const { return options_; }
  /// True when the options let `m` plan under `order` (nullopt: a method without orders).
  bool allows(const Method& m, std::optional<DiskPlacementOrder> order) const;
  /// Adds a row of the methods table (the method's best; the least time is the model's choice);
  /// rows of methods --exclude-method names are left out.
  void add_row(const ModelPoint& row);
  /// Adds a candidate and its integer plan (the same index in candidates and plans). When
  /// `allowed` and feasible, the plan competes by total time (compute stage plus
  /// redistribution; ties keep the earlier), in the chosen plan and in its family's best. Its
  /// compute stage's disk requests are counted here, as a lone step runs it, and with
  /// Machine::disk_latency_s > 0 are part of its time (stages 1 and 3: not yet).
  /// The caller has set the plan's redistribution when allowed and feasible.
  void add_candidate(const Method& m, const ModelPoint& row, const PlannedCandidate& plan, bool allowed);
  /// Keeps `detail` for the method's report (ContractionAnalysis::detail()).
  void keep_detail(const Method& m, std::shared_ptr<const MethodDetail> detail);

 private:
  ContractionAnalysis& a_;
  const Groups& groups_;
  const Machine& machine_;
  const PlanOptions& options_;
};

/// A parallel method of the cost model: one communication and computation schedule for the
/// macro-index GEMM C(I,J) += A(I,K)·B(J,K), its plans and its report. Stateless; one
/// instance per method in the registry.
class Method {
 public:
  virtual ~Method() = default;

  /// The name --force-method takes and a plan's text starts with ("inside-rotation", …).
  virtual std::string name() const = 0;
  /// The family the report compares a chosen method against ("Gao": the six of Gao et al.).
  /// A family's plans share one alternative of Plan::method.
  virtual std::string family() const = 0;
  /// True when the method runs a tiled loop nest with a disk placement order (--force-order).
  virtual bool has_order() const = 0;
  /// True when its arrays lie on the ranks in a TensorLayout (program/layout.h plan_layout()),
  /// so that declared distributions and the sequence hand-off apply to its plans.
  virtual bool has_layout() const = 0;
  /// True when `plan` (its Plan::method part and any fields within it) is this method's.
  virtual bool owns(const Plan& plan) const = 0;
  /// When no plan is feasible: whether this method's reason is reported even when it was not
  /// forced (false: only with --force-method NAME).
  virtual bool states_infeasibility() const { return true; }

  // --- analysis ------------------------------------------------------------------------
  /// Adds the method's rows (methods table) and candidates with integer plans to `ctx`.
  virtual void analyze(MethodAnalysis& ctx) const = 0;

  // --- plan ----------------------------------------------------------------------------
  /// Sets plan->method to this method's part with default values (parse_plan()).
  virtual void start_plan(Plan* plan) const = 0;
  /// The plan's one-line text, starting with name() (Plan::to_string()).
  virtual std::string plan_text(const Plan& plan) const = 0;
  /// The keys of its plan text besides the common "P" and "split" ("order", "bcast", …).
  virtual std::vector<std::string> fields() const = 0;
  /// Applies one KEY=VALUE of the plan text, KEY one of fields(); false with *error naming
  /// the field and what was expected.
  virtual bool parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const = 0;
  /// The method's validity rules (P already matches the machine), buffers fitting memory
  /// included; *reason may be null (then fast, no message).
  virtual bool check_valid(const Plan& plan, const Machine& machine, std::string* reason) const = 0;
  /// Exact compute-stage bytes of ranks first … end-1 (vectors from 0).
  virtual PlanVolumes volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                              std::int64_t end_rank) const = 0;
  /// Exact compute-stage disk requests per rank (plan.h PlanVolumes::disk_requests), every rank,
  /// with the arrays reached as `access` says.
  virtual std::vector<std::uint64_t> disk_requests(const Plan& plan, const ArrayAccess& access) const = 0;
  /// Estimated page faults per rank of the compute stage's reads through tensor files' mappings
  /// (plan.h PlanVolumes::page_faults, costmodel/methods/pass_runs.h PassRuns::faults()), every
  /// rank, for Machine::page_fault_s. Empty (the default): not counted, as for methods that read
  /// through tiled files or whose direct reads are dense blocks (a fault per 64 KiB read).
  virtual std::vector<std::uint64_t> page_faults(const Plan&, const ArrayAccess&) const { return {}; }
  /// The same bytes from an independent walk of the schedule (the simulator the tests hold equal).
  virtual PlanVolumes walk(const Plan& plan, const Machine& machine) const = 0;
  /// f in read/B_dr + write/B_dw + f·received/B_c (docs/model.md "Collective factors").
  virtual double collective_factor(const Plan& plan, const Machine& machine) const = 0;
  /// Floating-point operations rank `rank` performs in the compute stage (2 per multiply-add
  /// of its local products), for the time model (plan.h plan_wall()).
  virtual double rank_flops(const Plan& plan, std::int64_t rank) const = 0;
  /// The tile kernel's rate on rank `rank`'s local products relative to Machine::flops_per_s
  /// (measured on large square tiles): plan.h gemm_efficiency() of the shape of its calls, for the
  /// time model (plan.h plan_wall()). Default 1 (methods whose calls are large).
  /// On `machine` (its Machine::memory_bytes_per_s bounds calls that stream: plan.h
  /// gemm_efficiency(m, n, k, machine)).
  virtual double kernel_efficiency(const Plan& /*plan*/, const Machine& /*machine*/, std::int64_t /*rank*/) const {
    return 1;
  }
  /// How many copies of tile_bytes() the plan allocates: 2 for a Gao plan with overlap (its
  /// second buffers), else 1 (default).
  virtual int buffer_sets(const Plan& /*plan*/) const { return 1; }
  /// Buffer bytes per array on the fullest rank (plan.h tile_bytes()).
  virtual TileBytes tile_bytes(const Plan& plan, double element_size_bytes) const = 0;
  /// The buffers in the order the runtime allocates them, from tile_bytes() (plan_memory()).
  virtual std::vector<MemoryPart> memory_parts(const Plan& plan, const TileBytes& bytes) const = 0;
  /// Direct tile I/O: whether the compute stage reads the plan's operands A and B straight
  /// from their tensors (the store's files or the inputs) when they are not taken rank to rank,
  /// so that stage 1 lays nothing out for them (runtime GemmSpec::direct_A/B). Default false.
  virtual bool reads_operands_directly(const Plan& plan) const;
  /// Direct tile I/O of the result: whether the compute stage reads and writes C's tiles in
  /// the result's new file in the store (runtime GemmSpec::direct_C), so that stage 3 moves
  /// nothing, unless C's values come from or stay on the ranks (taken, kept, declared; see
  /// writes_result_directly(plan, declared) below). Default false.
  virtual bool writes_result_directly(const Plan& plan) const;
  /// What rank `rank` handles in stages 1 and 3 (elements); operands read directly count 0.
  virtual StageElements stage_elements(const Plan& plan, std::int64_t rank) const = 0;
  /// Exact disk requests per rank of stages 1 and 3 (runtime counters.h Volumes::disk_requests),
  /// every rank, with the tensors' files reached as `access` says (plan.h StageAccess; nothing
  /// taken, kept or flushed). Default: zeros (a method whose compute stage works in the tensors'
  /// files has no stages 1 and 3).
  virtual std::vector<std::uint64_t> stage_requests(const Plan& plan, const StageAccess& access) const;
  /// Where array `array` of the plan lies on the ranks, for a tensor whose dimension d holds
  /// the index names[d] (program/layout.h). Only when has_layout(); the default throws.
  virtual TensorLayout layout(const Plan& plan, GemmArray array, const std::vector<std::string>& names) const;
  /// Bytes rank `rank` loads straight into memory outside its counted disk reads (counted in
  /// moved_bytes() as Theorem 1 counts them); 0 for most methods.
  virtual double resident_bytes(const Plan& plan, std::int64_t rank, double element_size_bytes) const;

  // --- report --------------------------------------------------------------------------
  /// The row's method as the table prints it ("inside replication-A", …).
  virtual std::string row_name(const ModelPoint& row) const = 0;
  /// The row or plan in a sentence: "method inside replication-A (CAB)", "plan inside-replication (CAB)".
  virtual std::string describe_row(const ModelPoint& row) const = 0;
  virtual std::string describe_plan(const Plan& plan) const = 0;
  /// A feasible row of the methods table, with its line end.
  virtual std::string row_text(const ModelPoint& row, const ContractionAnalysis& a) const = 0;
  /// A row as JSON (feasible or not).
  virtual nlohmann::json row_json(const ModelPoint& row, const ContractionAnalysis& a) const = 0;
  /// How the report's "chosen:" line names a plan of this method with candidate row `row`, e.g.
  /// "inside replication-B, order CAB" or "cosma, grid 2x2x1 (0 idle), 8 rounds".
  virtual std::string choice_name(const ModelPoint& row, const Plan& plan) const = 0;
  /// Keys added to the JSON "chosen" row when the chosen plan is this method's.
  virtual void chosen_json(const ContractionAnalysis& a, nlohmann::json& chosen) const;
  /// What the lower-bound line calls the reads of the chosen plan's method ("disk reads"; the
  /// line counts its exact moved_bytes(): reads, V and writes, as Theorem 1 counts loads and stores).
  virtual std::string moved_label() const { return "disk reads"; }
  /// Keys this method adds to every contraction's JSON (whether chosen or not).
  virtual void analysis_json(const ContractionAnalysis& a, nlohmann::json& j) const;
  /// Lines the report prints above the methods table about the contraction as this method sees
  /// it (e.g. tbs: "  symmetric result: C[I,J] = C[J,I] …"), each with its line end; default none.
  virtual std::string analysis_note(const ContractionAnalysis& a) const;
  /// The plan section of the text report for the chosen plan (its plan: line and details;
  /// the redistribution line follows).
  virtual std::string plan_section(const ContractionAnalysis& a, const Machine& machine) const = 0;
  /// The method's keys of the JSON "plan" object (comm, algorithm, order, …).
  virtual void plan_json(const ContractionAnalysis& a, const Machine& machine, nlohmann::json& j) const = 0;
};

/// Whether the plan's compute stage works on C in the result's file (Method::writes_result_directly())
/// given where C's values come from and go (`declared`: a declared or kept C, C's start taken
/// from the ranks, or a result that stays there rule it out; null: none).
bool writes_result_directly(const Plan& plan, const DeclaredLayouts* declared);

/// Every method, in the order the report lists them (methods/registry.cpp).
const std::vector<const Method*>& methods();
/// The method whose name() is `name`; null when none.
const Method* find_method(std::string_view name);
/// The method of `plan`. Precondition: some method owns it (every Plan built by a method does).
const Method& method_of(const Plan& plan);

}  // namespace tcec::costmodel
