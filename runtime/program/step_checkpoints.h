// runtime/program/step_checkpoints.h — StepCheckpoints: a run's steps and its checkpoints, between
// steps (each step boundary where the store holds every latest version) and inside a step
// (--checkpoint-every: GaoGemm's K-pass boundaries, sfc tiles, tbs blocks, COSMA rounds).
//
// The checkpoint directory itself (the manifest, the store's files, the snapshots of a partial C)
// is Checkpoint's (checkpoint.h); this part counts the steps, decides when to save and resumes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/base/counters.h"
#include "runtime/comm/comm.h"
#include "runtime/program/checkpoint.h"
#include "runtime/program/options.h"
#include "runtime/program/program_info.h"
#include "runtime/program/tensor_store.h"

namespace tcert {

/// Where the loop nest of the step running now resumed (StepCheckpoints::resume_within()).
struct ResumedNest {
  std::uint64_t at = 0;          ///< the nest's steps run before the checkpoint (0: not resumed inside)
  std::uint64_t nest_steps = 0;  ///< of this many
};

/// The steps of one run and, with RunOptions::checkpoint, its Checkpoint.
class StepCheckpoints {
 public:
  /// With options.checkpoint: opens the checkpoint directory for this run (Checkpoint's
  /// constructor: collective; its Errors are thrown on every rank); a resumed run
  /// (options.resume) starts after the steps the checkpoint had completed. Without: no
  /// checkpoint, nothing resumed.
  StepCheckpoints(const Context& ctx, const RunOptions& options, const TensorLocations& tensors,
                  const ProgramInfo& info);

  /// Whether the run has a checkpoint (RunOptions::checkpoint).
  bool active() const { return checkpoint_ != nullptr; }
  /// The checkpoint's store directory (Checkpoint::store_dir()), or "" without a checkpoint.
  std::string store_dir() const { return checkpoint_ ? checkpoint_->store_dir() : std::string(); }
  /// Whether the run resumed from a checkpoint (RunOptions::resume).
  bool resumed() const { return checkpoint_ && resumed_; }
  /// The store's versions at the checkpoint resumed from (empty for a new run).
  const StoreVersions& resumed_versions() const { return checkpoint_->versions(); }
  /// Steps completed before this run started (the checkpoint it resumed from; 0 otherwise).
  int resumed_steps() const { return resumed_steps_; }
  /// The step running now (1, 2, … in call order; 0 before the first).
  int step() const { return steps_; }

  /// A new run with a checkpoint, after the inputs were imported: saves the checkpoint of no
  /// steps with the store's `versions`. Collective; Error on every rank as Checkpoint::save().
  void save_first(const StoreVersions& versions);
  /// Saves the checkpoint of the steps run so far with the store's `versions` as they are now
  /// (after the releases that followed the last step: Checkpoint::save()), when the run has a
  /// checkpoint, steps have completed since the last save and `consistent` (nothing is kept on
  /// the ranks or held in memory: KeptTensors::empty()). Fault point "checkpoint:N" after a save
  /// at step N. Called before each step and before the outputs are written. Collective.
  void save(const StoreVersions& versions, bool consistent);
  /// Counts the next step; false when the checkpoint the run resumed from had completed it (skip
  /// it). `versions`: the store's now, what a checkpoint inside the step holds.
  bool begin_step(const StoreVersions& versions);

  // --- checkpoints inside a step (--checkpoint-every) ---
  /// Whether the step running now may save checkpoints inside it: the run has a checkpoint and
  /// --checkpoint-every, and the checkpoint before this step was saved (so nothing was kept on
  /// the ranks when it began).
  bool saves_within() const;
  /// Whether a checkpoint inside the step is due at this boundary: --checkpoint-every 0, or the
  /// longest time on any rank since the last save is at least that many seconds. Collective
  /// (an all-reduce, outside the counted volumes) unless the interval is 0.
  bool within_due();
  /// Saves a checkpoint inside the step running now (Checkpoint::save_within()): its loop nest
  /// has run `position` of its `nest_steps` steps and `c` is this rank's partial C (a file or a
  /// block in memory; none when !c.held()). Collective. Fault point "within:N" after the N-th
  /// such save of this process.
  void save_within(std::uint64_t position, std::uint64_t nest_steps, const PartialC& c);
  /// When this run resumed from a checkpoint inside the step running now: copies this rank's
  /// partial C back into `c` (Checkpoint::restore_within()) and returns the loop-nest steps
  /// already run; else 0. Collective; Error on every rank ("cannot resume from DIR: its
  /// checkpoint inside step N is for a loop nest of A steps, not B") when the checkpoint was made
  /// for a nest of another length, or as restore_within() when a snapshot has changed.
  std::uint64_t resume_within(std::uint64_t nest_steps, const PartialC& c);
  /// Where the step running now resumed inside its loop nest ({0, 0}: it did not).
  ResumedNest resumed_nest() const;

  /// Deletes the file of released version `path` after the next save (Checkpoint::remove_later()).
  void remove_later(const std::string& path) { checkpoint_->remove_later(path); }
  /// The run is complete: removes the checkpoint (Checkpoint::discard()) unless --keep; nothing
  /// without one. Collective.
  void discard();

 private:
  const Context& ctx_;
  const RunOptions& options_;
  const ProgramInfo& info_;
  std::unique_ptr<Checkpoint> checkpoint_;               // with RunOptions::checkpoint
  bool resumed_ = false;                                 // RunOptions::resume
  int steps_ = 0, resumed_steps_ = 0, saved_steps_ = 0;  // begin_step(): called, skipped; checkpointed
  StoreVersions step_versions_;                          // the store's when the running step began
  Stopwatch since_save_;                                 // since the last checkpoint
  int within_saves_ = 0;                                 // save_within() calls (fault points)
  ResumedNest resumed_nest_;                             // resume_within() of the step running now
};

}  // namespace tcert
