// runtime/storage/tiled_matrix.h — the two-level tiled, grid-split disk layout of a macro-index GEMM matrix.
//
// Tiling rule (identical to costmodel/plan.h "Tiling", re-implemented here because the runtime
// knows nothing of the compiler):
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

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/storage/disk.h"

namespace tcert {

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

/// A rows × cols row-major block of a GEMM view handed to a visitor: row_values holds `rows`
/// row multi-indices back to back, col_values `cols` column multi-indices (TiledMatrix::
/// read_blocks(); runtime contraction_steps.h ResultVisitor). BlockFiller fills such a block
/// (TiledMatrix::fill_blocks()).
using BlockVisit = std::function<void(const std::int64_t* row_values, const std::int64_t* col_values, std::size_t rows,
                                      std::size_t cols, const double* block)>;
using BlockFiller = std::function<void(const std::int64_t* row_values, const std::int64_t* col_values, std::size_t rows,
                                       std::size_t cols, double* block)>;

/// A rank's local part of a distributed matrix on disk: rows laid out by R (part pr, -1 = all),
/// columns by C (part pc, -1 = all). The file holds blocks (f, h) in (f, h) row-major order,
/// block (f, h) being rows(f, pr) × cols(h, pc) elements, row-major and contiguous.
/// All transfers go through DiskFile, so counters() counts them; I/O failures throw Error.
class TiledMatrix {
 public:
  /// Opens (creating if missing) the file `path`; call create() to size it. The blocks start
  /// at element `base` of the file (several matrices may share one file, e.g. the pieces of
  /// a broadcast operand).
  TiledMatrix(std::string path, GroupLayout rows, std::int64_t pr, GroupLayout cols, std::int64_t pc,
              std::uint64_t base = 0);

  const GroupLayout& row_layout() const { return rows_; }
  const GroupLayout& col_layout() const { return cols_; }
  DiskFile& file() { return file_; }
  std::int64_t block_rows(std::int64_t f) const {
    return static_cast<std::int64_t>(row_prefix_[f + 1] - row_prefix_[f]);
  }
  std::int64_t block_cols(std::int64_t h) const {
    return static_cast<std::int64_t>(col_prefix_[h + 1] - col_prefix_[h]);
  }
  /// Element offset of block (f, h) in the file.
  std::uint64_t block_offset(std::int64_t f, std::int64_t h) const;
  /// Local elements: total(pr) · total(pc).
  std::uint64_t total() const;

  /// Reads block (f, h) (block_rows(f) · block_cols(h) elements) into dst.
  void read_block(std::int64_t f, std::int64_t h, double* dst);
  /// Writes block (f, h) from src.
  void write_block(std::int64_t f, std::int64_t h, const double* src);
  /// Sets the file size to base + total() elements.
  void create();
  /// Writes every local block: fill_block(row_values, col_values, rows, cols, block) fills the
  /// rows × cols row-major `block` (row_values: `rows` row multi-indices back to back, likewise
  /// col_values), which is then written; blocks in file order (nothing for empty blocks).
  void fill_blocks(const BlockFiller& fill_block);
  /// The mirror of fill_blocks(): reads each block as one transfer and calls visit(row_values,
  /// col_values, rows, cols, block) on it, in file order.
  void read_blocks(const BlockVisit& visit);
  /// The element offset in the file (base included) of (row_values, col_values), or nullopt
  /// when this rank does not hold it. O(#indices); no I/O.
  std::optional<std::uint64_t> offset_of(const std::int64_t* row_values, const std::int64_t* col_values) const;
  /// The stored element at (row_values, col_values), or nullopt when this rank does not hold
  /// it. One DiskFile::read of one element.
  std::optional<double> element(const std::int64_t* row_values, const std::int64_t* col_values);

  /// The group multi-indices of part p's piece of finest tile f (p = -1: the whole tile), in
  /// piece order: rows(f, p) × #indices values back to back. No I/O.
  static std::vector<std::int64_t> piece_values(const GroupLayout& g, std::int64_t f, std::int64_t p);

 private:
  // Local offset of a located element within its tile (whole tile when part is -1).
  static std::int64_t local_offset(const GroupLayout& g, std::int64_t part, const GroupLayout::Location& loc);
  // Calls visit(f, h, row_values, col_values, rows, cols) for every local block in
  // file order; row_values holds `rows` group multi-indices back to back (likewise cols).
  using BlockVisitor =
      std::function<void(std::int64_t f, std::int64_t h, const std::vector<std::int64_t>& row_values,
                         const std::vector<std::int64_t>& col_values, std::size_t rows, std::size_t cols)>;
  void for_each_block(const BlockVisitor& visit);

  GroupLayout rows_, cols_;
  std::int64_t pr_, pc_;
  std::uint64_t base_ = 0;
  std::vector<std::uint64_t> row_prefix_;  // Σ_{f' < f} block_rows(f')
  std::vector<std::uint64_t> col_prefix_;  // Σ_{h' < h} block_cols(h')
  DiskFile file_;
};

}  // namespace tcert
