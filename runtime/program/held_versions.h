// runtime/program/held_versions.h — HeldVersions: the data of store versions held in memory by a
// one-rank run, so that later steps read them without the file (no mapping, no page faults, no
// pread) and, where the run defers its writes, without ever writing it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/comm/comm.h"
#include "runtime/program/options.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/storage/npy.h"

namespace tcert {

class TensorStore;

/// Store versions' data held in memory, by path. All of them together take at most
/// MappedInputs::drop_bytes() (bytes); past that, the data go back to their pool or, unwritten,
/// to their file.
class HeldVersions {
 public:
  /// For a run on `ctx` with `options` whose versions lie in `store`; `defers` is
  /// Run::defers_writes().
  HeldVersions(const Context& ctx, const RunOptions& options, TensorStore& store, bool defers);

  /// One-rank runs: keeps `data`, the elements of store version `path` that this process wrote
  /// whole from memory and then to the file (DirectResult, NpyWriter::Backing::Memory), so that
  /// MappedInputs::read_npy() reads them here and take() updates them without reading the file.
  /// Held while the versions so kept take at most MappedInputs::drop_bytes() in all (else `data`
  /// goes back to its pool), until Run::release() of the tensor, MappedInputs::patch_latest() of
  /// the version (the file is then written through a mapping) or the end of the run. The data's
  /// address does not change while held.
  void hold(const std::string& path, FileMemory data);
  /// The data held for `path` (hold() or hold_unwritten()), no longer held; empty when none are.
  /// Data held unwritten are then the caller's only copy of the version's values: it holds them
  /// again (hold_unwritten()) or writes them.
  FileMemory take(const std::string& path);
  /// With Run::defers_writes(): keeps `data`, the elements of store version `path` of `tensor`,
  /// as its only up-to-date copy. Its file is not written (`new_version`: it has none yet; else it
  /// holds older values) until write_out() or export_outputs() needs it, and Run::release() of the
  /// tensor drops them unwritten: a result that later steps read and then release costs no file
  /// at all (a pwrite of each result was 7% of tcec-ccsd's iteration, with the renames and opens
  /// of its file more). Held within the bound of hold(); past it, written now. Throws Error as
  /// write_out().
  void hold_unwritten(const std::string& path, const TensorShape& tensor, FileMemory data, bool new_version);
  /// The data of store version `path` held unwritten (hold_unwritten()), or null.
  const FileMemory* unwritten(const std::string& path) const;
  /// The data held for `path`, written or not, or null.
  const FileMemory* find(const std::string& path) const;
  /// Writes the data of store version `path` held unwritten to its file, which then holds them
  /// (they stay held, as by hold()): into the file's data in place when it has one (so that its
  /// mappings see them), else into a new file (write_npy(), after TensorStore::make()). Nothing
  /// when none are held unwritten. Throws Error ("cannot write output …", "disk full: …").
  void write_out(const std::string& path);
  /// Drops the data held for `path` (released); true when they were unwritten and `path` has no
  /// file (there is none to remove).
  bool drop(const std::string& path);

 private:
  /// Data held for a store version.
  struct Held {
    FileMemory data;
    std::vector<std::uint64_t> shape;  // extents (elements)
    bool written = true;               // the file holds data; else they are the only copy
  };
  const Context& ctx_;
  TensorStore& store_;
  bool defers_ = false;
  bool sync_results_ = false;         // RunOptions::sync_results
  std::map<std::string, Held> held_;  // by path
  std::uint64_t held_bytes_ = 0;
  std::set<std::string> unfiled_;  // versions held unwritten that have no file yet
};

}  // namespace tcert
