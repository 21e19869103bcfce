// runtime/storage/tiled_matrix.h — TiledMatrix: a rank's part of a macro-index GEMM matrix on its
// local disk, in the two-level tiled, grid-split layout of spec/tiling.h (GroupLayout): blocks
// (f, h) of finest tiles, row-major. Units: extents, counts, sizes and offsets are in elements
// (doubles).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/spec/tiling.h"
#include "runtime/storage/disk.h"

namespace tcert {

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
