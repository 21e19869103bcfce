// tools/ccsd/integrals.h — where a molecule's integrals are (tools/psi4_integrals.py writes
// either form): a directory of .npy blocks with meta.json, or one HDF5 file with a dataset per
// block. Blocks: the Fock matrix's f_hh f_hp f_ph f_pp and the sixteen <pq||rs> blocks v_hhhh …
// v_pppp, spin orbitals with the O occupied ones first, then the V virtual ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/program/options.h"

namespace tcec::ccsd {

class Integrals {
 public:
  /// `path`: a directory (DIR/meta.json gives "O" and "V") or a .h5/.hdf5 file (O and V are
  /// the extents of its datasets f_hh and f_pp). Throws tcert::Error naming what is missing or
  /// malformed.
  explicit Integrals(std::string path);

  std::int64_t O() const { return O_; }
  std::int64_t V() const { return V_; }
  /// Where block `name` (e.g. "v_hhpp") is, for the generated residual functions.
  tcert::TensorFile file(const std::string& name) const;
  /// The diagonal of f_hh (O values) or f_pp (V values): orbital energies, Eh.
  std::vector<double> diagonal(const std::string& name) const;

 private:
  std::string path_;
  bool hdf5_ = false;
  std::int64_t O_ = 0, V_ = 0;
};

}  // namespace tcec::ccsd
