// costmodel/analysis.h — (private) everything the report says about one
// contraction on one machine: the model optimum of each of the six Gao methods,
// COSMA's exact schedule, every candidate, the chosen method and the communication
// lower bound.
#pragma once

#include <vector>

#include "costmodel/cosma.h"
#include "costmodel/costmodel.h"
#include "costmodel/layout.h"
#include "costmodel/model.h"
#include "costmodel/plan_search.h"
#include "ir/ir.h"

namespace tcec::costmodel {

struct ContractionAnalysis {
  const ir::Statement* statement = nullptr;   ///< the analysed statement (of the program passed to analyze)
  ir::MacroIndexGemm gemm;
  Problem problem;                      ///< bytes, from gemm and the element size
  /// inside/outside × rotation/replication/accumulation, best order each; then cosma (its
  /// exact schedule: cosma has no continuous relaxation; the slowest rank's bytes and time)
  std::vector<ModelPoint> methods;
  std::vector<ModelPoint> candidates;   ///< every method × order (× replicated operand), then cosma
  ModelPoint chosen;                    ///< the feasible method of least model time (cosma: exact)
  double lower_bound_bytes_per_rank = 0;
  std::vector<PlannedCandidate> plans;  ///< integer plan of each candidate (same index as candidates)
  /// Whether the statement adds to a result an earlier statement of the program wrote (its C
  /// then starts from the current value: stage 1 also lays out C).
  bool accumulate = false;
  /// Declared distributions of A, B and C (Gao et al. §2.3 "constrained"): stages 1 and 3 move
  /// them rank to rank, and the plans try each declared dimension as distribution index.
  DeclaredLayouts declared;
  /// The feasible plan of least exact time, compute stage plus redistribution (options
  /// permitting): a greedy choice per statement, in program order.
  PlannedCandidate plan;
  ModelPoint plan_model;                ///< the model optimum of the plan's method × order
  CosmaStrategy cosma;                  ///< COSMA fitted to this problem and machine
  PlannedCandidate gao_plan;            ///< the best allowed plan of the six Gao methods
};

/// The best feasible Gao method (the first six of `methods`); infeasible when none is.
ModelPoint best_gao_method(const ContractionAnalysis& a);

/// Why cosma wins, e.g. "cosma: 16.32 s vs best Gao method inside replication-A (CAB)
/// 18.553 s (2.29x less communication: 64 MB vs 146 MB received per rank)", from the model
/// rows (`plans` false) or the exact plans (`plans` true). Empty when cosma is not chosen.
std::string cosma_why(const ContractionAnalysis& a, bool plans);

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

/// Words moved into a rank's memory for the compute stage, in bytes: disk reads plus bytes
/// received, on the rank where that sum is largest (the quantity the COSMA lower bound
/// limits). For a cosma plan also the rank's own pieces of the rounds its slice buffers hold
/// from the load phase on (read from the operands' files straight into memory; cosma.h), so
/// that every element a rank multiplies is counted once, as COSMA's Theorem 1 counts it.
/// `v` must be plan_volumes(plan, machine, ...) of all plan.processors ranks.
double moved_bytes(const Plan& plan, const PlanVolumes& v, const Machine& machine);

/// The macro-index groups of a contraction: index names and extents in group order.
Groups groups_from(const ir::Program& program, const ir::MacroIndexGemm& gemm);

/// The model problem of a macro-index GEMM: extents in elements, sizes in bytes.
Problem problem_from(const ir::MacroIndexGemm& g, double element_size_bytes);

/// Per-rank lower bound on words moved for C = A·B with m = |I|, n = |J|, k = |K|
/// on P ranks of S words each: 2·(mnk/P)/√S + mn/P (Kwasniewski et al.,
/// COSMA, Theorem 1), returned in bytes (words × element size).
double lower_bound_bytes_per_rank(const ir::MacroIndexGemm& g, const Machine& machine);

/// Analyses a two-operand statement: model optima of every candidate and an
/// integer plan for each, and COSMA's strategy and exact volumes; the plan is chosen
/// among the candidates `options` permits (cosma included, by exact time; ties keep the
/// Gao plan). Precondition: s has two operands.
/// `kept` (sequence.h, model only): operands A, B and C's current values that an earlier
/// step left on the ranks (their layouts; they then move rank to rank in stage 1), and
/// whether the result stays on the ranks (C_stays: no stage 3). Cosma, whose layout has no
/// TensorLayout, is then infeasible, as with declared distributions.
ContractionAnalysis analyze(const ir::Program& program, const ir::Statement& s, const Machine& machine,
                            const PlanOptions& options, const DeclaredLayouts* kept = nullptr);

}  // namespace tcec::costmodel
