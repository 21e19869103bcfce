// tests/costmodel/fixtures.h — problems and machines shared by the cost-model tests.
#pragma once

#include <cmath>
#include <cstdint>

#include "costmodel/model.h"

namespace tcec::costmodel::fixtures {

/// C(I,J) += A(I,K)·B(J,K) with extents I, J, K and e-byte elements (sizes in bytes).
inline Problem cube(double I, double J, double K, double e = 8) {
  return {I, J, K, I * K * e, J * K * e, I * J * e};
}

/// Gao et al. Table 9 (notes/gao-model.md): extents 4000, 8-byte elements.
inline Problem table9_problem() { return cube(4000, 4000, 4000); }

/// Table 9's machine: P = 4, B_c = 200 MB/s, B_d = 8 MB/s, 24 MB per processor
/// (M = 8 MB per array), f_rep = √2, f_red = 1.4.
inline Machine table9_machine() {
  Machine m;
  m.processors = 4;
  m.memory_bytes = 24e6;
  m.network_bytes_per_s = 200e6;
  m.disk_read_bytes_per_s = m.disk_write_bytes_per_s = 8e6;
  m.replication_factor = std::sqrt(2.0);
  m.reduction_factor = 1.4;
  return m;
}

/// One disk bandwidth as in the paper; M = 1e6 elements (8 MB) per array.
inline Machine paper_machine(std::int64_t P, double disk_bytes_per_s, double network_bytes_per_s) {
  Machine m;
  m.processors = P;
  m.memory_bytes = 24e6;
  m.disk_read_bytes_per_s = m.disk_write_bytes_per_s = disk_bytes_per_s;
  m.network_bytes_per_s = network_bytes_per_s;
  return m;
}

}  // namespace tcec::costmodel::fixtures
