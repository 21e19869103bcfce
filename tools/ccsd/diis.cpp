// tools/ccsd/diis.cpp — Diis (diis.h).
#include "diis.h"

#include <algorithm>

#include <fmt/format.h>

extern "C" void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb,
                       int* info);   // LAPACK (OpenBLAS)

namespace tcec::ccsd {

Diis::Diis(const VectorOps& ops, std::string dir, int size)
    : ops_(ops), size_(std::max(size, 1)), B_(static_cast<std::size_t>(size_), std::vector<double>(static_cast<std::size_t>(size_))) {
  for (int k = 0; k < size_; ++k) {
    t_.push_back({fmt::format("{}/diis_t{}_ph.npy", dir, k), fmt::format("{}/diis_t{}_pphh.npy", dir, k)});
    e_.push_back({fmt::format("{}/diis_e{}_ph.npy", dir, k), fmt::format("{}/diis_e{}_pphh.npy", dir, k)});
  }
}

const Amplitudes& Diis::next_amplitudes() const { return t_[static_cast<std::size_t>(next_)]; }
const Amplitudes& Diis::next_error() const { return e_[static_cast<std::size_t>(next_)]; }

void Diis::added() {
  const int slot = next_;
  order_.erase(std::remove(order_.begin(), order_.end(), slot), order_.end());
  order_.push_back(slot);
  for (int k : order_) {
    const double b = ops_.dot(e_[static_cast<std::size_t>(slot)], e_[static_cast<std::size_t>(k)]);
    B_[static_cast<std::size_t>(slot)][static_cast<std::size_t>(k)] = B_[static_cast<std::size_t>(k)][static_cast<std::size_t>(slot)] = b;
  }
  next_ = (next_ + 1) % size_;
}

std::vector<double> Diis::coefficients() const {
  const int n = held();
  if (n < 2) return {};
  const int m = n + 1;   // bordered, column-major (symmetric anyway)
  std::vector<double> a(static_cast<std::size_t>(m * m), 0.0), b(static_cast<std::size_t>(m), 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      a[static_cast<std::size_t>(i * m + j)] =
          B_[static_cast<std::size_t>(order_[static_cast<std::size_t>(i)])][static_cast<std::size_t>(order_[static_cast<std::size_t>(j)])];
    a[static_cast<std::size_t>(i * m + n)] = a[static_cast<std::size_t>(n * m + i)] = 1.0;
  }
  b[static_cast<std::size_t>(n)] = 1.0;
  std::vector<int> pivots(static_cast<std::size_t>(m));
  const int one = 1;
  int info = 0;
  dgesv_(&m, &one, a.data(), &m, pivots.data(), b.data(), &m, &info);
  if (info != 0) return {};
  b.resize(static_cast<std::size_t>(n));
  return b;
}

std::vector<Amplitudes> Diis::amplitudes() const {
  std::vector<Amplitudes> out;
  for (int k : order_) out.push_back(t_[static_cast<std::size_t>(k)]);
  return out;
}

}  // namespace tcec::ccsd
