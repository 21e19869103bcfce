// runtime/program/element_source.h — ElementSource: an input tensor's elements, from a mapped
// file or memory, from a file read with explicit requests, or computed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "runtime/storage/element_file.h"

namespace tcert {

/// The elements of an input tensor, by `linear` (row-major) index: from the row-major doubles of
/// a mapped file or of memory (data(): callers may copy whole runs from it), from a file read with
/// explicit requests (streamed(): a tensor larger than the memory per rank,
/// MappedInputs::streams()), or computed (the generator). Calling it on mapped data is a load, not
/// an indirect call.
class ElementSource {
 public:
  static constexpr std::size_t kShortRun = 16;  ///< copy(): runs up to this many elements by a loop
  ElementSource() = default;
  /// The row-major doubles at `data` (a mapping that outlives the source).
  explicit ElementSource(const double* data) : data_(data) {}
  /// Elements computed by `element` (linear index → value).
  explicit ElementSource(std::function<double(std::uint64_t)> element) : element_(std::move(element)) {}
  /// Elements of `file` read with explicit requests (copy() queues them, flush() reads them);
  /// single elements (operator()) from `mapped`, the same file mapped, when not null, else read
  /// one by one.
  ElementSource(std::shared_ptr<const ElementFile> file, const double* mapped)
      : lookup_(mapped), file_(std::move(file)) {}
  /// A copy shares the file, not the copies queued.
  ElementSource(const ElementSource& other)
      : data_(other.data_), lookup_(other.lookup_), file_(other.file_), element_(other.element_) {}
  ElementSource& operator=(const ElementSource& other) {
    data_ = other.data_, lookup_ = other.lookup_, file_ = other.file_, element_ = other.element_;
    pending_.reset();
    return *this;
  }
  ~ElementSource();
  /// The element at row-major index `linear` (no bounds check).
  double operator()(std::uint64_t linear) const {
    if (data_ != nullptr) return data_[linear];
    if (file_) return lookup(linear);
    return element_(linear);
  }
  /// The row-major doubles, or null when the elements are computed or streamed.
  const double* data() const { return data_; }
  /// The file read with explicit requests, or null.
  const ElementFile* streamed() const { return file_.get(); }
  /// out[e·step] = (*this)(first + e) for e < n: at once, or, streamed, by flush() (the runs a
  /// pass queues are read together: RunReads).
  void copy(std::uint64_t first, std::size_t n, double* out, std::size_t step = 1) const {
    if (data_ != nullptr) {
      if (step != 1) {
        for (std::size_t e = 0; e < n; ++e) out[e * step] = data_[first + e];
      } else if (n <= kShortRun) {  // a loop: a call to memmove costs more than a few elements
        for (std::size_t e = 0; e < n; ++e) out[e] = data_[first + e];
      } else {
        std::copy_n(data_ + first, n, out);
      }
      return;
    }
    if (file_) return queue(first, n, out, step);
    for (std::size_t e = 0; e < n; ++e) out[e * step] = element_(first + e);
  }
  /// Completes the copies queued by copy() (streamed; nothing otherwise). Throws Error when a
  /// read fails.
  void flush() const;

 private:
  void queue(std::uint64_t first, std::size_t n, double* out, std::size_t step) const;
  double lookup(std::uint64_t linear) const;
  const double* data_ = nullptr;
  const double* lookup_ = nullptr;  // streamed: the file's mapping for operator(), or null
  std::shared_ptr<const ElementFile> file_;
  std::function<double(std::uint64_t)> element_;
  mutable std::unique_ptr<RunReads> pending_;  // streamed: the runs copy() queued
};

}  // namespace tcert
