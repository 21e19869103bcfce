// tests/fuzz/fuzz_check.h — what every fuzz target (tests/fuzz/*_fuzz.cpp) requires of a front
// end's answer to an arbitrary input. A broken requirement prints why and aborts, which libFuzzer
// reports as a crash (and saves the input).
#pragma once

#include <string>

#include "frontend/frontend.h"

namespace tcec::fuzz {

/// The name every fuzz target gives its input in diagnostics.
inline constexpr const char* kFile = "fuzz.in";

/// The first requirement `diagnostics`, from parsing `source` (named `file`), breaks, as a sentence
/// naming the diagnostic, or "" when it breaks none: every diagnostic is in `file` at a line and
/// column inside `source` (line 1 to the number of lines, column 1 to one past the end of that
/// line; fatal_too_many_errors, which follows the kMaxErrors located errors, has none), and
/// render() works. `accepted`: the front end returned a result; otherwise there must be at least
/// one error, and an accepted input must have none. Also used by frontend.FuzzRegressions.
std::string diagnostics_problem(const frontend::DiagnosticList& diagnostics, const std::string& file,
                                const std::string& source, bool accepted);

/// diagnostics_problem(); a broken requirement prints it with the diagnostics and aborts.
void check_diagnostics(const frontend::DiagnosticList& diagnostics, const std::string& file, const std::string& source,
                       bool accepted);

/// check_diagnostics() of a parse_source() result for `source` named kFile, and for an accepted program the IR's own
/// invariants: every statement formats, and every two-operand statement has its macro-index GEMM
/// view (ir::macro_index_gemm asserts what the frontend promises).
void check_result(const frontend::Result& result, const std::string& source);

}  // namespace tcec::fuzz
