// frontend/split_terms.h — (private) a product of three or more operands as a sequence of
// binary contractions through new intermediate tensors, as the TCE does (issue 6).
//
// The statement `R[...] op coef * X0[...] * X1[...] * ... * Xn-1[...]` (n >= 3, einsum: an
// index on the right that is not in R is summed) becomes n-1 binary statements. Each joins two
// "nodes" (operands or earlier intermediates) and sums every index that no other remaining
// node and not R uses; the others are kept.
//
// Choice of the tree: the one with the fewest flops, where one pairwise contraction costs
// 2 × the product of the extents of all indices of its two operands (their union; equal to
// 2·|I|·|J|·|K| of ir::MacroIndexGemm). Up to kExhaustiveSplitLimit operands: exhaustive search
// over all binary trees (dynamic programming over operand subsets: cost(S) = min over splits
// S = L ∪ R of cost(L) + cost(R) + flops(L, R)); beyond: greedy (repeatedly join the pair of
// remaining nodes with the fewest flops). A tree is excluded when one of its pairs would have a
// batch index (an index in both operands that is kept) or an intermediate whose size in bytes
// (8 per element, as for declared tensors) overflows 64 bits.
//
// Deterministic tie-breaks. Exhaustive: for a subset S, the left part L always holds S's
// first operand (lowest position); candidate L's are tried in decreasing order of their operand
// bit mask (bit k = operand k) and only a strictly cheaper split replaces the best, which favours
// joining leading operands first (left to right). Greedy: among pairs of equal flops, the first
// in (position of left, position of right) order in the list of remaining nodes, which is kept
// in order of each node's first operand; the joined node takes the left one's place.
//
// Left and right: the operand of a binary statement that holds the lower-positioned original
// operand comes first (operands[0], the A of the macro-index GEMM).
//
// Dims of an intermediate: the indices it keeps from its left operand, in that operand's order,
// followed by those it keeps from its right operand, in that operand's order. This is the
// [I,J] layout of the macro-index GEMM, so the contraction writes it without a permutation.
//
// Names: `_t1`, `_t2`, ... numbered per program in the order the intermediates are written,
// skipping any name a user tensor (declared anywhere in the file) or an earlier intermediate
// already has. Role intermediate; source location that of the split statement.
//
// Preconditions (checked by sema before splitting; they make every tree batch-free):
// every result index is in exactly one operand and every summed index in exactly two.
// (A result index in two operands, or a summed index in three, is kept in both operands of the
// pair that first joins two of its holders, whatever the tree; so those are errors.)
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ir/ir.h"

namespace tcec::frontend {

/// Statements with up to this many operands are split by exhaustive search; more, greedily.
inline constexpr std::size_t kExhaustiveSplitLimit = 6;

/// A contraction tree of a statement with n >= 3 operands. Nodes 0..n-1 are the operands (in
/// statement order); node n+k is the tensor written by steps[k]. The last step writes the result.
struct SplitPlan {
  struct Step {
    int left = -1, right = -1;  ///< node ids; left holds the lower-positioned original operand
    std::vector<int> indices;   ///< index ids of the node written (the result's, for the last)
    double flops = 0;           ///< 2 × product of the extents of the union of both sides' indices
  };
  std::vector<Step> steps;  ///< n-1 steps in dependency order
  double flops = 0;         ///< sum over the steps
  bool exhaustive = false;  ///< true: optimal over all binary trees; false: greedy
};

/// The cheapest tree for `s` (operands.size() >= 3, preconditions above), or nullopt when every
/// tree the search considers needs an intermediate whose size overflows 64 bits.
std::optional<SplitPlan> plan_split(const ir::Program& program, const ir::Statement& s);

/// The binary statements of `plan`, in dependency order: intermediates written with `=` and
/// coefficient 1, the last one writing `s`'s result with `s`'s operator and coefficient. Each
/// has `s`'s location and the source text "<s as written>   [split k of n-1: <statement>]".
/// Appends the intermediates to program.tensors.
std::vector<ir::Statement> apply_split(ir::Program& program, const ir::Statement& s, const SplitPlan& plan);

}  // namespace tcec::frontend
