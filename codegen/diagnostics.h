// codegen/diagnostics.h — (private) ids of codegen/diagnostics.def and their formatting.
#pragma once

#include <fmt/format.h>

#include "codegen/codegen.h"

namespace tcec::codegen {

enum class DiagId {
#define TCEC_CODEGEN_DIAG(id, kind, text) id,
#include "codegen/diagnostics.def"
};

/// The id's name, whether it is a note, and its fmt format string.
struct DiagInfo {
  const char* name;
  bool note;
  const char* text;
};
const DiagInfo& diag_info(DiagId id);

/// The diagnostic `id` at `loc` with the values of its {} placeholders, in order.
template <typename... Args>
Diagnostic make_diagnostic(DiagId id, ir::SourceLocation loc, const Args&... args) {
  const DiagInfo& info = diag_info(id);
  return {info.note, info.name, loc, fmt::vformat(info.text, fmt::make_format_args(args...))};
}

}  // namespace tcec::codegen
