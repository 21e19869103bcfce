// tools/tcec/compare_device.h — `tcec compare`: the device bytes of a trace (what the processes
// made the storage device read and write, /proc/self/io) beside the predicted disk volumes, and
// with --device held against them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trace.h"

namespace tcec::tools {

/// Appends `c`'s device lines when the trace has them (else nothing), e.g.
///   "  device read (compute): 700 total, 400 max; predicted disk read 600 total, 300 max: within (+16777216 per rank)"
///   "  device write (compute): ..."
///   "  redistribution device read: ...: not checked (a flush of a kept result lands in a later step)"
/// With `slack_bytes`, each rank's compute-phase device read must be at most its predicted disk
/// read plus slack_bytes (likewise writes); the ranks above are listed under the line ("rank 1:
/// predicted 300 + slack 16777216, device 99999999") and counted in the result. Without,
/// nothing is checked ("not checked (--device)"). Contractions resumed inside are not checked.
int device_lines(std::string& out, const TraceContraction& c, std::optional<std::uint64_t> slack_bytes);

/// Appends the run's device line when the trace has one (trace.device), over every phase but
/// write-out (--verify's reads and copy steps, which no contraction predicts): per rank, the
/// device bytes against the predicted disk bytes of every contraction (compute stage, stages 1
/// and 3) plus the bytes the run's import and export moved; checked with `slack_bytes` as
/// device_lines(). Returns the ranks above (read and write counted apart).
int device_run_line(std::string& out, const Trace& trace, std::optional<std::uint64_t> slack_bytes);

}  // namespace tcec::tools
