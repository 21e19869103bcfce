// costmodel/program_plan.h — (private) what make_plan() (costmodel.h ProgramPlan) computes once
// for a whole program and the reports then only render: every two-operand statement's analysis
// (analysis.h: its candidates with their integer plans, and the choice), the resident
// accumulation groups (program/resident.h) and the sequence hand-off (program/sequence.h).
#pragma once

#include <optional>
#include <vector>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/program/resident.h"
#include "costmodel/program/sequence.h"

namespace tcec::costmodel {

struct ProgramAnalysis {
  /// analyze() of statement i through the store; nullopt for a copy step (one operand).
  std::vector<std::optional<ContractionAnalysis>> analyses;
  std::vector<ResidentGroup> resident;  ///< plan_resident() over `analyses`, in program order
  /// plan_handoff() over `analyses`: `used` when the program runs it (options.handoff and no
  /// chosen resident group), `resident` when a chosen group keeps it from running.
  HandoffSequence handoff;
};

}  // namespace tcec::costmodel
