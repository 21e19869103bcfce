// runtime/spec/step_memory.h — the memory rules the planner (costmodel plan_memory()) and the
// runtime (spec_check.h step_memory(), comm/placement.h move_tensor()) share, written once: one
// buffer of a step on its fullest rank (MemoryPart), the peak a step's buffers reach together, and
// the size of the hand-off's rounds. Part of tcert_spec (no MPI). Units: bytes unless a name says
// elements.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tcert {

/// One buffer a step allocates through budget() (base/memory.h), on the fullest rank.
struct MemoryPart {
  std::string what;         ///< "tile of A", "A slices", "hand-off rounds", …
  std::uint64_t bytes = 0;  ///< 8 per element
  /// Live only in the load stage (the hand-off's round buffers, freed before the tile buffers
  /// are allocated); otherwise live from the load stage or the compute stage to the end.
  bool load_stage = false;
};

/// The memory a step needs per rank: its buffers, and the peak they reach together (bytes).
struct StepMemory {
  std::vector<MemoryPart> parts;
  /// step_peak_bytes(parts): load-stage buffers are freed before the others are allocated.
  std::uint64_t peak_bytes = 0;
};

/// max(Σ bytes of the parts that live to the end, the largest load-stage part): the most bytes
/// `parts` hold at once (0 for none).
std::uint64_t step_peak_bytes(const std::vector<MemoryPart>& parts);

/// The elements one round of move_tensor() (comm/placement.h) holds, summed over all holders,
/// when `available_bytes` of the memory budget are free: ⌊available / 24⌋ (three buffers of
/// 8-byte values: the sender's blocks, the values it sends, the values it receives), at least 1;
/// 2^22 when the budget is unlimited (available_bytes = 0).
std::uint64_t handoff_round_elements(std::uint64_t available_bytes);

/// The most bytes move_tensor() allocates on one rank at once for a tensor of `elements`
/// elements with `available_bytes` free (0 = unlimited): 24 · min(handoff_round_elements(),
/// elements). Each of its three buffers holds at most one round's elements, and no more than the
/// tensor has. The "hand-off rounds" part of a step that takes a tensor rank to rank.
std::uint64_t handoff_round_bytes(std::uint64_t available_bytes, std::uint64_t elements);

/// The elements of one chunk of a version's completion on every node of a store of one
/// directory per node (program/tensor_store.h TensorStore::complete(); costmodel
/// completion_volumes()): a chunk read, combined with the other nodes' and written, one read and
/// one write request each. Its two buffers (the chunk, the incoming chunk: 64 KiB) are not tile
/// memory: like MPI's own buffers they are not charged to the plan's memory per rank.
inline constexpr std::uint64_t kCompletionChunkElements = 4096;

}  // namespace tcert
