// codegen/emit_cosma.h — (private) the emitter of cosma plans (emit_cosma.cpp): tcert::CosmaGemm
// and the rounds of COSMA's Algorithm 1.
#pragma once

#include "codegen/emit.h"

namespace tcec::codegen {

/// The emitter of a cosma plan part (emitters.cpp).
const MethodEmitter& emitter_for(const costmodel::CosmaGrid& part);

}  // namespace tcec::codegen
