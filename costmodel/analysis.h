// costmodel/analysis.h — (private) everything the report says about one
// contraction on one machine: the model optimum of each of the six methods,
// every candidate, the chosen method and the communication lower bound.
#pragma once

#include <vector>

#include "costmodel/model.h"
#include "ir/ir.h"

namespace tcec::costmodel {

struct ContractionAnalysis {
  ir::MacroIndexGemm gemm;
  Problem problem;                      ///< bytes, from gemm and the element size
  std::vector<ModelPoint> methods;      ///< inside/outside × rotation/replication/accumulation, best order each
  std::vector<ModelPoint> candidates;   ///< every method × order (× replicated operand)
  ModelPoint chosen;                    ///< the feasible method of least model time
  double lower_bound_bytes_per_rank = 0;
};

/// The model problem of a macro-index GEMM: extents in elements, sizes in bytes.
Problem problem_from(const ir::MacroIndexGemm& g, double element_size_bytes);

/// Per-rank lower bound on words moved for C = A·B with m = |I|, n = |J|, k = |K|
/// on P ranks of S words each: 2·(mnk/P)/√S + mn/P (Kwasniewski et al.,
/// COSMA, Theorem 1), returned in bytes (words × element size).
double lower_bound_bytes_per_rank(const ir::MacroIndexGemm& g, const Machine& machine);

/// Analyses a two-operand statement. Precondition: s has two operands.
ContractionAnalysis analyze(const ir::Program& program, const ir::Statement& s, const Machine& machine);

}  // namespace tcec::costmodel
