// costmodel/methods/sfc/curve.h — (private) the generalized Hilbert curve of a rectangle of any
// size (Červený's "gilbert", the curve Georganas et al., seed 002, §II-A, order C's tiles by).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tcec::costmodel {

/// The cells (x, y), 0 <= x < width, 0 <= y < height, each once, in the order of the
/// generalized Hilbert curve: the rectangle is split recursively along its longer side (in two
/// when it is more than 1.5 times as long as wide, else in three, up, along and down, as the
/// Hilbert curve does with quadrants), with halves rounded so that the curve's ends stay on the
/// right cells; consecutive cells are neighbours (a diagonal step only where both sides are odd).
/// Precondition: width, height >= 1.
std::vector<std::pair<std::int64_t, std::int64_t>> generalized_hilbert(std::int64_t width, std::int64_t height);

}  // namespace tcec::costmodel
