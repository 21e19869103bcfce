// runtime/program/element_source.h — ElementSource: an input tensor's elements, from a mapped
// file or computed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

namespace tcert {

/// The elements of an input tensor, by `linear` (row-major) index: from the row-major doubles of
/// a mapped file (data(): callers may copy whole runs from it), or computed (the generator).
/// Calling it on a mapped file is a load, not an indirect call.
class ElementSource {
 public:
  static constexpr std::size_t kShortRun = 16;  ///< copy(): runs up to this many elements by a loop
  ElementSource() = default;
  /// The row-major doubles at `data` (a mapping that outlives the source).
  explicit ElementSource(const double* data) : data_(data) {}
  /// Elements computed by `element` (linear index → value).
  explicit ElementSource(std::function<double(std::uint64_t)> element) : element_(std::move(element)) {}
  /// The element at row-major index `linear` (no bounds check).
  double operator()(std::uint64_t linear) const { return data_ != nullptr ? data_[linear] : element_(linear); }
  /// The row-major doubles, or null when the elements are computed.
  const double* data() const { return data_; }
  /// out[e] = (*this)(first + e) for e < n (a memcpy from a mapped file).
  void copy(std::uint64_t first, std::size_t n, double* out) const {
    if (data_ != nullptr) {
      if (n <= kShortRun) {  // a loop: a call to memmove costs more than a few elements
        for (std::size_t e = 0; e < n; ++e) out[e] = data_[first + e];
      } else {
        std::copy_n(data_ + first, n, out);
      }
      return;
    }
    for (std::size_t e = 0; e < n; ++e) out[e] = element_(first + e);
  }
  /// out[e·step] = (*this)(first + e) for e < n (step 1: copy()).
  void copy(std::uint64_t first, std::size_t n, double* out, std::size_t step) const {
    if (step == 1) return copy(first, n, out);
    if (data_ != nullptr) {
      for (std::size_t e = 0; e < n; ++e) out[e * step] = data_[first + e];
      return;
    }
    for (std::size_t e = 0; e < n; ++e) out[e * step] = element_(first + e);
  }

 private:
  const double* data_ = nullptr;
  std::function<double(std::uint64_t)> element_;
};

}  // namespace tcert
