// costmodel/program/layout.h — (private) where each element of a tensor lies on the ranks, and the
// exact volumes of moving a tensor from one layout to another: Gao et al. §2.3 stages 1
// (inputs from their given distribution to the one a method needs) and 3 (the result to the
// requested one). Counts are ELEMENTS; redistribution_volumes() (plan.h) turns them into bytes.
//
// A layout splits some tensor dimensions over grid coordinates and maps each coordinate tuple
// to the one rank that holds those elements on its local disk. Both kinds tcec meets are of
// this form: a declared block distribution (ir::Distribution) and the layout of an array of a
// Gao plan before (A, B, C's old values) or after (C) the compute stage (runtime/spec/tiling.h:
// each finest tile of the distribution index is split over the grid). A method whose arrays
// are not of this form has no layout here (method.h Method::has_layout).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "costmodel/plan.h"
#include "ir/ir.h"

namespace tcec::costmodel {

/// How one tensor dimension is split: consecutive runs of its values, (length, coordinate),
/// covering 0 .. extent-1 in order; coordinates are 0 .. parts-1. Unsplit: one run, parts 1.
struct DimSplit {
  std::int64_t parts = 1;
  std::vector<std::pair<std::int64_t, std::int64_t>> runs;
};

/// A tensor's layout: dimension d's value v has coordinate c_d (from dims[d]); the element
/// lies on rank owner[Σ_d c_d · Π_{e>d} dims[e].parts] (row-major over the coordinates).
struct TensorLayout {
  std::vector<DimSplit> dims;
  std::vector<std::int64_t> owner;
};

/// The declared block distribution of tensor `t` on P ranks (ir::Distribution: balanced
/// blocks, row-major grid). Precondition: t.distribution is set and passed
/// frontend::check_distributions for P.
TensorLayout declared_layout(const ir::Program& program, const ir::Tensor& t, std::int64_t processors);

/// Which array of the macro-index GEMM C(I,J) += A(I,K)·B(J,K).
enum class GemmArray { A, B, C };

/// The layout of array `array` under `plan`, for a tensor whose dimension d holds the index
/// named names[d] (each name in one of the array's two groups), as the plan's method gives it
/// (method_model.h MethodModel::layout()). Precondition: check_valid(plan) passes and the method
/// has_layout().
TensorLayout plan_layout(const Plan& plan, GemmArray array, const std::vector<std::string>& names);
/// The same for a plan whose arrays lie in grid parts (methods/gao/gao.h grid_parts() and
/// rank_parts(): the Gao methods): the array's grid parts split the groups' distribution
/// indices finest tile by finest tile, and rank_parts() says which rank holds which parts
/// (under Accumulation, C lies whole on rank 0).
TensorLayout grid_layout(const Plan& plan, GemmArray array, const std::vector<std::string>& names);

/// Elements each rank moves when a tensor goes from layout `from` to layout `to` (same
/// tensor, same P): every rank reads each element it holds under `from` once and sends it
/// to its owner under `to` unless it owns it itself; every rank writes each element it owns
/// under `to`. Vectors are indexed by rank. Exact, by per-dimension histograms of the
/// coordinate pairs (cost Π_d parts_from·parts_to, at most P²).
/// sent_apart and recv_apart: of sent and recv, the elements to and from ranks on other nodes
/// (Machine::node_of(); all zero on one node).
struct Exchange {
  std::vector<std::uint64_t> read, write, sent, recv;
  std::vector<std::uint64_t> sent_apart, recv_apart;
};
Exchange exchange(const TensorLayout& from, const TensorLayout& to, const Machine& machine);
/// exchange() on one node of `processors` ranks.
Exchange exchange(const TensorLayout& from, const TensorLayout& to, std::int64_t processors);

/// The declared layouts of one two-operand statement's tensors (operands[0] = A,
/// operands[1] = B, result = C), none where a tensor has no declared distribution (it is
/// read from, or stored to, the run's tensor store), and each tensor's index names by
/// dimension, for plan_layout().
///
/// The sequence hand-off (sequence.h, model only) uses the same form for tensors an earlier
/// step kept on the ranks: A or B in the producing plan's C layout; C_in when C's current
/// values are kept there (a statement adding to them); C_stays when the result stays on the
/// ranks in this plan's own C layout for a later step (stage 3 then moves nothing).
struct DeclaredLayouts {
  std::optional<TensorLayout> A, B, C;
  std::optional<TensorLayout> C_in;
  bool C_stays = false;
  std::vector<std::string> names_A, names_B, names_C;
  bool any() const { return A || B || C || C_in || C_stays; }
  /// "A", "B" or "C" joined with ", ": the arrays with a declared layout.
  std::string which() const;
};
DeclaredLayouts declared_layouts(const ir::Program& program, const ir::Statement& s, std::int64_t processors);

}  // namespace tcec::costmodel
