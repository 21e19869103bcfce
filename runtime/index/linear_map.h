// runtime/index/linear_map.h — (private) from GEMM positions to a stored tensor's linear index, and
// the flattening of a macro-index group (row-major: its last index fastest).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/spec/gemm_spec.h"

namespace tcert {

/// The row-major linear index (elements) of a stored tensor's element given its GEMM row
/// values and column values: GEMM position p (the row group's indices first, then the column
/// group's) lives in stored dimension binding.perm[p].
class LinearMap {
 public:
  /// row_count: the number of indices of the row group (|I| for A and C, |J| for B).
  LinearMap(const TensorBinding& binding, std::size_t row_count) {
    std::vector<std::uint64_t> stride(binding.shape.extents.size(), 1);
    for (std::size_t d = stride.size(); d-- > 1;)
      stride[d - 1] = stride[d] * static_cast<std::uint64_t>(binding.shape.extents[d]);
    for (std::size_t p = 0; p < binding.perm.size(); ++p)
      (p < row_count ? row_stride_ : col_stride_).push_back(stride[static_cast<std::size_t>(binding.perm[p])]);
    for (std::size_t p = 0; p < binding.perm.size(); ++p) {  // the innermost stored dimension of extent > 1
      const auto d = static_cast<std::size_t>(binding.perm[p]);
      if (binding.shape.extents[d] > 1 && stride[d] == 1) rows_innermost_ = p < row_count;
    }
  }
  std::uint64_t operator()(const std::int64_t* row_values, const std::int64_t* col_values) const {
    return row_part(row_values) + col_part(col_values);
  }
  /// The row values' share of the linear index (operator() = row_part + col_part).
  std::uint64_t row_part(const std::int64_t* row_values) const {
    std::uint64_t at = 0;
    for (std::size_t p = 0; p < row_stride_.size(); ++p)
      at += static_cast<std::uint64_t>(row_values[p]) * row_stride_[p];
    return at;
  }
  /// True when the tensor's innermost stored dimension of extent above 1 (stride 1) is one of the
  /// row indices: neighbouring rows are neighbouring elements of the file, and a pass column by
  /// column reads runs along the rows (split_map.h for_each_run_of_block(), panel_read.h).
  bool rows_innermost() const { return rows_innermost_; }
  /// The indices of the row group and of the column group.
  std::size_t row_count() const { return row_stride_.size(); }
  std::size_t col_count() const { return col_stride_.size(); }
  /// The linear index's step (elements) for a step of row index p (group order).
  std::uint64_t row_stride(std::size_t p) const { return row_stride_[p]; }
  /// The linear index's step (elements) for a step of column index p (group order).
  std::uint64_t col_stride(std::size_t p) const { return col_stride_[p]; }
  /// The column values' share of the linear index.
  std::uint64_t col_part(const std::int64_t* col_values) const {
    std::uint64_t at = 0;
    for (std::size_t p = 0; p < col_stride_.size(); ++p)
      at += static_cast<std::uint64_t>(col_values[p]) * col_stride_[p];
    return at;
  }

 private:
  std::vector<std::uint64_t> row_stride_, col_stride_;
  bool rows_innermost_ = false;
};

/// The group multi-index (values[0..extents.size())) of flat index `linear`, last index fastest.
inline void unflatten(std::int64_t linear, const std::vector<std::int64_t>& extents, std::int64_t* values) {
  for (std::size_t d = extents.size(); d-- > 0;) values[d] = linear % extents[d], linear /= extents[d];
}

/// The flat index of a group multi-index (the inverse of unflatten).
inline std::int64_t flatten(const std::int64_t* values, const std::vector<std::int64_t>& extents) {
  std::int64_t v = 0;
  for (std::size_t d = 0; d < extents.size(); ++d) v = v * extents[d] + values[d];
  return v;
}

}  // namespace tcert
