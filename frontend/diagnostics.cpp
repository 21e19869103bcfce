// frontend/diagnostics.cpp — the message table of frontend/diagnostics.def.
#include "frontend/diagnostics.h"

namespace tcec::frontend {

namespace {

constexpr DiagInfo kDiagTable[] = {
#define TCEC_DIAG(id, severity, text) {#id, Severity::severity, text},
#include "frontend/diagnostics.def"
};

}  // namespace

const DiagInfo& diag_info(DiagId id) { return kDiagTable[static_cast<int>(id)]; }

}  // namespace tcec::frontend
