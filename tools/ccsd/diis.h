// tools/ccsd/diis.h — DIIS (Pulay, Chem. Phys. Lett. 73, 393 (1980)) over out-of-core CCSD
// amplitudes: the last few Jacobi results and their steps live in files; only the small
// B matrix of the steps' dot products is in memory.
#pragma once

#include <string>
#include <vector>

#include "amplitudes.h"

namespace tcec::ccsd {

/// A DIIS subspace of at most `size` vectors. Each iteration the caller writes a Jacobi result
/// and its step into slot(), calls added(), and then takes extrapolate()'s combination as the
/// next amplitudes. Collective over the VectorOps' communicator.
class Diis {
 public:
  /// Slots are files DIR/diis_{t,e}{k}_{ph,pphh}.npy. size 0 or 1: no extrapolation.
  Diis(const VectorOps& ops, std::string dir, int size);

  /// Where the next Jacobi result (amplitudes) and its step (error vector) go: the oldest
  /// slot once all are in use.
  const Amplitudes& next_amplitudes() const;
  const Amplitudes& next_error() const;
  /// Takes the slot just written into the subspace (computes its row of B: one dot product
  /// with each error held).
  void added();
  /// Vectors held.
  int held() const { return static_cast<int>(order_.size()); }
  /// The coefficients c (Σ c = 1) minimising |Σ c_k e_k| over the held errors, in held order
  /// (oldest first), from the bordered system [B 1; 1ᵀ 0][c; λ] = [0; 1] solved by LAPACK
  /// dgesv; empty when fewer than two vectors are held or B is singular.
  std::vector<double> coefficients() const;
  /// The held amplitudes, oldest first (the order of coefficients()).
  std::vector<Amplitudes> amplitudes() const;

 private:
  const VectorOps& ops_;
  int size_;
  std::vector<Amplitudes> t_, e_;           // by slot
  std::vector<int> order_;                  // held slots, oldest first
  std::vector<std::vector<double>> B_;      // B_[slot][slot'] = e_slot · e_slot'
  int next_ = 0;                            // the slot written next
};

}  // namespace tcec::ccsd
