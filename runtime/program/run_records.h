// runtime/program/run_records.h — RunRecords: what a run measured: one ContractionRecord per
// contraction, the --verify result, and at the end the trace (--trace FILE) and the summary.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/device_io.h"
#include "runtime/comm/comm.h"
#include "runtime/program/options.h"
#include "runtime/program/program_info.h"
#include "runtime/spec/volumes.h"

namespace tcert {

class StepCheckpoints;

/// The measured and predicted volumes of one contraction, one entry per rank (bytes, seconds).
struct ContractionRecord {
  std::string statement, plan, comm, algorithm, order;
  RankVolumes predicted;         ///< the compute stage's, per rank (GemmSpec::predicted)
  double predicted_seconds = 0;  ///< the model's time for the predicted bytes
  /// Redistribution (load from the tensor files, store the result): disk read, disk write and
  /// disk requests per rank (kStageVolumeFields; counters.h Volumes::disk_requests); predicted
  /// disk_requests is empty when the model does not predict them (a program generated before it
  /// did).
  RankVolumes redistribution_predicted, redistribution_measured;
  double redistribution_predicted_seconds = 0;
  std::vector<double> redistribution_seconds;  ///< per rank, wall time of stages 1 and 3 (measured)
  RankVolumes measured;                        ///< the same five, counted during the compute phase
  std::vector<double> seconds;                 ///< compute-phase wall time per rank
  /// Busy time per rank within the compute phase: disk transfers, MPI transfers, tile kernel.
  std::vector<double> disk_seconds, comm_seconds, kernel_seconds;
  std::vector<std::uint64_t> peak_tile_memory_bytes;  ///< per rank, the step's peak (load stage included)
  std::uint64_t planned_memory_bytes = 0;             ///< the plan's peak per rank (0: not given)
  /// Resumed inside the contraction (StepCheckpoints::resume_within()): the loop nest's first
  /// resumed_at of its nest_steps steps ran before the checkpoint, and `measured` counts the rest
  /// only (0: not resumed inside; the volumes are then the whole contraction's).
  std::uint64_t resumed_at = 0, nest_steps = 0;
};

/// Result of --verify for one output: samples checked on all ranks and the largest error.
struct VerifyResult {
  std::uint64_t checked = 0;
  double max_rel_error = 0;
};

/// The records of one run.
class RunRecords {
 public:
  /// The largest relative error --verify accepts.
  static constexpr double kVerifyTolerance = 1e-10;

  /// For a run on `ctx` of the program `info` with `options` (record_steps, trace, quiet),
  /// whose steps `checkpoints` counts (for a record's fault point and where it resumed).
  RunRecords(const Context& ctx, const RunOptions& options, const ProgramInfo& info,
             const StepCheckpoints& checkpoints);

  /// Numbers the contractions 1, 2, … (names their scratch files).
  int next_contraction() { return ++contractions_; }
  /// Whether steps gather their measured figures into contractions(): RunOptions::record_steps,
  /// or a trace or the summary (not quiet) needs them.
  bool keeps() const { return options_.record_steps || !options_.trace.empty() || !options_.quiet; }
  /// Adds the record of the contraction that ends now (the executors' compute phase), marked as
  /// resumed inside its loop nest when it was (StepCheckpoints::resumed_nest()). Fault point
  /// "compute:N" at step N.
  void record(ContractionRecord record);
  /// Adds the measured redistribution (per rank: bytes read, bytes written, disk requests, wall
  /// seconds of stages 1 and 3, and {sent, received} of the bytes that crossed nodes, kept where
  /// the record's prediction has them) to the last record. Throws Error("redistribution recorded
  /// before any contraction") when there is none.
  void record_redistribution(std::vector<std::uint64_t> read, std::vector<std::uint64_t> write,
                             std::vector<std::uint64_t> requests, std::vector<double> seconds = {},
                             std::array<std::vector<std::uint64_t>, 2> internode = {});
  /// Adds one output's --verify result: the samples add up, the largest error is kept.
  void record_verify(const VerifyResult& result);

  /// The contractions recorded so far, oldest first.
  const std::vector<ContractionRecord>& contractions() const { return records_; }
  /// The accumulated --verify result (zero when nothing was verified).
  const VerifyResult& verify_result() const { return verify_; }
  /// Whether the verification passed: nothing verified, or every error within kVerifyTolerance.
  bool passed() const { return !verified_ || verify_.max_rel_error <= kVerifyTolerance; }

  /// With --trace FILE: writes the trace JSON (rank 0, atomically): the program, its
  /// contractions, the file transfers of Phase::Import and Phase::Export, each rank's peak
  /// resident memory, the BLAS kernels, the verification and, when the run resumed after
  /// `resumed_steps` > 0 steps, "resumed_steps". Collective (gathers); Error on every rank when
  /// the file cannot be written.
  void write_trace(int resumed_steps) const;
  /// On rank 0 unless quiet: one line per contraction (its compute time and whether the measured
  /// bytes equal the prediction) and the verification's line, on stderr.
  void print_summary() const;
  /// Throws Error("verification failed: max relative error … is above the tolerance 1e-10")
  /// unless passed().
  void check_passed() const;

 private:
  const Context& ctx_;
  const RunOptions& options_;
  const ProgramInfo& info_;
  const StepCheckpoints& checkpoints_;
  std::vector<ContractionRecord> records_;
  /// This rank's device bytes (device_io.h) of each record: its compute phase (the section
  /// compute_phase() closed last), and Phase::Redistribute since the previous record's
  /// record_redistribution(). Gathered into the trace by write_trace(); empty unless counted.
  struct RecordDevice {
    DeviceBytes compute, redistribution;
  };
  std::vector<RecordDevice> record_device_;
  DeviceBytes redistribution_device_mark_;    // counters().device(Redistribute) at the last record_redistribution()
  nlohmann::json gather_device_json() const;  // collective: the trace's device figures, or null
  VerifyResult verify_;
  bool verified_ = false;
  int contractions_ = 0;
};

}  // namespace tcert
