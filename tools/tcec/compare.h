// tools/tcec/compare.h — `tcec compare TRACE.json`: measured against predicted volumes.
#pragma once

#include <string>

#include "trace.h"

namespace tcec::tools {

/// The report of `tcec compare` for `trace`, read from `path`: per contraction a table
/// with, per volume (disk read, disk write, sent, received; bytes), the predicted and
/// measured totals over ranks and maxima over ranks, and "equal" or the ranks that
/// differ with both numbers; then the compute time and peak tile memory when present,
/// the verification line when present, and a last line "all measured volumes equal the
/// prediction" or "N mismatches" (N counts (contraction, volume, rank) triples).
/// *failed is set when a volume differs or verification failed.
std::string compare_report(const Trace& trace, const std::string& path, bool* failed);

/// The whole subcommand: reads `path` (errors on stderr as "tcec: error: ..."), prints the
/// report on stdout. Returns the exit status: 0 when everything matches, else 1.
int run_compare(const std::string& path);

}  // namespace tcec::tools
