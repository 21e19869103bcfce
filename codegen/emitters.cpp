// codegen/emitters.cpp — the list of method emitters: each method's plan part (costmodel
// methods/plans.h) has an emitter_for() overload in its own files, included here.
#include "codegen/emit.h"
#include "codegen/emit_cosma.h"
#include "codegen/emit_gao.h"
#include "codegen/emit_sfc.h"
#include "codegen/emit_tbs.h"

namespace tcec::codegen {

const MethodEmitter& emitter_of(const costmodel::Plan& plan) {
  return std::visit([](const auto& part) -> const MethodEmitter& { return emitter_for(part); }, plan.method);
}

}  // namespace tcec::codegen
