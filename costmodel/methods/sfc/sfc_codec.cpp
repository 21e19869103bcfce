// costmodel/methods/sfc/sfc_codec.cpp — sfc's plan codec (plan_codec.h): its SfcPlan part, the
// plan text "sfc tiles=TIxTJ chunk=KC slots=S [c=C] P=… split=…", and validity.
#include <fmt/format.h>

#include "costmodel/methods/sfc/sfc_method.h"
#include "costmodel/plan_text.h"
#include "costmodel/reasons.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;

}  // namespace

bool SfcCodec::owns(const Plan& plan) const { return std::holds_alternative<SfcPlan>(plan.method); }

void SfcCodec::start_plan(Plan* plan) const { plan->method = SfcPlan{}; }

std::string SfcCodec::plan_text(const Plan& plan) const {
  const SfcPlan& s = sfc_plan(plan);
  return fmt::format("sfc tiles={}x{} chunk={} slots={}{} P={} split={}", s.tiles_I, s.tiles_J, s.chunk, s.slots,
                     s.layers > 1 ? fmt::format(" c={}", s.layers) : std::string(), plan.processors,
                     split_name(plan.split));
}

std::vector<std::string> SfcCodec::fields() const { return {"tiles", "chunk", "slots", "c"}; }

bool SfcCodec::parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const {
  SfcPlan& s = std::get<SfcPlan>(plan->method);
  if (key == "tiles") {
    const auto parts = split_text(value, 'x');
    if (parts.size() == 2 && parse_int(parts[0], &s.tiles_I) && parse_int(parts[1], &s.tiles_J) && s.tiles_I >= 1 &&
        s.tiles_J >= 1)
      return true;
    *error = fmt::format("expected tiles=TIxTJ with positive integers, got '{}'", value);
    return false;
  }
  i64* field = key == "chunk" ? &s.chunk : key == "slots" ? &s.slots : &s.layers;
  if (parse_int(value, field) && *field >= 1) return true;
  *error = fmt::format("{} must be a positive integer, got '{}'", key, value);
  return false;
}

bool SfcCodec::check_valid(const Plan& plan, const Machine& machine, std::string* reason) const {
  const SfcPlan& s = sfc_plan(plan);
  const i64 k = plan.K.extent();
  if (s.layers < 1 || s.layers > k || plan.processors % s.layers != 0) {
    if (reason) *reason = reason_text(ReasonId::sfc_layers, plan.processors, k, s.layers);
    return false;
  }
  const i64 kx = (k + s.layers - 1) / s.layers;  // the largest layer's share of K
  if (s.tiles_I > plan.I.extent() || s.tiles_J > plan.J.extent() || s.chunk > kx || s.slots < 2) {
    if (reason)
      *reason =
          reason_text(ReasonId::sfc_grid, plan.I.extent(), plan.J.extent(), kx, s.tiles_I, s.tiles_J, s.chunk, s.slots);
    return false;
  }
  return fits_memory_exact(plan, machine, reason);
}

}  // namespace tcec::costmodel
