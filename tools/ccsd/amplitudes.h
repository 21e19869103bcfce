// tools/ccsd/amplitudes.h — CCSD amplitude vectors out of core: T1 [V,O] and T2 [V,V,O,O] as
// two float64 .npy files, and the elementwise work of one iteration (Jacobi update, dot
// products, linear combinations) spread over the ranks of a communicator, each rank its
// balanced range of every file, streamed through mappings whose resident pages are dropped
// every few MiB, so no rank holds a whole vector.
//
// Spin orbitals, occupied first (tools/psi4_integrals.py): h = occupied (O of them),
// p = virtual (V). T1 is t_ph[a,i], T2 is t_pphh[a,b,i,j], as NWChem's TCE names them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

namespace tcec::ccsd {

/// The two files of one vector (amplitudes, residuals, DIIS errors): paths of .npy files of
/// shape [V,O] and [V,V,O,O].
struct Amplitudes {
  std::string t1, t2;
};

/// Elementwise operations on Amplitudes, collective over `comm`: every rank calls each with
/// the same arguments. Files written are complete and renamed into place only when every
/// rank has filled its range (runtime NpyWriter/NpyPatch); errors throw tcert::Error on the
/// rank that meets them.
class VectorOps {
 public:
  /// eps_occ[i] (O values) and eps_vir[a] (V values): orbital energies in Eh, the diagonals of
  /// f_hh and f_pp (canonical orbitals).
  VectorOps(MPI_Comm comm, std::vector<double> eps_occ, std::vector<double> eps_vir);

  std::int64_t O() const { return static_cast<std::int64_t>(eps_occ_.size()); }
  std::int64_t V() const { return static_cast<std::int64_t>(eps_vir_.size()); }

  /// Writes a vector of zeros to `out`.
  void zeros(const Amplitudes& out) const;
  /// The Jacobi step with orbital-energy denominators: step = r / D, next = t + step, where
  /// D1[a,i] = e_i − e_a and D2[a,b,i,j] = e_i + e_j − e_a − e_b (a residual r of NWChem's
  /// ccsd_t1/ccsd_t2 vanishes at the solution; from t = 0 the step gives the MP2 amplitudes).
  /// Returns Σ r·r over both files (the residual norm squared), summed in index order in the same pass.
  double jacobi(const Amplitudes& t, const Amplitudes& r, const Amplitudes& next, const Amplitudes& step) const;
  /// Σ x·ys[k] over both files, for every k, in one pass that maps x's files once (DIIS's new row).
  std::vector<double> dots(const Amplitudes& x, const std::vector<Amplitudes>& ys) const;
  /// out = Σ_k c[k]·xs[k]. Precondition: c.size() == xs.size() >= 1.
  void combine(const std::vector<double>& c, const std::vector<Amplitudes>& xs, const Amplitudes& out) const;

 private:
  /// The element range [first, end) of n elements this rank handles.
  std::pair<std::uint64_t, std::uint64_t> range(std::uint64_t n) const;
  /// Writes `path` of `shape`: fill(first, end, out, more) gives this rank's elements [first,
  /// end) into out[0 .. end-first), called in chunks; `more`: another chunk follows (the caller
  /// drops its inputs' pages only then).
  template <class Fill>
  void write(const std::string& path, const std::vector<std::uint64_t>& shape, Fill fill) const;

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::vector<double> eps_occ_, eps_vir_;
};

}  // namespace tcec::ccsd
