// tools/ccsd/diis.cpp — Diis (diis.h).
#include "diis.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

extern "C" void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb,
                       int* info);  // LAPACK (OpenBLAS)

namespace tcec::ccsd {

Diis::Diis(const VectorOps& ops, std::string dir, int size)
    : ops_(ops), dir_(std::move(dir)), size_(static_cast<std::size_t>(std::max(size, 1))) {}

Amplitudes Diis::amplitudes_of(int id) const {
  return {fmt::format("{}/diis_t{}_ph.npy", dir_, id), fmt::format("{}/diis_t{}_pphh.npy", dir_, id)};
}

Amplitudes Diis::error_of(int id) const {
  return {fmt::format("{}/diis_e{}_ph.npy", dir_, id), fmt::format("{}/diis_e{}_pphh.npy", dir_, id)};
}

void Diis::add(int id) {
  held_.push_back(id);
  if (held_.size() > size_) held_.erase(held_.begin());
  std::vector<Amplitudes> errors;
  for (int k : held_) errors.push_back(error_of(k));
  const std::vector<double> row = ops_.dots(error_of(id), errors);  // id's file mapped once
  for (std::size_t i = 0; i < held_.size(); ++i) B_[{std::min(held_[i], id), std::max(held_[i], id)}] = row[i];
  std::erase_if(B_, [&](const auto& entry) {  // entries of vectors no longer held
    auto in = [&](int k) { return std::find(held_.begin(), held_.end(), k) != held_.end(); };
    return !in(entry.first.first) || !in(entry.first.second);
  });
}

std::vector<double> Diis::coefficients() const {
  const auto n = static_cast<int>(held_.size());
  if (n < 2) return {};
  const int m = n + 1;  // the bordered system, symmetric
  std::vector<double> a(static_cast<std::size_t>(m * m), 0.0), b(static_cast<std::size_t>(m), 0.0);
  auto at = [&](int i, int j) -> double& { return a[static_cast<std::size_t>(i * m + j)]; };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int x = held_[static_cast<std::size_t>(i)], y = held_[static_cast<std::size_t>(j)];
      at(i, j) = B_.at({std::min(x, y), std::max(x, y)});
    }
    at(i, n) = at(n, i) = 1.0;
  }
  b.back() = 1.0;
  std::vector<int> pivots(static_cast<std::size_t>(m));
  const int one = 1;
  int info = 0;
  dgesv_(&m, &one, a.data(), &m, pivots.data(), b.data(), &m, &info);
  if (info != 0) return {};
  b.pop_back();
  return b;
}

std::vector<Amplitudes> Diis::amplitudes() const {
  std::vector<Amplitudes> out;
  for (int k : held_) out.push_back(amplitudes_of(k));
  return out;
}

std::vector<std::string> Diis::stale_files() const {
  std::vector<std::string> keep;  // as VectorOps::file_of() names them
  for (int k : held_)
    for (const Amplitudes& x : {amplitudes_of(k), error_of(k)})
      keep.push_back(ops_.file_of(x.t1)), keep.push_back(ops_.file_of(x.t2));
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string(), path = entry.path().string();
    if (name.rfind("diis_", 0) == 0 && ops_.is_mine(name) && std::find(keep.begin(), keep.end(), path) == keep.end())
      out.push_back(path);
  }
  return out;
}

nlohmann::json Diis::state() const {
  nlohmann::json B = nlohmann::json::array();
  for (const auto& [ij, v] : B_) B.push_back({ij.first, ij.second, v});
  return {{"held", held_}, {"B", B}};
}

void Diis::restore(const nlohmann::json& state) {
  held_ = state.at("held").get<std::vector<int>>();
  B_.clear();
  for (const nlohmann::json& e : state.at("B")) B_[{e.at(0).get<int>(), e.at(1).get<int>()}] = e.at(2).get<double>();
}

}  // namespace tcec::ccsd
