// costmodel/partition.h — (private) balanced splits of indices into tiles and of
// tiles over the process grid, in closed form (sizes with multiplicities).
//
// The rule itself (a balanced split, the two-level tiling of a group and its slices over the
// grid) is the runtime's, runtime/spec/tiling.h: tcert::piece(), tcert::piece_start() and
// tcert::GroupLayout; this header counts over it. Counts are elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "costmodel/plan.h"
#include "runtime/spec/tiling.h"

namespace tcec::costmodel {

/// (size, how many parts have it), sizes distinct; at most two entries.
using SizeCounts = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// The part sizes of a balanced split of n into t parts (piece() over the parts).
/// Precondition: 1 <= t.
SizeCounts balanced_sizes(std::int64_t n, std::int64_t t);

/// The finest (level-2) part sizes of one index: each level-1 part cut into t2.
SizeCounts finest_sizes(const IndexTiles& index);

/// Part p of a balanced split and its first element (runtime/spec/tiling.h).
using tcert::piece;
using tcert::piece_start;

/// The runtime's layout of `group` (runtime/spec/tiling.h) split over `parts` grid parts along
/// its distribution index (1 part when it has none).
tcert::GroupLayout group_layout(const GroupTiling& group, std::int64_t parts = 1);

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
