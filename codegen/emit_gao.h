// codegen/emit_gao.h — (private) the emitter of the six Gao methods' plans (emit_gao.cpp):
// tcert::GaoGemm and the loop nest of the disk placement order (emit_nest.cpp).
#pragma once

#include "codegen/emit.h"

namespace tcec::codegen {

/// The emitter of a Gao plan part (emitters.cpp).
const MethodEmitter& emitter_for(const costmodel::GaoPlan& part);

}  // namespace tcec::codegen
