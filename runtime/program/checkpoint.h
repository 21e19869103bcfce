// runtime/program/checkpoint.h — resumable runs: a checkpoint directory that holds the run's tensor
// store and a manifest of the steps completed, written atomically after each step, from which
// --resume continues a run that was killed.
//
// DIR (--checkpoint DIR, on a file system every rank sees) holds
//  - DIR/store/: the run's tensor store (TensorStore::dir()): every version a step wrote;
//  - DIR/manifest.json: what the run is (the program's name, source and fingerprint: a hash of
//    its generated steps, so of its plans; P; the memory per rank; each input's location with
//    its size in bytes and modification time, or the random seed), how many steps it has
//    completed, and the store's versions at that point, each file with its size in bytes and a
//    64-bit checksum (file_checksum()).
// A run resumed from the manifest skips the completed steps and starts from those versions; its
// outputs are bit-identical to an uninterrupted run's (the same steps compute the same values
// from the same files in the same order). A checkpoint is taken only at a step boundary where
// no tensor is kept on the ranks (the hand-off's rank-local files are not in the store), so a
// run with kept intermediates resumes from the last boundary where everything was in the store.
//
// With --checkpoint-every, a checkpoint is also taken inside a step (WithinStep): at a K-pass
// boundary of its contraction's loop nest (or before an sfc tile or a tbs block, or between two
// COSMA rounds), each rank copies its partial C (a file, or COSMA's C block from memory) to
// DIR/rank-N/within.X.C.bin (X alternates, so the copy the manifest names is never the one being
// written) and the manifest records how far the nest had run. A resumed run redoes the step's
// stage 1 (its inputs are the checkpoint's store versions), copies the partial C back and runs
// the rest of the nest: the same operations in the same order, so the same bits.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/file_lock.h"
#include "runtime/comm/comm.h"
#include "runtime/program/options.h"

namespace tcert {

struct ProgramInfo;

/// Where the step in progress stood at a checkpoint inside it: its contraction's loop nest had
/// run `position` of its `nest_steps` steps (GaoGemm's recorded steps, sfc tiles or tbs
/// blocks up to the fewest of any rank, COSMA rounds), and this rank's partial C was copied to a
/// snapshot of `bytes` bytes with checksum `checksum` (has_file false: the rank holds no partial
/// C, e.g. inside accumulation off rank 0, or an idle COSMA rank).
struct WithinStep {
  int step = 0;  ///< the step in progress, 1-based (Run::step())
  std::uint64_t position = 0, nest_steps = 0;
  bool has_file = false;
  std::uint64_t bytes = 0, checksum = 0;
};

/// This rank's partial C at a checkpoint inside a step: a file (GaoGemm's tiled C or
/// direct C's new version, SfcGemm's C), a block in memory (CosmaGemm's C block), or neither
/// (the rank holds no partial C).
struct PartialC {
  std::string file;         ///< its path, or ""
  std::span<double> block;  ///< when `file` is "": the block in memory (elements)
  /// Whether the rank holds a partial C (an empty block holds none).
  bool held() const { return !file.empty() || !block.empty(); }
};

/// A 64-bit checksum of the file at `path` (the same on every rank): rank q reads bytes
/// [S·q/P, S·(q+1)/P) of the file's S bytes (pread in 1 MiB pieces: a buffer of that size
/// outside the memory budget) and hashes them word by word; the checksum mixes S and the P
/// partial hashes in rank order. Depends on P, which a program fixes. Collective. Throws Error
/// on every rank when a rank cannot read the file ("cannot read PATH: …").
std::uint64_t file_checksum(const Context& ctx, const std::string& path);

/// One run's checkpoint directory (header comment).
class Checkpoint {
 public:
  /// Opens DIR for a run of `info` with `tensors` and `options`. Rank 0 creates DIR and
  /// DIR/store when missing. Collective; every Error is thrown on every rank:
  ///  - without options.resume, when DIR holds a manifest: "DIR holds a checkpoint of PROGRAM
  ///    (step K of N done); continue it with --resume, or remove DIR to start again";
  ///  - with options.resume, when it holds none ("--resume: no checkpoint in DIR"), when the
  ///    manifest was made for another run ("cannot resume from DIR: it was made for another
  ///    program|plan|number of processes|memory per rank|input NAME (…)"), or when a file it
  ///    names is missing or no longer has its size and checksum ("cannot resume from DIR: the
  ///    store's file F has changed since the checkpoint").
  /// Rank 0 holds DIR/lock (FileLock) until the destructor, so a second run on DIR is refused
  /// ("DIR/lock is held by another process (another run on this checkpoint directory, …)").
  Checkpoint(const Context& ctx, const ProgramInfo& info, const TensorLocations& tensors, const RunOptions& options);

  /// DIR/store, where the run keeps its tensor store.
  const std::string& store_dir() const { return store_dir_; }
  /// Steps the resumed run had completed (0 for a new run).
  int steps_done() const { return steps_done_; }
  /// The store's versions at the checkpoint resumed from (full paths, by tensor name, oldest
  /// first; empty for a new run).
  const std::map<std::string, std::vector<std::string>>& versions() const { return versions_; }

  /// The checkpoint inside a step that the run resumed from (nullopt: none, or a new run).
  const std::optional<WithinStep>& within() const { return within_; }

  /// Records that the first `steps_done` steps are complete with the store holding `versions`
  /// (full paths under store_dir(), by tensor name): every rank sums its share of each file not
  /// summed before (file_checksum()), rank 0 writes DIR/manifest.json atomically (a temporary
  /// file renamed over it) and then deletes the files given to remove_later() that the
  /// manifest no longer names; every rank then deletes its snapshots of a partial C that the
  /// manifest no longer names. Collective; Error on every rank when the manifest cannot be
  /// written (the previous one then stays valid).
  void save(int steps_done, const std::map<std::string, std::vector<std::string>>& versions);
  /// As save(), and the step after them is in progress: copies this rank's partial C `c` (a
  /// file or a block in memory; none when !c.held()) to its next snapshot in DIR/rank-N (not
  /// the one the manifest on disk names), summing it, and records `within` (position and
  /// nest_steps; the rest is filled in) in the manifest. Collective; Error on every rank when a copy or the
  /// manifest cannot be written (the previous checkpoint then stays valid).
  void save_within(int steps_done, const std::map<std::string, std::vector<std::string>>& versions, WithinStep within,
                   const PartialC& c);
  /// Copies this rank's snapshot of within() back into its partial C `c` (none when !c.held()),
  /// checking its size and checksum. Collective; Error on every rank ("cannot resume from DIR:
  /// the partial result of step N on rank R has changed since the checkpoint") when a rank's
  /// snapshot is missing or differs.
  void restore_within(const PartialC& c);
  /// Deletes `path` (a released version) after the next save(), not before: until then the
  /// manifest on disk may still name it. Call on every rank (rank 0 deletes).
  void remove_later(const std::string& path) { doomed_.insert(path); }
  /// The run is complete: rank 0 removes the store, the manifest, the lock's file, and DIR when
  /// nothing else is in it. Collective.
  void discard();

 private:
  /// What the manifest says the run is: program, source, fingerprint, processors,
  /// memory_bytes, inputs (a location's path, dataset, bytes and mtime_ns; or random_seed).
  nlohmann::json identity(const TensorLocations& tensors, const RunOptions& options) const;
  /// The manifest read on rank 0, checked against `identity`, its files checked; fills
  /// steps_done_, versions_ and sums_. Collective.
  void resume(const nlohmann::json& identity);
  /// resume()'s checkpoint inside a step: the manifest's "within" `w` into within_ (this rank's
  /// snapshot) and snapshot_.
  void take_within(const nlohmann::json& w);
  /// resume()'s check of the manifest's `versions`: each file of the store still has its size
  /// and checksum (collective; Error on every rank "cannot resume from DIR: the store's file F has
  /// changed since the checkpoint"); fills versions_ and sums_.
  void check_versions(const nlohmann::json& versions);
  /// (bytes, checksum) of the store's file `name` (a file name in store_dir()), summed once.
  std::pair<std::uint64_t, std::uint64_t> summed(const std::string& name);

  const Context& ctx_;
  const ProgramInfo& info_;
  std::string dir_, store_dir_, manifest_;
  std::unique_ptr<FileLock> lock_;  // rank 0's
  bool sync_results_ = false;       // RunOptions::sync_results: else flush store_dir_ before a manifest
  nlohmann::json identity_;
  int steps_done_ = 0;
  std::map<std::string, std::vector<std::string>> versions_;
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> sums_;  // by file name
  std::set<std::string> doomed_;
  std::optional<WithinStep> within_;  // resumed from
  int snapshot_ = 0;                  // the snapshot the manifest names (1 or 2; 0: none)
  /// DIR/rank-N/within.X.C.bin, this rank's snapshot X (1 or 2).
  std::string snapshot_path(int x) const;
  /// Writes the manifest: `within` (every rank's entry, rank order) when given.
  void write_manifest(int steps_done, const std::map<std::string, std::vector<std::string>>& versions,
                      const nlohmann::json& within);
};

}  // namespace tcert
