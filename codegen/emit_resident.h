// codegen/emit_resident.h — (private) the emitter of a resident accumulation step
// (costmodel/program/resident.h; runtime/spec/resident_spec.h): its ResidentSpec and the compute
// phase through tcert::ResidentGemm.
#pragma once

#include <string>

#include "codegen/emit.h"

namespace tcec::codegen {

/// The one-line plan text of a resident step on P ranks: "resident split=2 chunk=64 P=4", then
/// " first" and " last" for the group's first and last steps.
std::string resident_plan_text(const costmodel::ResidentStep& step, std::int64_t processors);
/// Sets spec.method to the step's ResidentSpec.
void fill_resident_spec(const costmodel::ResidentStep& step, std::int64_t processors, tcert::GemmSpec& spec);
/// The emitter (its fill_spec() is unused: fill_resident_spec() fills the spec from the step).
const MethodEmitter& resident_emitter();

}  // namespace tcec::codegen
