// costmodel/methods/pass_runs.h — (private) the disk requests of a pass over a block of a
// tensor's file: runs of adjacent elements, as the runtime's RunCounter counts them, for the
// methods that read tiles straight from tensor files (tbs, sfc). Counted in O(indices) per call
// from the positions' extents and strides, never element by element (a flat group can hold
// billions of elements). Units: elements.
#pragma once

#include <cstdint>
#include <vector>

#include "costmodel/plan.h"

namespace tcec::costmodel {

/// The extents of two groups' indices, a's first (e.g. [I, K] for A).
std::vector<std::int64_t> group_extents(const GroupTiling& a, const GroupTiling& b);

/// Runs of a pass over rows (ranges of flat row values, in the order given) × columns
/// [c0, c0 + w) of a tensor whose GEMM positions (extents[p], p = 0 … : e.g. [I, K] for A) are
/// stored in dimensions perm[p] (identity when perm is empty); rows are the positions
/// [rows_first, rows_first + rows_count), columns the next cols_count. A row's offset plus a
/// column's offset is the element's offset in the file; runs of adjacent offsets are counted as
/// runtime RunCounter counts them.
class PassRuns {
 public:
  PassRuns(const std::vector<std::int64_t>& extents, const std::vector<int>& perm, std::size_t rows_first,
           std::size_t rows_count, std::size_t cols_first, std::size_t cols_count);
  /// Starts a pass over columns [c0, c0 + w). Precondition: w >= 1.
  void start(std::int64_t c0, std::int64_t w);
  /// Goes on with the same pass (same transfer: its runs keep counting, and the next element may
  /// join the last one) over columns [c0, c0 + w). Precondition: w >= 1.
  void columns(std::int64_t c0, std::int64_t w);
  /// Goes on with the same pass over the flat elements [from, to) of a block of rows r0, r0 + 1,
  /// … × columns [c0, c0 + w), row-major (element e at row r0 + e / w, column c0 + e % w): a
  /// partial first row, whole rows, a partial last row. Nothing when from >= to. A new
  /// transfer calls begin() first. Precondition: w >= 1.
  void range(std::int64_t r0, std::int64_t c0, std::int64_t w, std::int64_t from, std::int64_t to);
  /// Starts an empty pass (no columns yet; the first element starts a run).
  void begin();
  /// The next row of the pass.
  void row(std::int64_t r);
  /// The next rows of the pass: r0, r0 + 1, …, r0 + h − 1.
  void rows(std::int64_t r0, std::int64_t h);
  /// Runs of the pass so far.
  std::uint64_t runs() const { return runs_; }
  /// Runs of a whole pass over rows [r0, r0 + h) × columns [c0, c0 + w).
  std::uint64_t block(std::int64_t r0, std::int64_t h, std::int64_t c0, std::int64_t w);

  /// Flat values of some positions of a tensor (row-major over them, the last fastest) and
  /// their offsets in its file.
  class Positions {
   public:
    Positions(std::vector<std::int64_t> extents, std::vector<std::int64_t> strides);
    /// The offset of flat value v (elements, signed).
    std::int64_t offset(std::int64_t v) const;
    /// How many v in [lo, hi) step to v + 1 by `step` elements.
    std::int64_t steps_of(std::int64_t lo, std::int64_t hi, std::int64_t step) const;

   private:
    std::vector<std::int64_t> extents_, strides_;
    std::vector<std::int64_t> level_step_, level_period_;  // per carry level d: the step, Π of the last d extents
  };

 private:
  Positions rows_, cols_;
  std::uint64_t inner_ = 0, runs_ = 0;
  std::int64_t begin_ = 0, end_ = 0, last_ = 0;  // last_: the file offset of the last element
  bool first_ = true;
};

}  // namespace tcec::costmodel
