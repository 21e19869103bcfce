// tools/ccsd/residuals.h — the residual functions of spin-orbital CCSD as tcec generates them:
// NWChem TCE's equation trees ccsd_e, ccsd_t1 and ccsd_t2 planned for O, V and the machine,
// emitted in the library form (tcec --emit library), compiled once into a shared object and
// loaded into the running MPI job, so a solver calls them once per iteration with no relaunch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <mpi.h>

#include "equations.h"
#include "runtime/program/generated.h"

namespace tcec::ccsd {

/// The three functions, loaded. Not copyable (owns the loaded object).
class Residuals {
 public:
  enum Which { Energy = 0, T1 = 1, T2 = 2 };

  /// Collective over `comm`. Rank 0 plans the sections ccsd_e, ccsd_t1 and ccsd_t2 of
  /// `equations` (NWChem TCE equation trees, `tcec --from nwchem`; only rank 0's are read, and
  /// diagnostics name them equations.name) for O and V spin orbitals
  /// on the machine of `machine_file` (its P must be comm's size), writes their library-form
  /// sources into `cache_dir` and compiles them with the generated programs' tool chain
  /// (codegen::toolchain(), -fPIC -shared) unless the same sources were compiled there before;
  /// then every rank loads the object (its references to the runtime resolve to this
  /// executable's copy). Throws tcert::Error with the compiler's or planner's diagnostics.
  Residuals(MPI_Comm comm, std::int64_t O, std::int64_t V, const Equations& equations, const std::string& machine_file,
            const std::string& cache_dir);
  ~Residuals();
  Residuals(const Residuals&) = delete;
  Residuals& operator=(const Residuals&) = delete;

  /// The input tensors of `which`, by name (f_hp, v_hhpp, t_ph, t_pphh, …).
  const std::vector<std::string>& inputs(Which which) const { return inputs_[which]; }
  /// Floating-point operations of one call of `which`: Σ 2·|I|·|J|·|K| over its contractions
  /// (ir::MacroIndexGemm::flops; copies and additions not counted).
  double flops(Which which) const { return flops_[which]; }
  /// The machine's memory per rank (bytes) the functions were planned for.
  std::uint64_t memory_bytes() const { return memory_bytes_; }
  /// Calls `which` on `comm`: each of its inputs from `given` (a file in given.inputs, .npy or an
  /// HDF5 dataset, or this rank's part in memory in given.input_parts; the others are not
  /// passed), the result i0 to given.outputs.at("i0") or given.output_parts.at("i0"). Returns
  /// the function's Status (a failure naming an input `given` lacks).
  tcert::Status call(Which which, MPI_Comm comm, const tcert::TensorLocations& given,
                     const tcert::RunOptions& options) const;

 private:
  void* handle_ = nullptr;
  tcert::GeneratedFunction functions_[3] = {};
  std::vector<std::string> inputs_[3];
  double flops_[3] = {};
  std::uint64_t memory_bytes_ = 0;
};

}  // namespace tcec::ccsd
