// costmodel/methods/registry.cpp — the list of methods the cost model plans with, in the order
// the report shows them, the look-ups of a method and its parts, and what every MethodModel
// shares by default. A new method adds one line here (and its plan part to methods/plans.h).
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "costmodel/method.h"
#include "costmodel/method_model.h"
#include "costmodel/methods/cosma/cosma_method.h"
#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/sfc/sfc_method.h"
#include "costmodel/methods/tbs/tbs_method.h"
#include "costmodel/plan_codec.h"

namespace tcec::costmodel {

const std::vector<const Method*>& methods() {
  static const std::vector<const Method*> kAll = [] {
    std::vector<const Method*> all = gao_methods();  // Gao et al.'s six, seed 003
    all.push_back(&cosma_method());                  // Kwasniewski et al., seed 000
    all.push_back(&tbs_method());                    // Beaumont et al., seed 001 (symmetric results)
    all.push_back(&sfc_method());                    // Georganas et al., seed 002
    return all;
  }();
  return kAll;
}

const Method* find_method(std::string_view name) {
  for (const Method* m : methods())
    if (m->name == name) return m;
  return nullptr;
}

const Method& method_of(const Plan& plan) {
  for (const Method* m : methods())
    if (m->codec.owns(plan)) return *m;
  throw std::logic_error("costmodel: a plan whose method is not in the registry");
}

const MethodModel& model_of(const Plan& plan) { return method_of(plan).model; }

const PlanCodec& codec_of(const Plan& plan) { return method_of(plan).codec; }

const MethodReport& report_of(const Plan& plan) { return method_of(plan).report; }

std::string method_names() {
  std::vector<std::string> names;
  for (const Method* m : methods()) names.push_back(m->name);
  const std::string last = names.back();
  names.pop_back();
  return fmt::format("{} or {}", fmt::join(names, ", "), last);
}

std::vector<std::uint64_t> MethodModel::stage_requests(const Plan& plan, const StageAccess&) const {
  return std::vector<std::uint64_t>(static_cast<std::size_t>(plan.processors), 0);
}

bool writes_result_directly(const Plan& plan, const DeclaredLayouts* declared) {
  if (declared && (declared->C || declared->C_in || declared->C_stays)) return false;
  return model_of(plan).writes_result_directly(plan);
}

TensorLayout MethodModel::layout(const Plan& plan, GemmArray, const std::vector<std::string>&) const {
  throw std::logic_error(fmt::format("costmodel: {} has no rank layout", method_of(plan).name));
}

}  // namespace tcec::costmodel
