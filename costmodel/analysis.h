// costmodel/analysis.h — (private) everything the report says about one
// contraction on one machine: the model optimum of each of the six methods,
// every candidate, the chosen method and the communication lower bound.
#pragma once

#include <vector>

#include "costmodel/costmodel.h"
#include "costmodel/model.h"
#include "costmodel/plan_search.h"
#include "ir/ir.h"

namespace tcec::costmodel {

struct ContractionAnalysis {
  ir::MacroIndexGemm gemm;
  Problem problem;                      ///< bytes, from gemm and the element size
  std::vector<ModelPoint> methods;      ///< inside/outside × rotation/replication/accumulation, best order each
  std::vector<ModelPoint> candidates;   ///< every method × order (× replicated operand)
  ModelPoint chosen;                    ///< the feasible method of least model time
  double lower_bound_bytes_per_rank = 0;
  std::vector<PlannedCandidate> plans;  ///< integer plan of each candidate (same index as candidates)
  PlannedCandidate plan;                ///< the feasible plan of least exact time (options permitting)
  ModelPoint plan_model;                ///< the model optimum of the plan's method × order
};

/// The "plan:" section of the dry-run text (report_plan.cpp): the plan's text
/// form, integer tile counts, tile bytes, per-rank exact volumes, predicted
/// time against the model optimum and data moved against the lower bound.
std::string plan_text(const ContractionAnalysis& a, const Machine& machine);
/// The JSON "plan" object of the cost-model issue's schema (null when none).
nlohmann::json plan_json(const ContractionAnalysis& a, const Machine& machine);

/// Words moved per rank in the compute stage, in bytes: disk reads plus bytes
/// received, on the rank where that sum is largest (the quantity the COSMA
/// lower bound limits).
double moved_bytes(const PlanVolumes& v);

/// The macro-index groups of a contraction: index names and extents in group order.
Groups groups_from(const ir::Program& program, const ir::MacroIndexGemm& gemm);

/// The model problem of a macro-index GEMM: extents in elements, sizes in bytes.
Problem problem_from(const ir::MacroIndexGemm& g, double element_size_bytes);

/// Per-rank lower bound on words moved for C = A·B with m = |I|, n = |J|, k = |K|
/// on P ranks of S words each: 2·(mnk/P)/√S + mn/P (Kwasniewski et al.,
/// COSMA, Theorem 1), returned in bytes (words × element size).
double lower_bound_bytes_per_rank(const ir::MacroIndexGemm& g, const Machine& machine);

/// Analyses a two-operand statement: model optima of every candidate and an
/// integer plan for each; the plan is chosen among the candidates `options`
/// permits. Precondition: s has two operands.
ContractionAnalysis analyze(const ir::Program& program, const ir::Statement& s, const Machine& machine,
                            const PlanOptions& options);

}  // namespace tcec::costmodel
