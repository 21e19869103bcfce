// costmodel/partition.h — (private) balanced splits of indices into tiles and of
// tiles over the process grid, in closed form (sizes with multiplicities).
//
// A balanced split of n into t parts gives the first n mod t parts size
// ⌊n/t⌋+1 and the rest ⌊n/t⌋ (plan.h "Tiling"). Counts are elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "costmodel/plan.h"

namespace tcec::costmodel {

/// (size, how many parts have it), sizes distinct; at most two entries.
using SizeCounts = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// The part sizes of a balanced split of n into t parts. Precondition: 1 <= t.
SizeCounts balanced_sizes(std::int64_t n, std::int64_t t);

/// The finest (level-2) part sizes of one index: each level-1 part cut into t2.
SizeCounts finest_sizes(const IndexTiles& index);

/// Part p of a balanced split of s into g parts: ⌊s/g⌋ + (p < s mod g).
inline std::int64_t piece(std::int64_t s, std::int64_t g, std::int64_t p) { return s / g + (p < s % g ? 1 : 0); }
/// The first element of part p of that split: p·⌊s/g⌋ + min(p, s mod g).
inline std::int64_t piece_start(std::int64_t s, std::int64_t g, std::int64_t p) {
  return p * (s / g) + std::min(p, s % g);
}

/// Elements of the group (rows or columns of an array) held by grid part p
/// when the group is split over g parts: Π_{i≠dist} n_i · Σ_finest piece(s_dist, g, p).
/// g == 1 or p < 0: the whole extent.
std::int64_t group_share(const GroupTiling& group, std::int64_t g, std::int64_t p);

/// Largest number of group elements one rank holds in one tile at `level`
/// (1: a level-1 tile, 2: a finest tile) when split over g parts (part 0 is the
/// fullest): Π_{i≠dist} ⌈·⌉ part sizes times the distribution index's largest
/// Σ ⌈s2/g⌉ over the finest parts of one level-1 part.
std::int64_t group_tile_max(const GroupTiling& group, std::int64_t g, int level);

/// Least finest-part size of the group's distribution index (its whole extent
/// when it has no distribution index).
std::int64_t min_dist_part(const GroupTiling& group);

}  // namespace tcec::costmodel
