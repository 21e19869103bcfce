// runtime/index/split_map.h — (private) splitting flat indices, shared by the executors that walk C
// tile by tile (tbs.cpp, sfc.cpp, cosma.cpp) and the passes over a GEMM view (panel_read.cpp,
// contraction_steps.cpp): a tensor's linear index as a row part plus a column part (SplitMap),
// a range of a view as its runs in the tensor (consecutive_runs, for_each_run_of_view), and
// balanced splits of a range into parts (piece, piece_start, part_of). Units: elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/index/linear_map.h"
#include "runtime/spec/tiling.h"

namespace tcert {

/// Linear index parts of a tensor's rows and columns: map(rows, cols) = row(rows) + col(cols),
/// so a pass adds a row's part to a column's part instead of mapping every element.
class SplitMap {
 public:
  /// row_extents / col_extents: the extents of the row group's and the column group's indices
  /// (group order); binding.perm lists the row group's positions first.
  SplitMap(const TensorBinding& binding, std::vector<std::int64_t> row_extents, std::vector<std::int64_t> col_extents)
      : map_(binding, row_extents.size()),
        row_extents_(std::move(row_extents)),
        col_extents_(std::move(col_extents)),
        rv_(row_extents_.size() + 1, 0),
        cv_(col_extents_.size() + 1, 0),
        zero_(std::max(rv_.size(), cv_.size()), 0) {}
  /// The part of flat row `row` (elements).
  std::uint64_t row(std::int64_t row) {
    unflatten(row, row_extents_, rv_.data());
    return map_(rv_.data(), zero_.data());
  }
  /// row(first + i) for i < count, into `out` (resized): an odometer over the row indices, one
  /// step per row instead of a division per index and row.
  void rows(std::int64_t first, std::int64_t count, std::vector<std::uint64_t>& out) {
    parts(first, count, row_extents_, rv_, true, out);
  }
  /// col(first + i) for i < count, into `out` (resized), by the same odometer over the columns.
  void cols(std::int64_t first, std::int64_t count, std::vector<std::uint64_t>& out) {
    parts(first, count, col_extents_, cv_, false, out);
  }
  /// True when the tensor's innermost stored dimension (stride 1) is one of the row indices
  /// (with an extent above 1): a row's neighbour is the next element of the file, and a pass
  /// column by column reads runs along the rows (read_panel_rows()).
  bool rows_innermost() const { return map_.rows_innermost(); }
  /// The part of flat column `col` (elements).
  std::uint64_t col(std::int64_t col) {
    unflatten(col, col_extents_, cv_.data());
    return map_(zero_.data(), cv_.data());
  }
  /// The disk requests of one pass over the whole view, row after row, as RunCounter counts them
  /// (runs of consecutive elements; a row's first run continues the row before's last one when
  /// they are adjacent), from the strides alone: rows × (1 + the column steps that are not +1),
  /// less the row steps from a row's last element to the next row's first that are +1. Nothing
  /// is listed, so a view of millions of columns allocates nothing. 0 for an empty view.
  std::uint64_t whole_view_runs() const {
    std::int64_t rows = 1, cols = 1;
    for (std::int64_t e : row_extents_) rows *= e;
    for (std::int64_t e : col_extents_) cols *= e;
    if (rows == 0 || cols == 0) return 0;
    std::int64_t breaks = 0, last = 0;  // column steps that are not +1; the last column's part
    odometer_steps(col_extents_, false, [&](std::int64_t step, std::int64_t n) { breaks += step != 1 ? n : 0; });
    for (std::size_t d = 0; d < col_extents_.size(); ++d)
      last += (col_extents_[d] - 1) * static_cast<std::int64_t>(map_.col_stride(d));
    std::int64_t joined = 0;  // the first column's part is 0
    odometer_steps(row_extents_, true, [&](std::int64_t step, std::int64_t n) { joined += step == last + 1 ? n : 0; });
    return static_cast<std::uint64_t>(rows * (1 + breaks) - joined);
  }

 private:
  // rows() (rows) or cols() (!rows): `values` is the group's scratch multi-index.
  void parts(std::int64_t first, std::int64_t count, const std::vector<std::int64_t>& extents,
             std::vector<std::int64_t>& values, bool rows, std::vector<std::uint64_t>& out) {
    out.resize(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
    if (count <= 0) return;
    unflatten(first, extents, values.data());
    const auto stride = [&](std::size_t d) { return rows ? map_.row_stride(d) : map_.col_stride(d); };
    std::uint64_t part = rows ? map_.row_part(values.data()) : map_.col_part(values.data());
    for (std::size_t i = 0;; ++i) {
      out[i] = part;
      if (i + 1 == out.size()) return;
      for (std::size_t d = extents.size(); d-- > 0;) {  // the next one, last index fastest
        if (++values[d] < extents[d]) {
          part += stride(d);
          break;
        }
        part -= static_cast<std::uint64_t>(extents[d] - 1) * stride(d);  // wraps: unsigned
        values[d] = 0;
      }
    }
  }

  // visit(step, n) for each index L of the group (rows or columns): of the odometer's steps from
  // one flat value to the next, the n = Π_{d≤L} e_d − Π_{d<L} e_d whose carry stops at L change
  // the part by step = stride(L) − Σ_{d>L} (e_d − 1)·stride(d).
  template <class Visit>
  void odometer_steps(const std::vector<std::int64_t>& extents, bool rows, const Visit& visit) const {
    const auto stride = [&](std::size_t d) {
      return static_cast<std::int64_t>(rows ? map_.row_stride(d) : map_.col_stride(d));
    };
    std::int64_t outer = 1;  // Π_{d<L} e_d
    for (std::size_t L = 0; L < extents.size(); ++L) {
      std::int64_t step = stride(L);
      for (std::size_t d = L + 1; d < extents.size(); ++d) step -= (extents[d] - 1) * stride(d);
      visit(step, outer * extents[L] - outer);
      outer *= extents[L];
    }
  }

  LinearMap map_;
  std::vector<std::int64_t> row_extents_, col_extents_, rv_, cv_, zero_;
};

/// A list of column parts (SplitMap::col() of consecutive columns) as runs of consecutive
/// values: (position of the run's first column, its length), in order. A pass then moves a row's
/// run at once (a memcpy) instead of element by element.
inline std::vector<std::pair<std::size_t, std::size_t>> consecutive_runs(const std::vector<std::uint64_t>& parts) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t c = 0; c < parts.size(); ++c)
    if (!runs.empty() && parts[c] == parts[c - 1] + 1)
      ++runs.back().second;
    else
      runs.emplace_back(c, 1);
  return runs;
}

/// Elements [first, first + count) of a row-major view of `cols` columns (element e is row
/// e / cols, column e % cols) as the pieces that are consecutive in the tensor: for each row
/// met, row_part(row) (its SplitMap::row()), then per run of `runs` (consecutive_runs() of
/// col_part, the columns' parts) clipped to the range, visit(linear index of the piece's first
/// element, its length, its position in the range). Pieces come in the range's order, so a
/// RunCounter fed visit's (index, length) spans counts what an element-by-element pass would.
/// Nothing for count <= 0; otherwise cols > 0.
template <class RowPart, class Visit>
void for_each_run_of_view(std::int64_t first, std::int64_t count, std::int64_t cols,
                          const std::vector<std::uint64_t>& col_part,
                          const std::vector<std::pair<std::size_t, std::size_t>>& runs, RowPart&& row_part,
                          Visit&& visit) {
  if (count <= 0) return;
  std::int64_t row = first / cols, c = first % cols, done = 0;
  while (done < count) {
    const std::uint64_t part = row_part(row);
    const std::int64_t end = std::min(cols, c + (count - done));
    for (const auto& [c0, n] : runs) {
      const auto lo = std::max<std::int64_t>(c, static_cast<std::int64_t>(c0)),
                 hi = std::min<std::int64_t>(end, static_cast<std::int64_t>(c0 + n));
      if (lo >= hi) continue;
      visit(part + col_part[static_cast<std::size_t>(lo)], static_cast<std::size_t>(hi - lo), done + (lo - c));
    }
    done += end - c, ++row, c = 0;
  }
}

/// for_each_run_of_view() where the tensor's innermost stored dimension is a row index
/// (LinearMap::rows_innermost()): the range's partial first and last rows as there, its whole
/// rows column by column, each column's runs of consecutive row parts (row_part(row), as there);
/// visit(linear index, length, position in the range, step) with step 1 in a partial row and
/// `cols` in the whole rows, whose elements lie a row apart in the range. A RunCounter fed
/// visit's spans counts what an element-by-element pass in that order would. Nothing for
/// count <= 0; otherwise cols > 0.
template <class RowPart, class Visit>
void for_each_run_of_view_by_columns(std::int64_t first, std::int64_t count, std::int64_t cols,
                                     const std::vector<std::uint64_t>& col_part,
                                     const std::vector<std::pair<std::size_t, std::size_t>>& runs, RowPart&& part,
                                     Visit&& visit) {
  if (count <= 0) return;
  const std::int64_t ra = (first + cols - 1) / cols, rb = (first + count) / cols;
  const auto partial = [&](std::int64_t from, std::int64_t n) {  // [from, from + n), row by row
    for_each_run_of_view(from, n, cols, col_part, runs, part, [&](std::uint64_t at, std::size_t len, std::int64_t e) {
      visit(at, len, from - first + e, std::size_t{1});
    });
  };
  if (ra >= rb) return partial(first, count);  // no whole row
  if (first < ra * cols) partial(first, ra * cols - first);
  std::vector<std::uint64_t> row_parts;  // the whole rows' parts, from row ra
  for (std::int64_t r = ra; r < rb; ++r) row_parts.push_back(part(r));
  const auto row_runs = consecutive_runs(row_parts);
  for (std::int64_t c = 0; c < cols; ++c)
    for (const auto& [i, n] : row_runs)
      visit(row_parts[i] + col_part[static_cast<std::size_t>(c)], n,
            (ra + static_cast<std::int64_t>(i)) * cols + c - first, static_cast<std::size_t>(cols));
  if (rb * cols < first + count) partial(rb * cols, first + count - rb * cols);
}

/// The pieces of an R × C row-major block of a tensor's GEMM view that are consecutive in the
/// tensor: row i's multi-index is row_values[i·nr …] and column j's col_values[j·nc …] (nr, nc:
/// map's row_count() and col_count()), the element's linear index map(row, column). Row by row,
/// for each run of columns whose parts are consecutive, visit(linear index of the run's first
/// element, its length, its position in the block, 1); or, where the tensor's innermost stored
/// dimension is a row index (LinearMap::rows_innermost()), column by column, for each run of rows
/// whose parts are consecutive, visit(…, its length, its position in the block, C): its elements
/// are C apart in the block. A RunCounter fed visit's spans counts what an element-by-element pass
/// in that order would. `col_parts` and `row_parts` are scratch.
template <class Visit>
void for_each_run_of_block(const LinearMap& map, const std::int64_t* row_values, const std::int64_t* col_values,
                           std::size_t R, std::size_t C, std::vector<std::uint64_t>& col_parts,
                           std::vector<std::uint64_t>& row_parts, Visit&& visit) {
  const std::size_t nr = map.row_count(), nc = map.col_count();
  col_parts.resize(C);
  for (std::size_t j = 0; j < C; ++j) col_parts[j] = map.col_part(col_values + j * nc);
  if (map.rows_innermost()) {
    row_parts.resize(R);
    for (std::size_t i = 0; i < R; ++i) row_parts[i] = map.row_part(row_values + i * nr);
    const auto runs = consecutive_runs(row_parts);
    for (std::size_t j = 0; j < C; ++j)
      for (const auto& [i0, n] : runs) visit(row_parts[i0] + col_parts[j], n, i0 * C + j, C);
    return;
  }
  const auto runs = consecutive_runs(col_parts);
  for (std::size_t i = 0; i < R; ++i) {
    const std::uint64_t row = map.row_part(row_values + i * nr);
    for (const auto& [c0, n] : runs) visit(row + col_parts[c0], n, i * C + c0, std::size_t{1});
  }
}

/// out[e] = in[e·step] for e < n (step 1: a copy).
inline void gather_strided(const double* in, std::size_t n, std::size_t step, double* out) {
  if (step == 1) return static_cast<void>(std::copy_n(in, n, out));
  for (std::size_t e = 0; e < n; ++e) out[e] = in[e * step];
}

}  // namespace tcert
