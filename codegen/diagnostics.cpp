// codegen/diagnostics.cpp — the message table of codegen/diagnostics.def.
#include "codegen/diagnostics.h"

namespace tcec::codegen {

namespace {

constexpr bool Error = false;
constexpr bool Note = true;

constexpr DiagInfo kDiagTable[] = {
#define TCEC_CODEGEN_DIAG(id, kind, text) {#id, kind, text},
#include "codegen/diagnostics.def"
};

}  // namespace

const DiagInfo& diag_info(DiagId id) { return kDiagTable[static_cast<int>(id)]; }

}  // namespace tcec::codegen
