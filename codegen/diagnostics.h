// codegen/diagnostics.h — (private) ids of codegen/diagnostics.def and their formatting
// (the engine: diag/diag.h).
#pragma once

#include "codegen/codegen.h"
#include "diag/diag.h"

namespace tcec::codegen {

enum class DiagId {
#define TCEC_DIAG(id, severity, text) id,
#include "codegen/diagnostics.def"
};

/// The id's catalogue entry: name, severity and fmt format string.
const diag::Message& diag_info(DiagId id);

/// The diagnostic `id` in `program`'s file at `loc` with the values of its {} placeholders,
/// in order.
template <typename... Args>
Diagnostic make_diagnostic(const ir::Program& program, DiagId id, ir::SourceLocation loc, const Args&... args) {
  return diag::make(diag_info(id), program.file, loc, args...);
}

}  // namespace tcec::codegen
