// runtime/program/mapped_inputs.h — MappedInputs: the .npy files a run reads through mappings
// (inputs and store versions) and those it updates in place, and the bound on the pages they
// make resident.
//
// Input files stay mapped for the process from one run to the next (tcec-ccsd's residuals read
// the same integrals every iteration, and unmapping them cost 2 ms per iteration); store versions
// are mapped once per run. The pages the mappings make resident are dropped whenever they have
// grown by drop_bytes() since the last drop (ResidentGuard, one per process), so that a step's
// mapped reads and writes stay within the memory per rank with its tile buffers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "runtime/program/element_source.h"
#include "runtime/program/options.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/storage/mapped_walk.h"
#include "runtime/storage/npy.h"

namespace tcert {

class HeldVersions;
class TensorStore;

/// The mappings of one run, and the process's mapped inputs.
class MappedInputs {
 public:
  /// 8 MiB: the least of drop_bytes().
  static constexpr std::uint64_t kDropBytes = std::uint64_t{8} << 20;

  /// For a run whose versions lie in `store` (their data possibly in `held`), with `options`
  /// (sync_results) and `memory_bytes` of memory per rank (ProgramInfo::memory_bytes; 0:
  /// unlimited). Bounds the pages that earlier runs left mapped by this run's bound for the
  /// buffers held now (bound_pages()).
  MappedInputs(const TensorStore& store, HeldVersions& held, const RunOptions& options, std::uint64_t memory_bytes);
  /// Closes this run's mappings, and forgets the process's mapped inputs whose path names no
  /// file, or another file, or one of another size or modification time, than the one mapped.
  ~MappedInputs();
  MappedInputs(const MappedInputs&) = delete;
  MappedInputs& operator=(const MappedInputs&) = delete;

  /// The elements of the .npy file at `path` (an input or a store version, e.g.
  /// TensorStore::previous()'s), mapped once per run, or the data HeldVersions holds for it;
  /// streamed where streams() says so (copies then go through explicit requests, single elements
  /// through the mapping).
  /// end_step() and touched() drop its resident pages, close() closes it. A file outside the
  /// store stays mapped for later runs of the process, which map it again only when the path
  /// names another file, or one of another size or modification time, than the one mapped.
  /// Throws Error when the file cannot be read or its shape is not `tensor`'s ("input NAME has
  /// shape (3, 4) but the program expects (3, 5)").
  ElementSource read_npy(const std::string& path, const TensorShape& tensor);
  /// Whether a tensor file of `bytes` bytes of data is read and written with explicit requests
  /// (element_file.h) rather than through a mapping: when it is larger than the memory per rank
  /// (the program's out-of-core tensors; RunOptions::stream_bytes when given). Smaller ones stay
  /// mapped: their pages fit beside the tiles, and tensors every step reads (tcec-ccsd's
  /// integrals) stay resident from one step to the next. Unlimited memory (0): none.
  bool streams(std::uint64_t bytes) const {
    if (stream_bytes_) return bytes > *stream_bytes_;
    return memory_bytes_ > 0 && bytes > memory_bytes_;
  }
  /// The latest version of `name` mapped for writing (NpyPatch, with RunOptions::sync_results),
  /// mapped once per run and kept from one in-place update to the next, so that its pages stay
  /// mapped; its data held in memory are written out first and no longer held. Its resident
  /// pages are dropped as the inputs' are; close() closes it. Throws Error ("tensor NAME has no
  /// version in the store to update in place") when `name` has no version, or as NpyPatch.
  NpyPatch& patch_latest(const std::string& name);
  /// Closes this run's mappings of `path` (a released version).
  void close(const std::string& path);

  /// Notes a read through read_npy()'s mappings that may have made `bytes` newly resident
  /// (MappedWalk; 0: none) and, when the process's resident file-backed pages have grown by
  /// drop_bytes() since the last drop (ResidentGuard), drops the mappings' resident pages, so
  /// that a step's direct reads hold at most about that much of the inputs in memory (the pages
  /// are read again from the page cache when touched). Safe from the compute stage's I/O thread:
  /// the step's inputs are all opened in its load stage. `accesses`: as ResidentGuard::touched()
  /// counts them (a span: MappedWalk::windows()).
  void touched(std::uint64_t bytes, std::uint64_t accesses = 1);
  /// touched() for a read of elements at … at + n − 1 that `walk` follows (MappedWalk::span()).
  void touched_span(MappedWalk& walk, std::uint64_t at, std::uint64_t n) {
    const std::uint64_t bytes = walk.span(at, n);
    if (bytes > 0) touched(bytes, walk.windows(bytes));  // most runs stay in a window
  }
  /// Drops the mappings' resident pages (NpyReader::drop_pages()) when they have grown by
  /// drop_bytes() since the last drop (ResidentGuard::due()): Run::end_step()'s part, so that
  /// what the steps touched stays within the bound that holds inside a step, while small tensors
  /// that every step reads stay mapped from one step to the next.
  void drop_if_due();

  /// The growth of resident mapped pages (bytes) after which touched() and DirectResult drop
  /// them: half of what the running step's tile buffers leave of the memory per rank
  /// (bound_pages()), and at least kDropBytes (also where the memory is unlimited). A step's
  /// mapped reads and its mapped writes (DirectResult) each hold at most about this much (plus
  /// what the kernel maps between two checks), so with its tile buffers they stay within the
  /// memory per rank, and a rank's peak resident memory within the tile memory + 64 MB with
  /// MPI's and BLAS's own (about 35 MB here; e2e tests check it). With 512 MB and small tiles,
  /// tcec-ccsd's steps on H2O/cc-pVDZ no longer drop and fault back in the pages of the tensors
  /// every step reads (8 MiB cost 10% of an iteration). Process-wide: input mappings outlive a
  /// run, and so do their pages.
  static std::uint64_t drop_bytes();
  /// Sets drop_bytes() for a step whose tile buffers take at most `tile_bytes` per rank
  /// (max(kDropBytes, (memory − tile_bytes) / 2)), and drops the mapped pages now when they have
  /// grown past it since the last drop. Run::step() calls it with the buffers held between steps,
  /// each contraction's executor with its plan's peak (begin_contraction()).
  void bound_pages(std::uint64_t tile_bytes);

 private:
  void drop_pages();  // of readers_, patches_ and the input mappings kept for the process

  const TensorStore& store_;
  HeldVersions& held_;
  bool sync_results_ = false;  // RunOptions::sync_results
  std::uint64_t memory_bytes_ = 0;
  std::optional<std::uint64_t> stream_bytes_;                  // RunOptions::stream_bytes
  std::map<std::string, std::shared_ptr<NpyReader>> readers_;  // by path (closed before the store goes)
  std::map<std::string, std::unique_ptr<NpyPatch>> patches_;   // patch_latest(), by path (likewise)
};

}  // namespace tcert
