// tools/diagnostics.h — ids of tools/diagnostics.def and their catalogue entries, for the tools'
// "PROGRAM: error: MESSAGE" lines (the engine: diag/diag.h).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "diag/diag.h"

namespace tcec::tools {

enum class ToolDiag {
#define TCEC_DIAG(id, severity, text) id,
#include "tools/diagnostics.def"
};

/// The id's catalogue entry: name, severity and fmt format string.
inline const diag::Message& message(ToolDiag id) {
  static constexpr diag::Message kTable[] = {
#define TCEC_DIAG(id, severity, text) {#id, diag::Severity::severity, text},
#include "tools/diagnostics.def"
  };
  return kTable[static_cast<int>(id)];
}

/// The text of `id` with the values of its {} placeholders, in order.
template <typename... Args>
std::string message_text(ToolDiag id, const Args&... args) {
  return diag::format(message(id), args...);
}

/// "PROGRAM: error: MESSAGE\n" of `id` on stderr, e.g. report("tcec", ToolDiag::err_build_failed,
/// "out/matmul") prints "tcec: error: building out/matmul failed".
template <typename... Args>
void report(std::string_view program, ToolDiag id, const Args&... args) {
  diag::print(stderr, program, message(id), args...);
}

/// "PROGRAM: MESSAGE\n" of `id` on stderr, without a severity word: a tool's status and progress
/// lines, and tcec's internal-error line, e.g. report_plain("tcec", ToolDiag::note_no_errors,
/// "m.tce") prints "tcec: m.tce: no errors; pass --dry-run to see the analysis".
template <typename... Args>
void report_plain(std::string_view program, ToolDiag id, const Args&... args) {
  std::fputs(fmt::format("{}: {}\n", program, message_text(id, args...)).c_str(), stderr);
}

}  // namespace tcec::tools
