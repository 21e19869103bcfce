// costmodel/methods/pass_runs.h — (private) the disk requests of a pass over a block of a
// tensor's file: runs of adjacent elements, as the runtime's RunCounter counts them, for the
// methods that read tiles straight from tensor files (tbs, sfc). Units: elements.
#pragma once

#include <cstdint>
#include <vector>

#include "costmodel/plan.h"

namespace tcec::costmodel {

/// The file offsets (elements) contributed by the GEMM positions [first, first + count) of a
/// tensor whose position p (of `extents.size()`, e.g. [I, K] for A) is stored in dimension
/// perm[p] (identity when perm is empty), for every flat value of those positions (row-major
/// over them, the last fastest): offset(row, col) = rows[row] + cols[col].
std::vector<std::uint64_t> part_offsets(const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                                        std::size_t first, std::size_t count);

/// The extents of two groups' indices, a's first (e.g. [I, K] for A).
std::vector<std::int64_t> group_extents(const GroupTiling& a, const GroupTiling& b);

/// Runs of a pass over rows (in the order given) × columns [c0, c0 + w) with offsets
/// row[r] + col[c]: runs of adjacent offsets, as runtime RunCounter counts them.
class PassRuns {
 public:
  /// `row` and `col`: part_offsets() of the rows' and the columns' positions.
  PassRuns(std::vector<std::uint64_t> row, std::vector<std::uint64_t> col);
  /// Starts a pass over columns [c0, c0 + w). Precondition: w >= 1.
  void start(std::int64_t c0, std::int64_t w);
  /// The next row of the pass.
  void row(std::int64_t r);
  /// Runs of the pass so far.
  std::uint64_t runs() const { return runs_; }
  /// Runs of a whole pass over rows [r0, r0 + h) × columns [c0, c0 + w).
  std::uint64_t block(std::int64_t r0, std::int64_t h, std::int64_t c0, std::int64_t w);

 private:
  std::vector<std::uint64_t> row_, col_, breaks_;   // breaks_[c]: c' < c with col[c'+1] != col[c'] + 1
  std::uint64_t inner_ = 0, begin_ = 0, end_ = 0, last_ = 0, runs_ = 0;
  bool first_ = true;
};

}  // namespace tcec::costmodel
