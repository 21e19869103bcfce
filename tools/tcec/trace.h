// tools/tcec/trace.h — the trace a generated program writes (--trace FILE), as `tcec compare`
// reads it. Schema (runtime/program/run_records.h ContractionRecord, VerifyResult):
//   {"program": NAME, "processors": P,
//    "contractions": [{"statement", "plan", "comm", "algorithm", "order",
//                      "predicted": {"disk_read_bytes": [P], "disk_write_bytes": [P],
//                                    "comm_sent_bytes": [P], "comm_recv_bytes": [P],
//                                    "disk_requests": [P] (optional)},
//                      "measured": {the same five, "seconds": [P],
//                                   "device_read_bytes": [P], "device_write_bytes": [P] (optional)},
//                      "peak_tile_memory_bytes": [P], "planned_memory_bytes": N,
//                      "redistribution": {"predicted": {"disk_read_bytes", "disk_write_bytes", "seconds",
//                                                       "disk_requests" (optional)},
//                                         "measured": {"disk_read_bytes", "disk_write_bytes",
//                                                      "disk_requests" (optional), "seconds": [P],
//                                                      "device_read_bytes", "device_write_bytes" (optional)}}}],
//    "verify": {"checked", "max_rel_error", "passed"},     (verify optional)
//    "device": {"read_bytes": [P], "write_bytes": [P], "cancelled_write_bytes": [P],
//               "phases": {PHASE: {"read_bytes": [P], "write_bytes": [P]}}}}  (optional)
// Volumes in bytes, one entry per rank; seconds per rank. The device figures (runtime/base/
// device_io.h) are what the process made the storage device read and write (/proc/self/io):
// per contraction over its compute phase and, in "redistribution", over Phase::Redistribute
// since the previous contraction's; "device" over the whole run and per phase (load,
// redistribute, compute, write-out, import, export).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/spec/volumes.h"

namespace tcec::tools {

struct TraceContraction {
  std::string statement, plan, comm, algorithm, order;
  /// Per rank (runtime/spec/volumes.h kVolumeFields); disk requests empty in traces without them.
  tcert::RankVolumes predicted, measured;
  std::vector<double> seconds;  ///< per rank; empty when absent
  /// Busy seconds per rank in disk transfers, MPI transfers and the tile kernel; empty when absent.
  std::vector<double> disk_seconds, comm_seconds, kernel_seconds;
  double predicted_seconds = -1;  ///< the model's time; < 0 when absent
  /// Redistribution (stages 1 and 3): disk read, disk write, disk requests per rank
  /// (kStageVolumeFields); empty when absent (requests: an older trace, whose program did not
  /// predict those of the hand-off).
  tcert::RankVolumes redistribution_predicted, redistribution_measured;
  double redistribution_predicted_seconds = -1;       ///< stages 1 and 3; < 0 when absent
  std::vector<double> redistribution_seconds;         ///< measured per rank; empty when absent
  std::vector<std::uint64_t> peak_tile_memory_bytes;  ///< per rank; empty when absent
  std::uint64_t planned_memory_bytes = 0;             ///< the plan's peak per rank; 0 when absent
  /// Device bytes read and written (in that order) per rank over the compute phase and over
  /// stages 1 and 3; empty when absent.
  std::array<std::vector<std::uint64_t>, 2> device, redistribution_device;
  /// Resumed inside the contraction: its loop nest's first resumed_at of nest_steps steps ran
  /// before the checkpoint, so `measured` (compute stage) counts the rest only; 0 otherwise.
  std::uint64_t resumed_at = 0, nest_steps = 0;
};

struct TraceVerify {
  std::uint64_t checked = 0;
  double max_rel_error = 0;
  bool passed = false;
};

/// One phase of a run's file transfers outside the contractions (the trace's "files"): HDF5
/// inputs imported into the store, outputs exported from it. Per rank.
struct TraceTransfers {
  std::vector<std::uint64_t> read_bytes, write_bytes;
  std::vector<double> seconds;
};

/// The run's device bytes per rank (the trace's "device"): read, write, cancelled write over the
/// whole run, and read and write (in that order) per phase by its name ("load", "compute", ...).
struct TraceDevice {
  std::vector<std::uint64_t> read_bytes, write_bytes, cancelled_write_bytes;
  std::map<std::string, std::array<std::vector<std::uint64_t>, 2>> phases;
};

struct Trace {
  std::string program;
  std::int64_t processors = 0;
  std::vector<TraceContraction> contractions;
  std::optional<TraceVerify> verify;
  std::uint64_t memory_bytes = 0;                    ///< the machine's tile memory per rank (0: not given)
  std::vector<std::uint64_t> peak_resident_bytes;    ///< per rank (empty in older traces)
  std::optional<TraceTransfers> imported, exported;  ///< absent in older traces
  std::optional<TraceDevice> device;                 ///< absent in older traces and untraced device bytes
};

/// Reads and checks the trace at `path`. On failure returns nullopt with *error, e.g.
/// "cannot read 'run/trace.json': No such file or directory" or
/// "'t.json': contractions[0].measured.comm_sent_bytes: expected 4 non-negative integers (one per rank)".
std::optional<Trace> read_trace(const std::string& path, std::string* error);

}  // namespace tcec::tools
