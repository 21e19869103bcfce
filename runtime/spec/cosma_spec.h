// runtime/spec/cosma_spec.h — the part of a GemmSpec that CosmaGemm adds: the processor grid and
// the rounds along K (costmodel/methods/cosma/cosma.h "THE SCHEDULE"); and its checks, buffers
// and trace names (cosma_spec.cpp, no MPI). Units: elements.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tcert {

struct GemmSpec;
struct MemoryPart;

/// A cosma plan's part of the spec (GemmSpec::method), run by CosmaGemm (cosma.h).
struct CosmaSpec {
  /// The processor grid pm × pn × pk (ranks from pm·pn·pk on are idle).
  std::int64_t grid[3] = {1, 1, 1};
  std::int64_t rounds = 1;  ///< t: rounds along K
};

/// The most rounds along K a cosma schedule may have (2^20). Every round is a collective on every
/// rank of the grid and a pass of stage 1 over both operands' files, so a schedule past this bound
/// is latency-bound by orders of magnitude (it arises with a memory per rank of a few hundred bytes);
/// the planner reports such a grid infeasible (costmodel/methods/cosma/cosma.cpp) and check_method()
/// refuses it.
inline constexpr std::int64_t kMaxCosmaRounds = std::int64_t{1} << 20;

/// Throws Error when the grid does not fit `ranks` ranks or the extents, or the rounds exceed
/// the fewest K columns a rank of the grid holds or kMaxCosmaRounds ("invalid cosma grid 2x2x2 with 3 rounds for
/// 4 ranks and m, n, k = ..."), or when the spec takes or keeps a tensor ("cosma reads its
/// operands from the store and stores its result; it takes and keeps nothing").
void check_method(const CosmaSpec& part, const GemmSpec& spec, std::int64_t ranks);
/// Rank 0's C block ⌈m/pm⌉·⌈n/pn⌉ and its b slice buffers of A and of B (b = 2 with several
/// rounds, else 1) of ⌈m/pm⌉ (or ⌈n/pn⌉) × ⌈⌈k/pk⌉/t⌉ elements, 8 bytes each.
std::vector<MemoryPart> method_buffers(const CosmaSpec& part, const GemmSpec& spec);
/// ("inside", "cosma") for the trace.
std::pair<const char*, const char*> trace_names(const CosmaSpec& part);

}  // namespace tcert
