// tools/tcec/compare.h — `tcec compare TRACE.json`: measured against predicted volumes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trace.h"

namespace tcec::tools {

/// The report of `tcec compare` for `trace`, read from `path`: per contraction a table
/// with, per volume (disk read, disk write, sent, received; bytes), the predicted and
/// measured totals over ranks and maxima over ranks, and "equal" or the ranks that
/// differ with both numbers; then the compute time and peak tile memory when present,
/// the verification line when present, and a last line "all measured volumes equal the
/// prediction" or "N mismatches" (N counts (contraction, volume, rank) triples). With
/// `resident_slack_bytes`, the peak resident memory line also holds every rank's peak
/// (VmHWM, bytes) to the program's tile memory per rank plus that many bytes and names the
/// ranks above it ("; limit L bytes (tile memory + S): within" or "ABOVE on rank 0 N bytes").
/// *failed is set when a volume differs, verification failed, or a rank is above the limit.
std::string compare_report(const Trace& trace, const std::string& path, bool* failed,
                           std::optional<std::uint64_t> resident_slack_bytes = std::nullopt);

/// The whole subcommand: reads `path` (errors on stderr as "tcec: error: ..."), prints the
/// report on stdout. Returns the exit status: 0 when everything matches (and the resident
/// memory is within its limit when one is given), else 1.
int run_compare(const std::string& path, std::optional<std::uint64_t> resident_slack_bytes = std::nullopt);

}  // namespace tcec::tools
