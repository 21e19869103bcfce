// runtime/program/run.h — Run: one call of a generated function (options, scratch, store, inputs, trace).
//
// A generated function (runtime/program/generated.h run_generated()) builds one Run, then runs one
// executor per contraction (GaoGemm, methods/gao/gao.h, …) and one copy_step per one-operand
// statement, then calls finish(). Run owns what the steps share: the options and the tensors'
// locations, this rank's scratch directory, the tensor store, the inputs (.npy files, HDF5
// datasets imported into the store, or the counter-based generator), the memory budget, and
// the trace and verification results collected per contraction.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/memory.h"
#include "runtime/comm/comm.h"
#include "runtime/comm/placement.h"
#include "runtime/kernel/kernel.h"
#include "runtime/program/checkpoint.h"
#include "runtime/program/options.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/storage/element_file.h"
#include "runtime/storage/mapped_walk.h"
#include "runtime/storage/npy.h"
#include "runtime/storage/scratch.h"
#include "runtime/storage/tiled_matrix.h"

namespace tcert {

class IoWorker;

/// What a generated program knows about itself (constants written by the compiler).
struct ProgramInfo {
  std::string name;                ///< program name, e.g. "matmul"
  std::string source;              ///< the .tce file it was generated from
  std::int64_t processors = 1;     ///< P of the plans: the communicator's size must match
  std::uint64_t memory_bytes = 0;  ///< memory per rank for tile buffers (bytes; 0 = unlimited)
  /// The inputs the program reads, with their stored extents (elements per dimension).
  std::vector<TensorShape> inputs;
  /// Its outputs: their latest versions are written to TensorLocations::outputs at the end.
  std::vector<TensorShape> outputs;
  /// A hash of the generated steps (so of the statements and their plans), 16 hex digits: a
  /// checkpoint is resumed only by the program that made it (checkpoint.h). "" = none given.
  std::string fingerprint;
  int steps = 0;  ///< how many steps run_steps() runs (Run::step()), for the checkpoint's messages
};

/// A step's result kept on the ranks for later steps instead of written to the store (the
/// hand-off: GemmSpec::keep_result, take_A …): where its parts lie and this rank's file of
/// them (null where the placement gives this rank nothing).
struct KeptTensor {
  TensorShape shape;
  Placement placement;
  std::unique_ptr<TiledMatrix> file;
  /// --verify only: the store's latest version of the tensor holds the same values (written
  /// outside the counted phases, for the checks that read operands from the store).
  bool shadowed = false;
};

/// The elements of an input tensor, by `linear` (row-major) index: from the row-major doubles of
/// a mapped file or of memory (data(): callers may copy whole runs from it), from a file read with
/// explicit requests (streamed(): a tensor larger than the memory per rank, Run::streams()), or
/// computed (the generator). Calling it on mapped data is a load, not an indirect call.
class ElementSource {
 public:
  static constexpr std::size_t kShortRun = 16;  ///< copy(): runs up to this many elements by a loop
  ElementSource() = default;
  /// The row-major doubles at `data` (a mapping that outlives the source).
  explicit ElementSource(const double* data) : data_(data) {}
  /// Elements computed by `element` (linear index → value).
  explicit ElementSource(std::function<double(std::uint64_t)> element) : element_(std::move(element)) {}
  /// Elements of `file` read with explicit requests (copy() queues them, flush() reads them);
  /// single elements (operator()) from `mapped`, the same file mapped, when not null.
  ElementSource(std::shared_ptr<const ElementFile> file, const double* mapped)
      : lookup_(mapped), file_(std::move(file)) {}
  ElementSource(const ElementSource& other)
      : data_(other.data_), lookup_(other.lookup_), file_(other.file_), element_(other.element_) {}
  ElementSource& operator=(const ElementSource& other) {
    data_ = other.data_, lookup_ = other.lookup_, file_ = other.file_, element_ = other.element_, pending_.reset();
    return *this;
  }
  double operator()(std::uint64_t linear) const {
    if (data_ != nullptr) return data_[linear];
    if (file_) return lookup(linear);
    return element_(linear);
  }
  /// The row-major doubles, or null when the elements are computed or streamed.
  const double* data() const { return data_; }
  /// The file read with explicit requests, or null.
  const ElementFile* streamed() const { return file_.get(); }
  /// out[e·step] = (*this)(first + e) for e < n: at once, or, streamed, by flush() (the runs a
  /// pass queues are read together: RunReads).
  void copy(std::uint64_t first, std::size_t n, double* out, std::size_t step = 1) const {
    if (data_ != nullptr) {
      if (step != 1) {
        for (std::size_t e = 0; e < n; ++e) out[e * step] = data_[first + e];
      } else if (n <= kShortRun) {  // a loop: a call to memmove costs more than a few elements
        for (std::size_t e = 0; e < n; ++e) out[e] = data_[first + e];
      } else {
        std::copy_n(data_ + first, n, out);
      }
      return;
    }
    if (file_) return queue(first, n, out, step);
    for (std::size_t e = 0; e < n; ++e) out[e * step] = element_(first + e);
  }
  /// Completes the copies queued by copy() (streamed; nothing otherwise). Throws Error when a
  /// read fails.
  void flush() const;

 private:
  void queue(std::uint64_t first, std::size_t n, double* out, std::size_t step) const;
  double lookup(std::uint64_t linear) const;
  const double* data_ = nullptr;
  const double* lookup_ = nullptr;  // streamed: the file's mapping for operator(), or null
  std::shared_ptr<const ElementFile> file_;
  std::function<double(std::uint64_t)> element_;
  mutable std::unique_ptr<RunReads> pending_;  // streamed: the runs copy() queued
};

/// The measured and predicted volumes of one contraction, one entry per rank (bytes, seconds).
struct ContractionRecord {
  std::string statement, plan, comm, algorithm, order;
  std::vector<std::uint64_t> predicted[5];  ///< disk read, disk write, sent, received (bytes); disk requests
  double predicted_seconds = 0;             ///< the model's time for the predicted bytes
  /// Redistribution (load from the tensor files, store the result): disk read, disk write per rank.
  /// ... and disk requests per rank (counters.h Volumes::disk_requests); predicted [2] is empty
  /// when the model does not predict them (a step that moves tensors rank to rank: the hand-off).
  std::vector<std::uint64_t> redistribution_predicted[3], redistribution_measured[3];
  double redistribution_predicted_seconds = 0;
  std::vector<double> redistribution_seconds;  ///< per rank, wall time of stages 1 and 3 (measured)
  std::vector<std::uint64_t> measured[5];      ///< the same, counted during the compute phase
  std::vector<double> seconds;                 ///< compute-phase wall time per rank
  /// Busy time per rank within the compute phase: disk transfers, MPI transfers, tile kernel.
  std::vector<double> disk_seconds, comm_seconds, kernel_seconds;
  std::vector<std::uint64_t> peak_tile_memory_bytes;  ///< per rank, the step's peak (load stage included)
  std::uint64_t planned_memory_bytes = 0;             ///< the plan's peak per rank (0: not given)
  /// Resumed inside the contraction (Run::resume_within()): the loop nest's first resumed_at of
  /// its nest_steps steps ran before the checkpoint, and `measured` counts the rest only (0:
  /// not resumed inside; the volumes are then the whole contraction's).
  std::uint64_t resumed_at = 0, nest_steps = 0;
};

/// Result of --verify for one output: samples checked on all ranks and the largest error.
struct VerifyResult {
  std::uint64_t checked = 0;
  double max_rel_error = 0;
};

/// The volumes of one rank in Phase::Import or Phase::Export, gathered at the end of a run.
struct FileTransfers {
  std::vector<std::uint64_t> read_bytes, write_bytes;  ///< per rank
  std::vector<double> seconds;                         ///< per rank, wall time
};

class Run {
 public:
  /// Checks that the communicator has info.processors ranks (Error "this program was planned
  /// for P = 4 processes but runs on 3; start it with mpirun -np 4"), makes this rank's scratch
  /// directory and the tensor store, sets budget()'s limit to info.memory_bytes (and resets its
  /// peak), zeroes counters(), checks on rank 0 that every input of info.inputs can be read
  /// from its location in `tensors` (or generated: options.random_seed) with the right shape
  /// and dtype and that every output's location can be written (tensor_files.h
  /// check_locations()), then imports the HDF5 inputs into the store (import_inputs(),
  /// Phase::Import). With options.checkpoint the store is the checkpoint's (checkpoint.h): a new
  /// run saves a first checkpoint after the import; a resumed one (options.resume) takes the
  /// store's versions and the steps done from it and imports nothing. Collective; an Error it
  /// throws (Checkpoint's included) is thrown on every rank.
  Run(const Context& ctx, RunOptions options, TensorLocations tensors, ProgramInfo info);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  const Context& context() const { return ctx_; }
  const RunOptions& options() const { return options_; }
  const TensorLocations& tensors() const { return tensors_; }
  const ProgramInfo& info() const { return info_; }
  /// This rank's scratch directory (--scratch DIR/rank-N). Made with the run on every rank, or,
  /// where the run defers its writes (defers_writes(): one rank), at the first call: a run that
  /// keeps every tile in memory makes and removes no directory. Throws Error as Scratch does.
  Scratch& scratch();
  /// Whether this rank shows the progress line (rank 0, not --quiet).
  bool shows_progress() const { return ctx_.rank() == 0 && !options_.quiet; }

  /// The elements of `tensor`: its latest version in the store when a step of this run wrote
  /// it or it was imported from HDF5 (Error when its latest version is kept on the ranks
  /// without a --verify shadow: flush it first); else, as an input, from its .npy location
  /// (opened once, shape checked: Error "input NAME has shape (3, 4) but the program expects
  /// (3, 5)"), or random_element(seed, tensor_id_of(NAME), linear) with options().random_seed.
  ElementSource input(const TensorShape& tensor);
  /// The elements of the .npy file at `path` (an input or a store version, e.g. previous()'s),
  /// streamed where streams() says so (copies then go through explicit requests, single elements
  /// through the mapping), mapped once per run: end_step() and touched_mapped() drop its resident pages, release()
  /// of a tensor closes its versions. A file outside the store stays mapped for later runs of the
  /// process, which map it again only when the path names another file, or one of another size
  /// or modification time, than the one mapped (and the mapping goes at the end of a run after
  /// which the path names no such file): tcec-ccsd's residuals read the same integrals every
  /// iteration, and unmapping them cost 2 ms per iteration. Throws Error when the file cannot be
  /// read or its shape is not `tensor`'s ("input NAME has shape … but the program expects …").
  ElementSource read_npy(const std::string& path, const TensorShape& tensor);
  /// Whether a tensor file of `bytes` bytes of data is read and written with explicit requests
  /// (element_file.h) rather than through a mapping: when it is larger than the memory per rank
  /// (the program's out-of-core tensors; RunOptions::stream_bytes when given). Smaller ones stay
  /// mapped: their pages fit beside the tiles, and tensors every step reads (tcec-ccsd's
  /// integrals) stay resident from one step to the next. Unlimited memory (0): none.
  bool streams(std::uint64_t bytes) const {
    if (options_.stream_bytes) return bytes > *options_.stream_bytes;
    return info_.memory_bytes > 0 && bytes > info_.memory_bytes;
  }
  /// Ends a step: drops the resident pages of every mapped input and store version this run
  /// reads (NpyReader::drop_pages()) when they have grown by mapped_drop_bytes() since the last
  /// drop (ResidentGuard::due()), so that what the steps touched stays within the bound that
  /// holds inside a step, while small tensors that every step reads stay mapped from one step to
  /// the next; frees the kernel's buffers, and its GETT tables, where either holds more than
  /// kKeptFreeHeapBytes (Workspace::trim()); and gives the heap's free memory back
  /// (release_free_heap()). Sources from input() stay valid.
  void end_step();
  /// The tile kernel's scratch memory (contract()'s Workspace), one per process, kept from one
  /// step (and one run) to the next so that a step does not allocate and clear it again (a new
  /// one cost 1.4–2 ms per call for a 380 × 380 product here: more than the product).
  /// end_step() frees its buffers and its tables where either holds more than kKeptFreeHeapBytes
  /// (memory.h), so what it keeps between steps stays within twice that. For the thread that runs
  /// the steps only.
  Workspace& kernel_workspace();
  /// Notes a read through input()'s or read_npy()'s mappings that may have made `bytes` newly
  /// resident (MappedWalk; 0: none) and, when the process's resident file-backed pages have
  /// grown by mapped_drop_bytes() since the last drop (ResidentGuard), drops the mappings' resident
  /// pages as end_step() does, so that a step's direct reads hold at most about that much of the
  /// inputs in memory (the pages are read again from the page cache when touched). Safe from
  /// the compute stage's I/O thread: the step's inputs are all opened in its load stage.
  /// `accesses`: as ResidentGuard::touched() counts them (a span: MappedWalk::windows()).
  void touched_mapped(std::uint64_t bytes, std::uint64_t accesses = 1);
  /// touched_mapped() for a read of elements at … at + n − 1 that `walk` follows (MappedWalk::span()).
  void touched_span(MappedWalk& walk, std::uint64_t at, std::uint64_t n) {
    const std::uint64_t bytes = walk.span(at, n);
    if (bytes > 0) touched_mapped(bytes, walk.windows(bytes));  // most runs stay in a window
  }
  /// 8 MiB: the least of mapped_drop_bytes().
  static constexpr std::uint64_t kMappedDropBytes = std::uint64_t{8} << 20;
  /// The growth of resident mapped pages (bytes) after which touched_mapped() and DirectResult
  /// drop them: half of what the running step's tile buffers leave of the memory per rank
  /// (bound_mapped_pages()), and at least kMappedDropBytes (also where the memory is unlimited).
  /// A step's mapped reads and its mapped writes (DirectResult) each hold at most about this much
  /// (plus what the kernel maps between two checks), so with its tile buffers they stay within
  /// the memory per rank, and a rank's peak resident memory within the tile memory + 64 MB with
  /// MPI's and BLAS's own (about 35 MB here; e2e tests check it). With 512 MB and small tiles,
  /// tcec-ccsd's steps on H2O/cc-pVDZ no longer drop and fault back in the pages of the
  /// tensors every step reads (8 MiB cost 10% of an iteration).
  std::uint64_t mapped_drop_bytes() const { return mapped_guard().limit(); }
  /// Sets mapped_drop_bytes() for a step whose tile buffers take at most `tile_bytes` per rank
  /// (max(kMappedDropBytes, (memory − tile_bytes) / 2)), and drops the mapped pages now when they
  /// have grown past it since the last drop. step() calls it with the buffers held between
  /// steps, each contraction's executor with its plan's peak (begin_contraction()).
  void bound_mapped_pages(std::uint64_t tile_bytes);

  // --- the tensor store: results of the steps, as .npy files in a directory all ranks see ---
  /// The store's directory: made by rank 0 under --scratch DIR (or $TMPDIR), removed at the end
  /// unless --keep. Ranks on other nodes need a shared file system there. Where the run defers its
  /// writes (defers_writes()), only named at first and made by make_store() when a file is first
  /// written there: a run whose results all stay in memory makes and removes no directory
  /// (tcec-ccsd's three calls an iteration: 0.2-0.4 ms each).
  const std::string& store_dir() const { return store_.path; }
  /// Makes the store's directory if it is only named yet (see store_dir()); every writer of a
  /// file there calls it first (DirectResult, write_out()). Throws Error("cannot create the tensor
  /// store DIR: ...").
  void make_store();
  /// The latest version of `name` (a path), or "" when no step wrote it.
  std::string latest(const std::string& name) const;
  /// The version before the latest, or "" (what an accumulating step started from).
  std::string previous(const std::string& name) const;
  /// Registers and returns the path of the next version of `name` (every rank, same order):
  /// STORE/NAME.vN.npy with N counting the versions of the whole run (a released name that is
  /// written again gets a new file name); drops a kept version of `name` (it is superseded).
  std::string next_version(const std::string& name);
  /// Whether a step that adds to the latest version of `name` and reads the tensors `operands`
  /// may update that version's file in place (DirectResult::Update::InPlace) instead of writing
  /// the next version: the store holds a version of `name` (not kept on the ranks), no operand is
  /// `name`, and nothing needs the values it holds now: no checkpoint (it names the version), no
  /// --verify (it checks a step against the version the step started from), no --keep (it leaves
  /// every version for inspection). The same on every rank.
  bool updates_in_place(const std::string& name, std::initializer_list<std::string_view> operands) const;
  /// The latest version of `name` mapped for writing (NpyPatch, with RunOptions::sync_results),
  /// mapped once per run and kept from one in-place update to the next, so that its pages stay
  /// mapped; end_step() and touched_mapped() drop its resident pages as they drop the inputs',
  /// release() closes it. Throws Error when `name` has no version in the store, or as NpyPatch.
  NpyPatch& patch_latest(const std::string& name);
  /// One-rank runs: keeps `data`, the elements of store version `path` that this process wrote
  /// whole from memory and then to the file (DirectResult, NpyWriter::Backing::Memory), so that
  /// read_npy() reads them there and take_in_memory() updates them without reading the file
  /// (no mapping, no page faults, no pread). Held while the versions so kept take at most
  /// mapped_drop_bytes() in all (else `data` goes back to its pool), until release() of the
  /// tensor, patch_latest() of the version (the file is then written through a mapping) or the
  /// end of the run. The data's address does not change while held.
  void hold_in_memory(const std::string& path, FileMemory data);
  /// The data held for `path` (hold_in_memory() or hold_unwritten()), no longer held; empty when
  /// none are. Data held unwritten are then the caller's only copy of the version's values: it
  /// holds them again (hold_unwritten()) or writes them.
  FileMemory take_in_memory(const std::string& path);
  /// Whether store versions may stay in memory, unwritten, until something needs their files
  /// (hold_unwritten()): one rank, and no checkpoint (it names the versions' files) and no --keep
  /// (it leaves them for inspection).
  bool defers_writes() const { return ctx_.size() == 1 && options_.checkpoint.empty() && !options_.keep; }
  /// With defers_writes(): keeps `data`, the elements of store version `path` of `tensor`, as its
  /// only up-to-date copy. Its file is not written (`new_version`: it has none yet; else it holds
  /// older values) until write_out() or export_outputs() needs it, and release() of the tensor
  /// drops them unwritten: a result that later steps read and then release costs no file at all
  /// (a pwrite of each result was 7% of tcec-ccsd's iteration, with the renames and opens of its
  /// file more). Held within the bound of hold_in_memory(); past it, written now. Throws Error
  /// as write_out().
  void hold_unwritten(const std::string& path, const TensorShape& tensor, FileMemory data, bool new_version);
  /// The data of store version `path` held unwritten (hold_unwritten()), or null.
  const FileMemory* unwritten(const std::string& path) const;
  /// Writes the data of store version `path` held unwritten to its file, which then holds them
  /// (they stay held, as by hold_in_memory()): into the file's data in place when it has one (so
  /// that its mappings see them), else into a new file (write_npy()). Nothing when none are held
  /// unwritten. Throws Error ("cannot write output …", "disk full: …").
  void write_out(const std::string& path);
  /// Forgets every version of `name` and deletes their files (the store's on rank 0, by a thread
  /// of its own that ~Run() waits for, or gives them to spare_files() for a next version of
  /// their size to be written in; a kept version's on every rank): an intermediate after its
  /// last use. With a checkpoint, the store's files are deleted after the next checkpoint, which
  /// no longer names them.
  /// Collective (ends with a barrier).
  void release(const std::string& name);

  // --- tensors kept on the ranks (the hand-off) ---
  /// Makes `tensor` the latest version of its name, kept on the ranks; an earlier kept
  /// version is dropped. Throws Error for a program output (outputs go to the store).
  void keep(KeptTensor tensor);
  /// The kept latest version of `name`, or nullptr when there is none (it is in the store).
  KeptTensor* kept(const std::string& name);
  /// Removes the kept version of `name` from the run and returns it (null when none): the
  /// caller reads it and then deletes its file (a flush).
  std::unique_ptr<KeptTensor> withdraw(const std::string& name);

  // --- a result held in memory across steps (resident accumulation, resident_spec.h) ---
  /// Holds this rank's block of `name` (possibly empty) from the first step of a resident
  /// accumulation to its last; no checkpoint is saved while a block is held (it is in no file).
  /// Throws Error when a block is already held.
  void hold_resident(const std::string& name, Buffer block);
  /// The held block of `name`; Error when the run holds none for it (the steps ran out of order).
  Buffer& resident(const std::string& name);
  /// Frees the held block (the last step wrote it).
  void drop_resident();

  // --- steps and checkpoints ---
  /// Runs one step of the program (a contraction or a copy: `step` is its generated function):
  /// steps are numbered 1, 2, … in call order. First saves the checkpoint of the steps before
  /// (save_checkpoint()); then, when the run resumed from a checkpoint (RunOptions::resume) that
  /// had completed this step, skips it, else runs it. Collective.
  void step(void (*step)(Run&));
  /// Steps completed before this run started (the checkpoint it resumed from; 0 otherwise).
  int resumed_steps() const { return resumed_steps_; }

  // --- checkpoints inside a step (--checkpoint-every; GaoGemm's K-pass boundaries) ---
  /// Whether the step running now may save checkpoints inside it: the run has a checkpoint and
  /// --checkpoint-every, and the checkpoint before this step was saved (so nothing was kept on
  /// the ranks when it began).
  bool checkpoints_within() const;
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
  /// partial C back into `c` (Checkpoint::restore_within()) and
  /// returns the loop-nest steps already run; else 0. Collective; Error on every rank when the
  /// checkpoint was made for a nest of another length or a snapshot has changed.
  std::uint64_t resume_within(std::uint64_t nest_steps, const PartialC& c);

  /// Numbers the contractions 1, 2, … (names their scratch files).
  int next_contraction() { return ++contractions_; }
  /// Called by GaoGemm when a contraction ends.
  void record(ContractionRecord record);
  /// Adds the measured redistribution (per rank: bytes read, bytes written, disk requests, wall
  /// seconds of stages 1 and 3) to the last record.
  void record_redistribution(std::vector<std::uint64_t> read, std::vector<std::uint64_t> write,
                             std::vector<std::uint64_t> requests, std::vector<double> seconds = {});
  void record_verify(const VerifyResult& result);

  /// The contractions recorded so far, oldest first, and the accumulated --verify result.
  const std::vector<ContractionRecord>& records() const { return records_; }
  const VerifyResult& verify_result() const { return verify_; }
  /// Whether steps gather their measured figures into records(): RunOptions::record_steps, or a
  /// trace or the summary (not quiet) needs them.
  bool keeps_records() const { return options_.record_steps || !options_.trace.empty() || !options_.quiet; }

  /// Ends the run: writes the latest version of every output with a location to it
  /// (export_outputs(), Phase::Export), writes the trace (rank 0; "resumed_steps" when it
  /// resumed) and prints the summary (rank 0, unless quiet); then removes the checkpoint, if
  /// any, unless keep (the run is complete, even when the verification failed). Collective. Throws Error on every rank when an output or the trace cannot
  /// be written, and "verification failed: …" when verify found an error above 1e-10 (after
  /// writing the outputs and the trace).
  void finish();

 private:
  /// The store's directory, removed with its files by rank 0 at destruction unless kept.
  struct StoreDirectory {
    std::string path;
    bool remove = false;
    bool made = true;  // false: named only (make_store())
    StoreDirectory() = default;
    StoreDirectory(const StoreDirectory&) = delete;
    StoreDirectory& operator=(const StoreDirectory&) = delete;
    ~StoreDirectory();
  };

  /// The growth of resident mapped pages since the last drop, over the process (touched_mapped()):
  /// input mappings outlive a run (read_npy()), and so do their pages.
  static ResidentGuard& mapped_guard();
  /// Removes the files of released versions on a thread of its own (one per process), so that a
  /// step does not wait while the file system frees their pages and blocks: unlinks took about
  /// 5% of tcec-ccsd's iteration on H2O/cc-pVDZ. The destructor waits for this run's removals.
  static IoWorker& remover();
  std::uint64_t last_removal_ = 0;          // the ticket of this run's last removal (0: none)
  void drop_kept(const std::string& name);  // forgets a kept version and deletes this rank's file
  FileTransfers gather_transfers(Phase phase) const;

  Context ctx_;
  RunOptions options_;
  TensorLocations tensors_;
  ProgramInfo info_;
  std::unique_ptr<Scratch> scratch_;
  StoreDirectory store_;
  std::map<std::string, std::shared_ptr<NpyReader>> inputs_;  // by path (closed before the store goes)
  std::map<std::string, std::unique_ptr<NpyPatch>> patches_;  // patch_latest(), by path (likewise)
  /// Data held for a store version (hold_in_memory(), hold_unwritten()).
  struct Held {
    FileMemory data;
    std::vector<std::uint64_t> shape;  // extents (elements)
    bool written = true;               // the file holds data; else they are the only copy
  };
  std::map<std::string, Held> held_;  // by path
  std::uint64_t held_bytes_ = 0;
  std::set<std::string> unfiled_;  // versions held unwritten that have no file yet
  void drop_mapped_pages();        // of inputs_, patches_ and the input mappings kept for the process
  std::map<std::string, std::vector<std::string>> versions_;       // by tensor name, oldest first
  std::map<std::string, std::vector<std::string>> step_versions_;  // versions_ when the running step began
  std::uint64_t versions_made_ = 0;                                // N of the last NAME.vN.npy
  std::unique_ptr<Checkpoint> checkpoint_;                         // with RunOptions::checkpoint
  int steps_ = 0, resumed_steps_ = 0, saved_steps_ = 0;            // step(): called, skipped; checkpointed
  Stopwatch since_save_;                                           // since the last checkpoint
  int within_saves_ = 0;                                           // save_within() calls (fault points)
  std::uint64_t resumed_at_ = 0, nest_steps_ = 0;                  // resume_within() of the step running now
  /// With a checkpoint: when steps have completed since the last save and no tensor is kept on
  /// the ranks or held in memory, saves the store's versions as they are now (after the releases that followed
  /// the last step: Checkpoint::save()). Called before each step and before the outputs are
  /// written. Collective.
  void save_checkpoint();
  std::map<std::string, std::unique_ptr<KeptTensor>> kept_;  // by tensor name: latest versions on the ranks
  std::string resident_name_;                                // hold_resident(): the tensor, "" when none
  Buffer resident_;                                          // and this rank's block of it
  std::vector<ContractionRecord> records_;
  VerifyResult verify_;
  bool verified_ = false;
  int contractions_ = 0;
};

}  // namespace tcert
