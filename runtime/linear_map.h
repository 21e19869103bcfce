// runtime/linear_map.h — (private) from GEMM positions to a stored tensor's linear index.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/gemm.h"

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
  }
  std::uint64_t operator()(const std::int64_t* row_values, const std::int64_t* col_values) const {
    std::uint64_t at = 0;
    for (std::size_t p = 0; p < row_stride_.size(); ++p)
      at += static_cast<std::uint64_t>(row_values[p]) * row_stride_[p];
    for (std::size_t p = 0; p < col_stride_.size(); ++p)
      at += static_cast<std::uint64_t>(col_values[p]) * col_stride_[p];
    return at;
  }

 private:
  std::vector<std::uint64_t> row_stride_, col_stride_;
};

}  // namespace tcert
