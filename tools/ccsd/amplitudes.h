// tools/ccsd/amplitudes.h — CCSD amplitude vectors out of core: T1 [V,O] and T2 [V,V,O,O] as
// two float64 .npy files, and the elementwise work of one iteration (Jacobi update, dot
// products, linear combinations) spread over the ranks of a communicator, each rank its
// balanced range of every file, streamed through mappings whose resident pages are dropped
// every few MiB, so no rank holds a whole vector; except that one rank with room holds the
// newest vectors it wrote (VectorOps, cache_bytes). With private ranges (several nodes,
// node-local scratch) each rank's range of every vector is in a file of its own instead.
//
// Spin orbitals, occupied first (tools/psi4_integrals.py): h = occupied (O of them),
// p = virtual (V). T1 is t_ph[a,i], T2 is t_pphh[a,b,i,j], as NWChem's TCE names them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "runtime/program/options.h"
#include "runtime/storage/npy.h"

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
///
/// On one rank, the files it writes also stay in its memory, the newest up to `cache_bytes` in
/// all, and later operations read them there instead of mapping the file (a DIIS step reads
/// every vector of its subspace, two files each, T1 and T2, so small vectors are read far more
/// often than written). The files are still written (a
/// checkpoint names them). Precondition: nobody else changes a file this object wrote while it
/// lives (tcec-ccsd names each iteration's vectors anew).
class VectorOps {
 public:
  /// eps_occ[i] (O values) and eps_vir[a] (V values): orbital energies in Eh, the diagonals of
  /// f_hh and f_pp (canonical orbitals). cache_bytes: see above (0: none).
  /// `private_ranges`: every rank keeps its range of every vector in a file of its own,
  /// file_of(path), that no other rank reads or writes (on several nodes with node-local
  /// scratch: no shared path); `path` then only names the vector. Else every rank writes its
  /// range of the one file `path`.
  VectorOps(MPI_Comm comm, std::vector<double> eps_occ, std::vector<double> eps_vir, std::uint64_t cache_bytes = 0,
            bool private_ranges = false);

  /// This rank's part of a vector file: the file mapped, and the elements of this rank's range.
  struct Part {
    std::unique_ptr<tcert::NpyReader> reader;  ///< for reading (read_part())
    std::unique_ptr<tcert::NpyWriter> writer;  ///< for writing (write_part(); commit_part() renames it)
    tcert::TensorPart part;                    ///< this rank's range, in the mapping
  };
  /// With private ranges: the file that holds this rank's range of the vector `path` (a .npy of
  /// the vector's full shape, of which only the range is written: a sparse file). Else `path`.
  std::string file_of(const std::string& path) const;
  /// Whether the file named `name` (a file name or path) is one of this rank's vector files:
  /// with private ranges, one that file_of() names (ending .rank<R>); else any.
  bool is_mine(const std::string& name) const;
  /// With private ranges: this rank's range of the vector `path` (written before), mapped;
  /// part.data is only read. Not collective.
  Part read_part(const std::string& path) const;
  /// With private ranges: a new file for this rank's range of the vector `path` of `shape`, to
  /// be filled through part.data and then committed (commit_part()). Not collective.
  Part write_part(const std::string& path, const std::vector<std::uint64_t>& shape) const;
  /// Renames a write_part() file into place. Throws tcert::Error on failure.
  static void commit_part(Part& p);

  /// Whether each rank keeps its range of every vector in a file of its own (file_of()).
  bool private_ranges() const { return private_; }
  std::int64_t O() const { return static_cast<std::int64_t>(eps_occ_.size()); }
  std::int64_t V() const { return static_cast<std::int64_t>(eps_vir_.size()); }

  /// Writes a vector of zeros to `out`.
  void zeros(const Amplitudes& out) const;
  /// The Jacobi step with orbital-energy denominators: step = r / D, next = t + step, where
  /// D1[a,i] = e_i − e_a and D2[a,b,i,j] = e_i + e_j − e_a − e_b (a residual r of NWChem's
  /// ccsd_t1/ccsd_t2 vanishes at the solution; from t = 0 the step gives the MP2 amplitudes).
  /// Returns Σ r·r over both files (the residual norm squared), summed in index order in the
  /// same pass.
  double jacobi(const Amplitudes& t, const Amplitudes& r, const Amplitudes& next, const Amplitudes& step) const;
  /// Σ x·ys[k] over both files, for every k, in one pass that reads x once (DIIS's new row).
  std::vector<double> dots(const Amplitudes& x, const std::vector<Amplitudes>& ys) const;
  /// Lets go of the copy in memory of the file `path`, if any (the file is no longer needed).
  /// Not collective.
  void forget(const std::string& path) const;
  /// out = Σ_k c[k]·xs[k]. Precondition: c.size() == xs.size() >= 1.
  void combine(const std::vector<double>& c, const std::vector<Amplitudes>& xs, const Amplitudes& out) const;

 private:
  /// The element range [first, end) of n elements this rank handles: balanced, with each rank's
  /// start moved up to the next element that begins a kPageBytes page of a file whose data start
  /// at kDataOffset, so that no two ranks write one page of a file through their mappings (a
  /// shared file system merges whole pages written on several nodes, not the bytes in them).
  std::pair<std::uint64_t, std::uint64_t> range(std::uint64_t n) const;
  /// file_of() of each path.
  std::vector<std::string> files_of(const std::vector<std::string>& paths) const;
  static constexpr std::uint64_t kPageBytes = 4096;
  static constexpr std::uint64_t kDataOffset = 128;  ///< a .npy header of these shapes (runtime NpyWriter)
  /// Writes `path` of `shape`: fill(first, end, out, more) gives this rank's elements [first,
  /// end) into out[0 .. end-first), called in chunks; `more`: another chunk follows (the caller
  /// drops its inputs' pages only then).
  template <class Fill>
  void write(const std::string& path, const std::vector<std::uint64_t>& shape, Fill fill) const;

  /// The data of `path` held in memory, or null.
  std::shared_ptr<const tcert::FileMemory> cached(const std::string& path) const;
  /// Memory for the n elements of a file to be written and then held (counted as held from now
  /// on; the oldest held go to make room), or null: more than one rank, or more than
  /// cache_bytes. From the runtime's pool of freed blocks (tcert::FileMemory), where they go back
  /// when let go of.
  std::shared_ptr<tcert::FileMemory> buffer(std::uint64_t n) const;

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  bool sync_writes_ = false;  // the ranks are on several hosts: writes are synced before a rename
  bool private_ = false;      // each rank's range in a file of its own (file_of())
  std::vector<double> eps_occ_, eps_vir_;
  std::uint64_t cache_bytes_ = 0;
  struct Cached {
    std::string path;
    std::shared_ptr<tcert::FileMemory> data;
  };
  mutable std::deque<Cached> cache_;  // oldest first
  mutable std::uint64_t cached_bytes_ = 0;
};

}  // namespace tcec::ccsd
