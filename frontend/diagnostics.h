// frontend/diagnostics.h — (private) ids of the messages in diagnostics.def
// and a Reporter that formats them at a source location.
#pragma once

#include <string>

#include <fmt/format.h>

#include "frontend/frontend.h"

namespace tcec::frontend {

enum class DiagId {
#define TCEC_DIAG(id, severity, text) id,
#include "frontend/diagnostics.def"
};

/// The id's name, severity and fmt format string, from diagnostics.def.
struct DiagInfo {
  const char* name;
  Severity severity;
  const char* text;
};
const DiagInfo& diag_info(DiagId id);

/// Formats diagnostics for one file into a DiagnosticList.
class Reporter {
 public:
  Reporter(DiagnosticList& list, std::string file) : list_(list), file_(std::move(file)) {}

  /// Reports `id` at `loc` with the values of its {} placeholders, in order.
  template <typename... Args>
  void report(DiagId id, ir::SourceLocation loc, const Args&... args) {
    const DiagInfo& info = diag_info(id);
    list_.add(
        Diagnostic{info.severity, info.name, file_, loc, fmt::vformat(info.text, fmt::make_format_args(args...))});
  }

  const std::string& file() const { return file_; }
  bool full() const { return list_.full(); }
  /// DiagnosticList::stopped(): nothing more will be reported.
  bool stopped() const { return list_.stopped(); }
  bool has_errors() const { return list_.has_errors(); }
  int error_count() const { return list_.error_count(); }

 private:
  DiagnosticList& list_;
  std::string file_;
};

}  // namespace tcec::frontend
