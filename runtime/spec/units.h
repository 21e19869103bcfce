// runtime/spec/units.h — the size of a tensor element, the one constant that turns element
// counts into bytes in the compiler and the runtime alike.
//
// tcec's tensors hold IEEE-754 doubles. Counts of elements and counts of bytes both appear in
// plans, specs and traces; a name says which (`_elems`, `_bytes`), and conversions between them
// go through kElementBytes and the two functions below, never a literal 8.
#pragma once

#include <cstdint>

namespace tcert {

/// Bytes per tensor element (a double).
inline constexpr std::uint64_t kElementBytes = sizeof(double);

/// `elems` elements as bytes.
constexpr std::uint64_t bytes_of(std::uint64_t elems) { return elems * kElementBytes; }
/// `bytes` bytes as whole elements (rounded down).
constexpr std::uint64_t elems_of(std::uint64_t bytes) { return bytes / kElementBytes; }

}  // namespace tcert
