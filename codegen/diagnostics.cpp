// codegen/diagnostics.cpp — the message table of codegen/diagnostics.def.
#include "codegen/diagnostics.h"

namespace tcec::codegen {

namespace {

constexpr diag::Message kDiagTable[] = {
#define TCEC_DIAG(id, severity, text) {#id, diag::Severity::severity, text},
#include "codegen/diagnostics.def"
};

}  // namespace

const diag::Message& diag_info(DiagId id) { return kDiagTable[static_cast<int>(id)]; }

}  // namespace tcec::codegen
