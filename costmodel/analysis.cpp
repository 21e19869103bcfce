// costmodel/analysis.cpp — enumerate the methods of Gao et al. for one
// contraction and choose the cheapest by the model optimum.
#include "costmodel/analysis.h"

#include <cmath>

#include "costmodel/model_optimum.h"

namespace tcec::costmodel {

namespace {

constexpr CommMethod kComms[] = {CommMethod::Inside, CommMethod::Outside};
constexpr Algorithm kAlgorithms[] = {Algorithm::Rotation, Algorithm::Replication, Algorithm::Accumulation};

}  // namespace

Problem problem_from(const ir::MacroIndexGemm& g, double e) {
  Problem p;
  p.I = static_cast<double>(g.extent_I);
  p.J = static_cast<double>(g.extent_J);
  p.K = static_cast<double>(g.extent_K);
  p.A = p.I * p.K * e;
  p.B = p.J * p.K * e;
  p.C = p.I * p.J * e;
  return p;
}

double lower_bound_bytes_per_rank(const ir::MacroIndexGemm& g, const Machine& machine) {
  const double m = static_cast<double>(g.extent_I), n = static_cast<double>(g.extent_J),
               k = static_cast<double>(g.extent_K);
  const double P = static_cast<double>(machine.processors);
  const double S = machine.memory_bytes / machine.element_size_bytes;
  // Kwasniewski et al. (COSMA) Theorem 1: Q >= 2mnk/(P·√S) + mn/P words per rank.
  return (2.0 * m * n * k / (P * std::sqrt(S)) + m * n / P) * machine.element_size_bytes;
}

ContractionAnalysis analyze(const ir::Program& program, const ir::Statement& s, const Machine& machine) {
  ContractionAnalysis a;
  a.gemm = ir::macro_index_gemm(program, s);
  a.problem = problem_from(a.gemm, machine.element_size_bytes);
  a.lower_bound_bytes_per_rank = lower_bound_bytes_per_rank(a.gemm, machine);
  a.chosen.feasible = false;
  for (CommMethod comm : kComms) {
    for (Algorithm algorithm : kAlgorithms) {
      ModelPoint best = best_model_optimum(a.problem, machine, comm, algorithm);
      a.methods.push_back(best);
      if (best.feasible && (!a.chosen.feasible || best.time_s < a.chosen.time_s)) a.chosen = best;
      for (DiskPlacementOrder order : kAllOrders) {
        for (ReplicatedOperand r : {ReplicatedOperand::A, ReplicatedOperand::B}) {
          if (r == ReplicatedOperand::B && algorithm != Algorithm::Replication) continue;
          a.candidates.push_back(model_optimum(a.problem, machine, comm, algorithm, order, r));
        }
      }
    }
  }
  return a;
}

}  // namespace tcec::costmodel
