// runtime/program/element_source.cpp — ElementSource's streamed copies (element_source.h).
#include "runtime/program/element_source.h"

namespace tcert {

ElementSource::~ElementSource() = default;

void ElementSource::queue(std::uint64_t first, std::size_t n, double* out, std::size_t step) const {
  if (!pending_) pending_ = std::make_unique<RunReads>(*file_);
  pending_->add(first, n, out, step);
}

void ElementSource::flush() const {
  if (pending_) pending_->flush();
}

double ElementSource::lookup(std::uint64_t linear) const {
  if (lookup_ != nullptr) return lookup_[linear];
  double value = 0;
  file_->read(linear, 1, &value);
  return value;
}

}  // namespace tcert
