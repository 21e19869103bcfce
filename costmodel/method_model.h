// costmodel/method_model.h — (private) a method's model (method.h): its rows of the methods
// table and its candidates with integer plans (analyze()), and for a plan of it the exact
// compute-stage volumes, disk requests, flops and kernel rate, buffers, what stages 1 and 3
// handle, and where its arrays lie on the ranks. What the analysis hands a method (MethodAnalysis)
// and what it hands back (PlannedCandidate, MethodDetail) are here too.
// Units: elements where a name says so, otherwise bytes; seconds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/method.h"
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

/// What one method's analyze() adds its rows and candidates through: the method, the
/// contraction, the machine, the options, and the common rules of the plan choice.
class MethodAnalysis {
 public:
  MethodAnalysis(ContractionAnalysis& a, const Method& method, const Groups& groups, const Machine& machine,
                 const PlanOptions& options)
      : a_(a), method_(method), groups_(groups), machine_(machine), options_(options) {}
  ContractionAnalysis& analysis() const { return a_; }
  const Method& method() const { return method_; }
  const Groups& groups() const { return groups_; }
  const Machine& machine() const { return machine_; }
  const PlanOptions& options() const { return options_; }
  /// True when the options let the method plan under `order` (nullopt: a method without orders).
  bool allows(std::optional<PlacementOrder> order) const;
  /// True when --force-method names the method.
  bool forced() const;
  /// Adds a row of the methods table (the method's best; the least time is the model's choice),
  /// its ModelPoint::method set to the method; rows of methods --exclude-method names are left out.
  void add_row(ModelPoint row);
  /// Adds a candidate (its row's ModelPoint::method set to the method) and its integer plan.
  /// When `allowed` and feasible, the plan competes by total time (compute stage plus
  /// redistribution; ties keep the earlier), in the choice and in its family's best. Its
  /// compute stage's disk requests are counted here, as a lone step runs it, and with
  /// Machine::disk_latency_s > 0 are part of its time (stages 1 and 3: not yet).
  /// The caller has set the plan's redistribution when allowed and feasible.
  void add_candidate(ModelPoint row, const PlannedCandidate& plan, bool allowed);
  /// Keeps `detail` for the method's report (ContractionAnalysis::detail()).
  void keep_detail(std::shared_ptr<const MethodDetail> detail);

 private:
  ContractionAnalysis& a_;
  const Method& method_;
  const Groups& groups_;
  const Machine& machine_;
  const PlanOptions& options_;
};

/// The model of a method: its analysis and what a plan of it moves, computes and holds.
/// Stateless; one instance per method. The functions taking a plan take one its codec owns.
class MethodModel {
 public:
  virtual ~MethodModel() = default;

  /// Adds the method's rows (methods table) and candidates with integer plans to `ctx`.
  virtual void analyze(MethodAnalysis& ctx) const = 0;

  /// Exact compute-stage bytes of ranks first … end-1 (vectors from 0).
  virtual PlanVolumes volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                              std::int64_t end_rank) const = 0;
  /// The same bytes from an independent walk of the schedule (the simulator the tests hold equal).
  virtual PlanVolumes walk(const Plan& plan, const Machine& machine) const = 0;
  /// Exact compute-stage disk requests per rank (plan.h PlanVolumes::disk_requests), every rank,
  /// with the arrays reached as `access` says.
  virtual std::vector<std::uint64_t> disk_requests(const Plan& plan, const ArrayAccess& access) const = 0;
  /// Estimated page faults per rank of the compute stage's reads through tensor files' mappings
  /// (plan.h PlanVolumes::page_faults, costmodel/methods/pass_runs.h PassRuns::faults()), every
  /// rank, for Machine::page_fault_s. Empty (the default): not counted, as for methods that read
  /// through tiled files or whose direct reads are dense blocks (a fault per 64 KiB read).
  virtual std::vector<std::uint64_t> page_faults(const Plan&, const ArrayAccess&) const { return {}; }
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
  virtual bool reads_operands_directly(const Plan& /*plan*/) const { return false; }
  /// Direct tile I/O of the result: whether the compute stage reads and writes C's tiles in
  /// the result's new file in the store (runtime GemmSpec::direct_C), so that stage 3 moves
  /// nothing, unless C's values come from or stay on the ranks (taken, kept, declared; see
  /// writes_result_directly(plan, declared) in method.h). Default false.
  virtual bool writes_result_directly(const Plan& /*plan*/) const { return false; }
  /// What rank `rank` handles in stages 1 and 3 (elements); operands read directly count 0.
  virtual StageElements stage_elements(const Plan& plan, std::int64_t rank) const = 0;
  /// Exact disk requests per rank of stages 1 and 3 (runtime counters.h Volumes::disk_requests),
  /// every rank, with the tensors' files reached as `access` says (plan.h StageAccess; nothing
  /// taken, kept or flushed). Default: zeros (a method whose compute stage works in the tensors'
  /// files has no stages 1 and 3).
  virtual std::vector<std::uint64_t> stage_requests(const Plan& plan, const StageAccess& access) const;
  /// Where array `array` of the plan lies on the ranks, for a tensor whose dimension d holds
  /// the index names[d] (program/layout.h). Only when Method::has_layout; the default throws
  /// std::logic_error.
  virtual TensorLayout layout(const Plan& plan, GemmArray array, const std::vector<std::string>& names) const;
  /// Bytes rank `rank` loads straight into memory outside its counted disk reads (counted in
  /// moved_bytes() as Theorem 1 counts them); 0 (the default) for most methods.
  virtual double resident_bytes(const Plan& /*plan*/, std::int64_t /*rank*/, double /*element_size_bytes*/) const {
    return 0;
  }
};

}  // namespace tcec::costmodel
