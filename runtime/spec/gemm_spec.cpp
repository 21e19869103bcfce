// runtime/spec/gemm_spec.cpp — TensorShape::elements().
#include "runtime/spec/gemm_spec.h"

namespace tcert {

std::uint64_t TensorShape::elements() const {
  std::uint64_t n = 1;
  for (std::int64_t e : extents) n *= static_cast<std::uint64_t>(e);
  return n;
}

}  // namespace tcert
