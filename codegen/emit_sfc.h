// codegen/emit_sfc.h — (private) the emitter of sfc plans (emit_sfc.cpp): C's tiles along the
// generalized Hilbert curve in the GemmSpec, run by tcert::SfcGemm.
#pragma once

#include "codegen/emit.h"

namespace tcec::codegen {

/// The emitter of an sfc plan part (emitters.cpp).
const MethodEmitter& emitter_for(const costmodel::SfcPlan& part);

}  // namespace tcec::codegen
