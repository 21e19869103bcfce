// runtime/split_map.h — (private) splitting flat indices, shared by the executors that walk C
// tile by tile (tbs.cpp, sfc.cpp, cosma.cpp) and the passes over a GEMM view (panel_read.cpp,
// contraction_steps.cpp): a tensor's linear index as a row part plus a column part (SplitMap),
// a range of a view as its runs in the tensor (consecutive_runs, for_each_run_of_view), and
// balanced splits of a range into parts (piece, piece_start, part_of). Units: elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/linear_map.h"

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
  /// The part of flat column `col` (elements).
  std::uint64_t col(std::int64_t col) {
    unflatten(col, col_extents_, cv_.data());
    return map_(zero_.data(), cv_.data());
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

}  // namespace tcert
