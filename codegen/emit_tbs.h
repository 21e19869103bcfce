// codegen/emit_tbs.h — (private) the emitter of tbs plans (emit_tbs.cpp): the triangle blocks
// of Beaumont et al.'s TBS in the GemmSpec, run by tcert::TbsGemm.
#pragma once

#include "codegen/emit.h"

namespace tcec::codegen {

/// The emitter of a tbs plan part (emitters.cpp).
const MethodEmitter& emitter_for(const costmodel::TbsPlan& part);

}  // namespace tcec::codegen
