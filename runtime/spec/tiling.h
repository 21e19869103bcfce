// runtime/spec/tiling.h — the two-level tiling rule of a macro-index group, which a plan's tile counts
// mean (Gao et al. §2.2): IndexTiling, GroupLayout, and the balanced split they are made of.
// Part of the compiler–runtime contract (tcert_spec, no MPI); the disk files laid out by it are
// storage/tiled_matrix.h.
//
// Tiling rule (costmodel/plan.h "Tiling" states the same rule in the planner's terms):
//  * an index of extent n is cut into t1 balanced level-1 parts (the first n mod t1 parts one
//    larger), each level-1 part of size s into t2 balanced level-2 parts the same way;
//  * finest tile f = l1 · T2 + l2 (T1 = Π t1, T2 = Π t2), l1 / l2 the mixed-radix numbers of the
//    per-index level-1 / level-2 part ids, first index most significant;
//  * within a finest tile the elements are ordered with the distribution index outermost, then
//    the other indices in group order (row-major); without one, plain group order;
//  * a group split over g grid parts gives part p the p-th balanced slice of the distribution
//    index's range in each finest tile — a contiguous range of the tile's order.
// Units: extents, counts, sizes and offsets are in elements (doubles).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tcert {

/// The length of part p of a balanced split of n into g parts (the first n mod g parts one
/// longer; costmodel/partition.h piece()). Precondition: g >= 1, 0 <= p < g.
inline std::int64_t piece(std::int64_t n, std::int64_t g, std::int64_t p) { return n / g + (p < n % g ? 1 : 0); }
/// The first element of part p of that split.
inline std::int64_t piece_start(std::int64_t n, std::int64_t g, std::int64_t p) {
  return p * (n / g) + std::min(p, n % g);
}
/// The part of that split holding element v (0 <= v < n). Precondition: 1 <= g <= n.
inline std::int64_t part_of(std::int64_t n, std::int64_t g, std::int64_t v) {
  const std::int64_t q = n / g, big = n % g;
  return v < big * (q + 1) ? v / (q + 1) : big + (v - big * (q + 1)) / q;
}

/// One index of a group: extent n, t1 level-1 parts, t2 level-2 parts per level-1 part.
/// Valid when 1 <= t1 <= n and 1 <= t2 <= floor(n / t1).
struct IndexTiling {
  std::int64_t extent = 1, t1 = 1, t2 = 1;
};

/// The layout of one macro-index group (the rows or the columns of a matrix).
class GroupLayout {
 public:
  /// Where one group element lives: finest tile, grid part holding it, offset in that part's
  /// piece of the tile.
  struct Location {
    std::int64_t tile = 0, part = 0, offset = 0;
  };

  GroupLayout() : GroupLayout({}, -1, 1) {}  ///< the empty group: one tile of one element
  /// `indices` in group order; `dist` the position of the distribution index (-1: none);
  /// `parts` the number of grid parts g >= 1 (must be 1 when dist is -1).
  /// Throws Error("invalid group layout: ...") for an invalid tiling, dist or parts.
  GroupLayout(std::vector<IndexTiling> indices, int dist, std::int64_t parts);

  const std::vector<IndexTiling>& indices() const { return indices_; }
  int dist() const { return dist_; }
  std::int64_t parts() const { return parts_; }
  std::int64_t tiles1() const { return tiles1_; }                  ///< T1 = Π t1
  std::int64_t tiles2() const { return tiles2_; }                  ///< T2 = Π t2
  std::int64_t finest_tiles() const { return tiles1_ * tiles2_; }  ///< T1 · T2
  std::int64_t extent() const;                                     ///< Π extents (1 for the empty group)

  /// The values [first, first + count) of index k in finest tile f that part p holds: the
  /// index's finest part, and for the distribution index (p >= 0) its p-th balanced slice.
  std::pair<std::int64_t, std::int64_t> value_range(std::size_t k, std::int64_t f, std::int64_t p) const;
  /// The finest part (l1 · t2 + l2 of the index alone) holding value v of index k. O(1).
  std::int64_t finest_part(std::size_t k, std::int64_t v) const;
  /// The part holding value v of index k: its slice within its finest part when k is the
  /// distribution index, else 0. O(1).
  std::int64_t part_of_value(std::size_t k, std::int64_t v) const;
  /// The order of the indices within a finest tile: the distribution index first, then the
  /// others in group order (positions into indices()).
  const std::vector<std::size_t>& tile_order() const { return order_; }
  /// Elements of finest tile f held by part p (p = -1: the whole tile). May be 0 when g
  /// exceeds the tile's distribution-index size.
  std::int64_t rows(std::int64_t f, std::int64_t p) const;
  /// Offset of part p's piece within the whole tile f's order (0 for p = -1).
  std::int64_t piece_start(std::int64_t f, std::int64_t p) const;
  /// Σ_f rows(f, p).
  std::int64_t total(std::int64_t p) const;
  /// The location of the group element `values` (group order, each 0 <= v < extent;
  /// unchecked). O(#indices).
  Location locate(const std::int64_t* values) const;
  /// Inverse of locate: writes the group multi-index of element `offset` of part `part`'s piece
  /// of tile `tile` (part = -1: offset within the whole tile). O(#indices).
  void values_at(std::int64_t tile, std::int64_t part, std::int64_t offset, std::int64_t* values) const;
  /// values_at() for the `count` consecutive elements from `offset` on, row after row
  /// (values + r·#indices for element offset + r): the first located, the rest by an odometer
  /// step each, with no division. O(#indices + count) amortised.
  void values_from(std::int64_t tile, std::int64_t part, std::int64_t offset, std::int64_t count,
                   std::int64_t* values) const;

 private:
  // Per index k: finest part j = l1 * t2 + l2 covers values [start_[k][j], start_[k][j + 1]).
  std::int64_t part_id(std::size_t k, std::int64_t f) const;
  std::int64_t size_of(std::size_t k, std::int64_t f) const;

  std::vector<IndexTiling> indices_;
  int dist_ = -1;
  std::int64_t parts_ = 1;
  std::int64_t tiles1_ = 1, tiles2_ = 1;
  std::vector<std::vector<std::int64_t>> start_;
  std::vector<std::size_t> order_;               // linearisation order: dist first, then the others
  std::vector<std::int64_t> stride1_, stride2_;  // mixed-radix strides of l1 and l2 per index
};

}  // namespace tcert
