// tools/tcec/compare.h — `tcec compare TRACE.json`: measured against predicted volumes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trace.h"

namespace tcec::tools {

/// What `tcec compare` holds beyond the exact volumes (each off when nullopt).
struct CompareLimits {
  /// --resident-slack: every rank's peak resident memory (VmHWM, bytes) at most the program's
  /// tile memory per rank plus this many bytes.
  std::optional<std::uint64_t> resident_slack_bytes;
  /// --device: every rank's device bytes (what its process made the storage device read and
  /// write, compare_device.h) at most the predicted disk bytes plus this many bytes, per
  /// contraction's compute phase and over the run.
  std::optional<std::uint64_t> device_slack_bytes;
};

/// The report of `tcec compare` for `trace`, read from `path`: per contraction a table
/// with, per volume (disk read, disk write, sent, received; bytes), the predicted and
/// measured totals over ranks and maxima over ranks, and "equal" or the ranks that
/// differ with both numbers; the device bytes beside the predicted disk volumes when the trace
/// has them (compare_device.h); then the compute time and peak tile memory when present,
/// the verification line when present, the run's device bytes when present, and a last line
/// "all measured volumes equal the prediction" or "N mismatches" (N counts (contraction,
/// volume, rank) triples, and with limits.device_slack_bytes the (check, rank) pairs above
/// the device limit). With limits.resident_slack_bytes, the peak resident memory line also
/// holds every rank's peak to the program's tile memory per rank plus that many bytes and names
/// the ranks above it ("; limit L bytes (tile memory + S): within" or "ABOVE on rank 0 N bytes").
/// *failed is set when a volume differs, verification failed, or a rank is above a limit.
std::string compare_report(const Trace& trace, const std::string& path, bool* failed, const CompareLimits& limits = {});

/// The whole subcommand: reads `path` (errors on stderr as "tcec: error: ..."), prints the
/// report on stdout. Returns the exit status: 0 when everything matches (and is within the
/// limits given), else 1.
int run_compare(const std::string& path, const CompareLimits& limits = {});

}  // namespace tcec::tools
