// runtime/program/run.h — Run: one call of a generated function, and the parts the steps share.
//
// A generated function (runtime/program/generated.h run_generated()) builds one Run, then runs one
// executor per contraction (GaoGemm, methods/gao/gao.h, …) and one copy_step per one-operand
// statement through step(), releases each intermediate after its last use (release()), then calls
// finish(). Run holds what the run is told (the context, options, tensor locations, the
// program's info) and this rank's scratch directory, and owns the parts the steps share, each
// with one job:
//   store()        TensorStore   the store's directory and each tensor's versions
//   held()         HeldVersions  store versions' data held in memory (one rank)
//   mapped()       MappedInputs  the .npy files read through mappings, and their resident pages
//   kept()         KeptTensors   results kept on the ranks (the hand-off, resident blocks)
//   checkpoints()  StepCheckpoints  the steps, and checkpoints between and inside them
//   records()      RunRecords    contraction records, --verify, the trace and the summary
// What spans several parts stays here: a tensor's elements (input()), a step (step(),
// end_step()), a release (release()) and the end (finish()).
#pragma once

#include <memory>

#include "runtime/base/memory.h"
#include "runtime/comm/comm.h"
#include "runtime/kernel/kernel.h"
#include "runtime/program/element_source.h"
#include "runtime/program/held_versions.h"
#include "runtime/program/kept_tensors.h"
#include "runtime/program/mapped_inputs.h"
#include "runtime/program/options.h"
#include "runtime/program/program_info.h"
#include "runtime/program/run_records.h"
#include "runtime/program/step_checkpoints.h"
#include "runtime/program/tensor_store.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/storage/scratch.h"

namespace tcert {

class Run {
 public:
  /// Checks that the communicator has info.processors ranks (Error "this program was planned
  /// for P = 4 processes but runs on 3; start it with mpirun -np 4"), zeroes counters(), sets
  /// budget()'s limit to info.memory_bytes (and resets its peak), makes this rank's scratch
  /// directory (unless defers_writes()), opens the checkpoint (options.checkpoint:
  /// StepCheckpoints) and the tensor store (the checkpoint's, with it: TensorStore), checks on
  /// rank 0 that every input of info.inputs can be read from its location in `tensors` (or
  /// generated: options.random_seed) with the right shape and dtype and that every output's
  /// location can be written (tensor_files.h check_locations()), on every rank that the parts in
  /// memory of `tensors` cover their tensors (check_parts()), and on every rank that the
  /// output and checkpoint directories and the input files are the ones rank 0 sees
  /// (shared_paths.h check_shared_paths(): a node-local path is an error naming the rank, its
  /// host and the path), then imports the inputs given as parts in memory and the HDF5 inputs
  /// into the store (import_inputs(), Phase::Import). With a checkpoint, a new run saves a first
  /// checkpoint after the import; a resumed one (options.resume) takes the store's versions and
  /// the steps done from it and imports nothing. Collective; an Error it throws (Checkpoint's
  /// included) is thrown on every rank.
  Run(const Context& ctx, RunOptions options, TensorLocations tensors, ProgramInfo info);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  const Context& context() const { return ctx_; }              ///< the run's communicator
  const RunOptions& options() const { return options_; }       ///< what the run was told
  const TensorLocations& tensors() const { return tensors_; }  ///< the inputs' and outputs' files
  const ProgramInfo& info() const { return info_; }            ///< the program's constants
  /// This rank's scratch directory (--scratch DIR/rank-N). Made with the run on every rank, or,
  /// where the run defers its writes (defers_writes(): one rank), at the first call: a run that
  /// keeps every tile in memory makes and removes no directory. Throws Error as Scratch does.
  Scratch& scratch();
  /// Whether this rank shows the progress line (rank 0, not --quiet).
  bool shows_progress() const { return ctx_.rank() == 0 && !options_.quiet; }
  /// Whether store versions may stay in memory, unwritten, until something needs their files
  /// (HeldVersions::hold_unwritten()): one rank, and no checkpoint (it names the versions' files)
  /// and no --keep (it leaves them for inspection).
  bool defers_writes() const { return ctx_.size() == 1 && options_.checkpoint.empty() && !options_.keep; }

  // --- the parts ---
  TensorStore& store() { return store_; }  ///< the tensor store (tensor_store.h)
  const TensorStore& store() const { return store_; }
  HeldVersions& held() { return held_; }                   ///< versions held in memory (held_versions.h)
  MappedInputs& mapped() { return mapped_; }               ///< mapped .npy files (mapped_inputs.h)
  KeptTensors& kept() { return kept_; }                    ///< results kept on the ranks (kept_tensors.h)
  StepCheckpoints& checkpoints() { return checkpoints_; }  ///< steps and checkpoints (step_checkpoints.h)
  RunRecords& records() { return records_; }               ///< records, verify, trace (run_records.h)
  const RunRecords& records() const { return records_; }

  /// The elements of `tensor`: its latest version in the store when a step of this run wrote
  /// it or it was imported from HDF5 (Error when its latest version is kept on the ranks
  /// without a --verify shadow: flush it first); else, as an input, from its .npy location
  /// (MappedInputs::read_npy(): opened once, shape checked: Error "input NAME has shape (3, 4)
  /// but the program expects (3, 5)"), or random_element(seed, tensor_id_of(NAME), linear) with
  /// options().random_seed. Error when it has neither location nor seed.
  ElementSource input(const TensorShape& tensor);
  /// The tile kernel's scratch memory (contract()'s Workspace), one per process, kept from one
  /// step (and one run) to the next so that a step does not allocate and clear it again (a new
  /// one cost 1.4–2 ms per call for a 380 × 380 product here: more than the product).
  /// end_step() frees its buffers and its tables where either holds more than kKeptFreeHeapBytes
  /// (memory.h), so what it keeps between steps stays within twice that. For the thread that runs
  /// the steps only.
  static Workspace& kernel_workspace();

  /// Runs one step of the program (a contraction or a copy: `step` is its generated function):
  /// steps are numbered 1, 2, … in call order. First saves the checkpoint of the steps before
  /// (StepCheckpoints::save()); then, when the run resumed from a checkpoint (RunOptions::resume)
  /// that had completed this step, skips it, else bounds the mapped pages by the buffers held now
  /// (MappedInputs::bound_pages()) and runs it. Fault point "step:N" after step N. Collective.
  void step(void (*step)(Run&));
  /// Ends a step (the executors call it): drops the mappings' resident pages when due
  /// (MappedInputs::drop_if_due()); frees the kernel's buffers, and its GETT tables, where either
  /// holds more than kKeptFreeHeapBytes (Workspace::trim()); and gives the heap's free memory back
  /// (release_free_heap()). Sources from input() stay valid.
  void end_step();
  /// Forgets every version of `name` and deletes their files (the store's on rank 0: a version
  /// held unwritten has none; TensorStore::remove(); a kept version's on every rank): an
  /// intermediate after its last use. With a checkpoint, the store's files are deleted after the
  /// next checkpoint, which no longer names them. Collective (ends with a barrier).
  void release(const std::string& name);
  /// Ends the run: saves the last checkpoint, writes the latest version of every output with a
  /// location to it (export_outputs(), Phase::Export), writes the trace (rank 0; "resumed_steps"
  /// when it resumed) and prints the summary (rank 0, unless quiet); then removes the
  /// checkpoint, if any, unless keep (the run is complete, even when the verification failed).
  /// Collective. Throws Error on every rank when an output or the trace cannot be written, and
  /// "verification failed: …" when verify found an error above 1e-10 (after writing the outputs
  /// and the trace).
  void finish();

 private:
  /// The run's first work, before any part: checks the communicator's size, zeroes the counters,
  /// sets the memory budget; returns this rank's scratch directory unless defers_writes().
  std::unique_ptr<Scratch> start();
  /// Rank 0 (unless --quiet) warns on stderr where the store's nodes (TensorStore::nodes()) are
  /// not those the plans were made for (ProgramInfo::ranks_per_node): the run is right, but its
  /// measured volumes then differ from the prediction.
  void warn_if_not_the_planned_nodes() const;

  // Declared in construction order: a part refers to those above it.
  Context ctx_;
  RunOptions options_;
  TensorLocations tensors_;
  ProgramInfo info_;
  std::unique_ptr<Scratch> scratch_;
  StepCheckpoints checkpoints_;
  KeptTensors kept_;
  TensorStore store_;
  HeldVersions held_;
  MappedInputs mapped_;
  RunRecords records_;
};

}  // namespace tcert
