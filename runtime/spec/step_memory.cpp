// runtime/spec/step_memory.cpp — a step's peak memory and the hand-off's round size.
#include "runtime/spec/step_memory.h"

#include <algorithm>

#include "runtime/spec/units.h"

namespace tcert {

namespace {

/// Bytes per element of a hand-off round: three buffers of elements.
constexpr std::uint64_t kRoundBytesPerElement = 3 * kElementBytes;

}  // namespace

std::uint64_t step_peak_bytes(const std::vector<MemoryPart>& parts) {
  std::uint64_t resident = 0, load = 0;
  for (const MemoryPart& p : parts) {
    if (p.load_stage)
      load = std::max(load, p.bytes);
    else
      resident += p.bytes;
  }
  return std::max(resident, load);
}

std::uint64_t handoff_round_elements(std::uint64_t available_bytes) {
  if (available_bytes == 0) return std::uint64_t{1} << 22;
  return std::max<std::uint64_t>(1, available_bytes / kRoundBytesPerElement);
}

std::uint64_t handoff_round_bytes(std::uint64_t available_bytes, std::uint64_t elements) {
  return kRoundBytesPerElement * std::min(handoff_round_elements(available_bytes), elements);
}

}  // namespace tcert
