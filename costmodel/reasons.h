// costmodel/reasons.h — (private) ids of costmodel/reasons.def and the reason text of one
// (the engine: diag/diag.h).
#pragma once

#include <string>

#include "diag/diag.h"

namespace tcec::costmodel {

enum class ReasonId {
#define TCEC_DIAG(id, severity, text) id,
#include "costmodel/reasons.def"
};

/// The id's catalogue entry: name, severity and fmt format string.
const diag::Message& reason_message(ReasonId id);

/// The reason `id` with the values of its {} placeholders, in order, e.g.
/// reason_text(ReasonId::p_not_square, 6) is "P = 6 is not a perfect square".
template <typename... Args>
std::string reason_text(ReasonId id, const Args&... args) {
  return diag::format(reason_message(id), args...);
}

}  // namespace tcec::costmodel
