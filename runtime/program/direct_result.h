// runtime/program/direct_result.h — a result written in place: the next version of C in the
// run's store, created by rank 0 and mapped by every rank that writes part of it, so an executor
// writes its tiles straight into the file (direct tile I/O of C) and commits it at the end; a
// program output's version on several nodes, or larger than the memory per rank, goes straight
// into its output's directory instead (written with explicit requests, renamed into place by
// export_outputs()).
// Used by every executor that writes a result. Units: elements, bytes where a name says so.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/program/run.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/storage/element_file.h"
#include "runtime/storage/mapped_walk.h"
#include "runtime/storage/npy.h"

namespace tcert {

class DirectResult {
 public:
  /// Where the result goes.
  enum class Update {
    NextVersion,  ///< a new file, zero-filled, that becomes the next version at commit()
    /// The latest version's own file, updated where it is (TensorStore::updates_in_place() must hold):
    /// data() starts from the values it holds, and nothing is renamed at commit().
    InPlace,
  };
  /// With Update::NextVersion: registers the next version of `shape` in run's store
  /// (TensorStore::next_version: call initial_C() before, for the version a step starts from), creates
  /// its zero-filled temporary file on rank 0 (making the store's directory: TensorStore::make())
  /// and maps it on the ranks where `writes` holds, or opens it for explicit requests where the
  /// result is streamed(); a version of a program output, without --checkpoint or --keep and
  /// with no version before it in the store, is instead a file beside the output where the store
  /// is not TensorStore::coherent() (several nodes) and, for a .npy location, where streamed():
  /// TensorStore::add_output_version() (no store needed), written with explicit requests
  /// (streamed()) unless one rank alone writes it; on one rank, a result of at most
  /// MappedInputs::drop_bytes() is filled in memory instead and written to the file by sync() and
  /// commit() (NpyWriter::Backing::Memory), or, where
  /// Run::defers_writes(), held unwritten by commit() with no file made (HeldVersions::hold_unwritten()),
  /// unless the run may save checkpoints inside a step (RunOptions::checkpoint_every: they copy
  /// and restore the file).
  /// With Update::InPlace: maps the latest version (MappedInputs::patch_latest()) on those ranks
  /// (opens it for explicit requests where streamed(), or where it is such an output file with
  /// several writers), or, on
  /// one rank and within that bound, takes it into memory (NpyUpdate, or the data the run holds
  /// for it), and holds it unwritten at commit() where Run::defers_writes().
  /// Collective over run.context(). Throws Error on every rank when the file cannot be made
  /// (e.g. "disk full: …") or mapped on some rank (Context::check_all).
  /// `overwrites` (Update::NextVersion): the step writes every element of the result before
  /// commit(), so that a result filled in memory need not start at zero (clearing 1–4 MB took
  /// 0.7 ms of tcec-ccsd's iteration).
  /// `may_stream` false: never streamed(), for a caller that fills data() by other means (an
  /// HDF5 import reads into it).
  DirectResult(Run& run, const TensorShape& shape, bool writes, Update update = Update::NextVersion,
               bool overwrites = false, bool may_stream = true);
  ~DirectResult();
  DirectResult(const DirectResult&) = delete;
  DirectResult& operator=(const DirectResult&) = delete;

  /// The result's row-major elements (shape.elements() of them) on ranks that write; null on
  /// the others, and where the result is streamed().
  double* data() const { return data_; }
  /// Whether the result is written with explicit requests (write(), put(), copy(), flush():
  /// element_file.h RunWrites, with write-behind) instead of through data(): a result larger than
  /// the memory per rank (MappedInputs::streams()), not filled in memory, or a program output's
  /// file that several ranks write (constructor). The same on every rank.
  bool streamed() const { return streamed_; }
  /// Elements at … at + n − 1 = src[0], src[step], …: through data() (noting the pages written
  /// with `walk`, wrote_span()), or, streamed(), queued and written by flush() at the latest (a
  /// step-1 run of RunWrites::kDirectElems or more from `src`, which must stay unchanged until then).
  void write(MappedWalk& walk, std::uint64_t at, std::size_t n, const double* src, std::size_t step = 1);
  /// Element `at` = value, as write().
  void put(MappedWalk& walk, std::uint64_t at, double value);
  /// Elements at … at + n − 1 = those of `from` (a version of the same tensor), as write(): a
  /// streamed `from` is copied file to file where the result is streamed; else through memory,
  /// where the values land at from.flush() (the caller calls it, then flush()).
  void copy(const ElementSource& from, MappedWalk& walk, std::uint64_t at, std::size_t n);
  /// Writes what write(), put() and copy() queued (streamed; nothing otherwise). Throws Error
  /// ("cannot write …", "disk full: …").
  void flush();
  /// The result's elements as written so far (flushed), for steps that read back what they
  /// wrote (direct C, Gao et al.'s read of C's tile): data(), or the file streamed.
  ElementSource source() const;
  /// Notes a write through data() that may have made `bytes` newly resident (MappedWalk; 0:
  /// none) and, when resident file-backed pages have grown by MappedInputs::drop_bytes() since the
  /// last drop (ResidentGuard), drops the mapping's resident pages (they stay in the page
  /// cache), bounding the resident memory. `accesses`: as ResidentGuard::touched() counts them
  /// (a span: MappedWalk::windows()). Nothing for a result filled in memory.
  void wrote(std::uint64_t bytes, std::uint64_t accesses = 1);
  /// wrote() for a write of elements at … at + n − 1 that `walk` follows (MappedWalk::span()).
  void wrote_span(MappedWalk& walk, std::uint64_t at, std::uint64_t n) {
    const std::uint64_t bytes = walk.span(at, n);
    if (bytes > 0) wrote(bytes, walk.windows(bytes));  // most runs stay in a page
  }
  /// The file the result is written in until commit() (its temporary name, or the latest
  /// version's in place; every rank); the version's path, with no file, when it is held
  /// unwritten (HeldVersions::hold_unwritten()).
  const std::string& file() const { return temp_; }
  /// Syncs every rank's writes to file(), for a copy of it (a checkpoint inside the step).
  /// Collective. Throws Error on every rank when a sync fails.
  void sync(const Context& ctx);
  /// Runs `writes` (this rank's last writes through data(); none by default), syncs this rank's
  /// writes (unless RunOptions::sync_results is false) and, on rank 0, renames the file into
  /// place once every rank's writes are synced (a second collective check: a shared file system
  /// need not show a renamed file with another node's writes still on their way): the new
  /// version exists on return. Where the store has one directory per node
  /// (TensorStore::per_node()), each node's file is first completed with the other nodes'
  /// elements (TensorStore::complete(), counted in Phase::Redistribute) and each node's rank 0
  /// renames its own. Collective. Throws Error on every rank when a
  /// write, a sync or the rename fails (the run then ends; the store's version is not used).
  void commit(const Context& ctx, const std::function<void()>& writes = {});

 private:
  void open_file();  // streamed: file_ and writes_ on temp_

  Run& run_;
  std::unique_ptr<NpyWriter> writer_;    // rank 0, for the next version
  std::unique_ptr<NpyPatch> own_patch_;  // the other ranks that write it
  std::unique_ptr<NpyUpdate> update_;    // InPlace on one rank: the latest version in memory
  NpyPatch* patch_ = nullptr;            // own_patch_, or the run's mapping of the latest version
  FileMemory memory_;                    // deferred_: the data, held unwritten at commit()
  TensorShape shape_;
  bool deferred_ = false, new_version_ = false;  // HeldVersions::hold_unwritten() at commit(); its new_version
  double* data_ = nullptr;
  std::string temp_;
  bool flush_ = true;                   // RunOptions::sync_results
  std::optional<ResidentGuard> guard_;  // wrote(), for a mapping: MappedInputs::drop_bytes() when made
  bool streamed_ = false;               // streamed(), on every rank
  bool renames_ = false;                // rank 0 has a writer_ that commit() renames (every rank)
  bool completes_ = false;              // a version in a store of one directory per node (commit() completes it)
  std::shared_ptr<ElementFile> file_;   // streamed, on ranks that write: temp_ open for writing
  std::unique_ptr<RunWrites> writes_;   // and the runs queued
};

}  // namespace tcert
