// frontend/diagnostics.h — (private) ids of the messages in diagnostics.def
// and a Reporter that formats them at a source location (the engine: diag/diag.h).
#pragma once

#include <string>

#include "diag/diag.h"
#include "frontend/frontend.h"

namespace tcec::frontend {

enum class DiagId {
#define TCEC_DIAG(id, severity, text) id,
#include "frontend/diagnostics.def"
};

/// The id's catalogue entry: name, severity and fmt format string, from diagnostics.def.
using DiagInfo = diag::Message;
const DiagInfo& diag_info(DiagId id);

/// Formats the frontend's diagnostics for one file into a DiagnosticList.
class Reporter : public diag::Reporter {
 public:
  using diag::Reporter::Reporter;

  /// Reports `id` at `loc` with the values of its {} placeholders, in order.
  template <typename... Args>
  void report(DiagId id, ir::SourceLocation loc, const Args&... args) {
    diag::Reporter::report(diag_info(id), loc, args...);
  }
};

}  // namespace tcec::frontend
