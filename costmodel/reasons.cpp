// costmodel/reasons.cpp — the message table of costmodel/reasons.def.
#include "costmodel/reasons.h"

namespace tcec::costmodel {

namespace {

constexpr diag::Message kReasonTable[] = {
#define TCEC_DIAG(id, severity, text) {#id, diag::Severity::severity, text},
#include "costmodel/reasons.def"
};

}  // namespace

const diag::Message& reason_message(ReasonId id) { return kReasonTable[static_cast<int>(id)]; }

}  // namespace tcec::costmodel
