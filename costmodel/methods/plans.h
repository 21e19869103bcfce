// costmodel/methods/plans.h — (private) the list of methods' plan parts: Plan::method holds
// one of these. A new method adds its part here, and its Method to methods/registry.cpp.
#pragma once

#include <variant>

#include "costmodel/methods/cosma/cosma_plan.h"
#include "costmodel/methods/gao/gao_plan.h"
#include "costmodel/methods/sfc/sfc_plan.h"
#include "costmodel/methods/tbs/tbs_plan.h"

namespace tcec::costmodel {

/// The method-specific part of a Plan (plan.h), one alternative per method family; each has
/// operator== and is printed and parsed by its Method (method.h).
using MethodPlan = std::variant<GaoPlan, CosmaGrid, TbsPlan, SfcPlan>;

}  // namespace tcec::costmodel
