// tools/ccsd/diis.h — DIIS (Pulay, Chem. Phys. Lett. 73, 393 (1980)) over out-of-core CCSD
// amplitudes: the last few Jacobi results and their steps live in files named by iteration;
// only the small matrix B of the steps' dot products is in memory.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "amplitudes.h"

namespace tcec::ccsd {

/// A DIIS subspace of at most `size` vectors, each named by the iteration that made it. The
/// caller writes vector `id`'s Jacobi result and step into amplitudes_of(id) and error_of(id),
/// calls add(id), and takes the combination of coefficients() as the next amplitudes. Files of
/// vectors that left the subspace are not deleted here (a checkpoint may still name them; see
/// stale_files()). Collective over the VectorOps' communicator (add() computes dot products).
class Diis {
 public:
  /// Files DIR/diis_{t,e}<id>_{ph,pphh}.npy. size 0 or 1: no extrapolation.
  Diis(const VectorOps& ops, std::string dir, int size);

  Amplitudes amplitudes_of(int id) const;
  Amplitudes error_of(int id) const;
  /// Takes vector `id` (its files written) into the subspace, the oldest leaving it beyond
  /// size: one dot product with each error held.
  void add(int id);
  /// The ids held, oldest first.
  const std::vector<int>& held() const { return held_; }
  /// The coefficients c (Σ c = 1) minimising |Σ c_k e_k| over the held errors, in held order,
  /// from the bordered system [B 1; 1ᵀ 0][c; λ] = [0; 1] solved by LAPACK dgesv; empty when
  /// fewer than two vectors are held or the system is singular.
  std::vector<double> coefficients() const;
  /// The held amplitudes, oldest first (the order of coefficients()).
  std::vector<Amplitudes> amplitudes() const;
  /// The files of this subspace's vectors in `dir` that are not held (to delete once a
  /// checkpoint no longer names them), this rank's own as VectorOps::file_of() names them.
  std::vector<std::string> stale_files() const;

  /// The subspace as JSON (held ids and B; doubles round-trip exactly), and back.
  nlohmann::json state() const;
  void restore(const nlohmann::json& state);

 private:
  const VectorOps& ops_;
  std::string dir_;
  std::size_t size_;
  std::vector<int> held_;
  std::map<std::pair<int, int>, double> B_;  // (i, j), i <= j: e_i · e_j
};

}  // namespace tcec::ccsd
