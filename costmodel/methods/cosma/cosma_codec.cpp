// costmodel/methods/cosma/cosma_codec.cpp — COSMA's plan codec (plan_codec.h): its CosmaGrid
// part, the plan text "cosma grid=PMxPNxPK rounds=R P=… split=…", and validity.
#include <fmt/format.h>

#include "costmodel/methods/cosma/cosma_method.h"
#include "costmodel/plan_text.h"
#include "costmodel/reasons.h"
#include "runtime/spec/cosma_spec.h"

namespace tcec::costmodel {

namespace {

/// Cosma's grid and rounds (plan.h check_valid()); memory is checked by the caller.
bool check_cosma(const Plan& plan, std::string* reason) {
  const CosmaGrid& g = cosma_grid(plan);
  const std::int64_t extents[] = {plan.I.extent(), plan.J.extent(), plan.K.extent()};
  const std::int64_t parts[] = {g.pm, g.pn, g.pk};
  const char* names[] = {"pm", "pn", "pk"};
  for (int i = 0; i < 3; ++i) {
    if (parts[i] >= 1 && parts[i] <= extents[i]) continue;
    if (reason)
      *reason =
          reason_text(ReasonId::cosma_grid_extent, names[i], parts[i], "IJK"[i], extents[i], names[i], extents[i]);
    return false;
  }
  if (g.used() > plan.processors) {
    if (reason) *reason = reason_text(ReasonId::cosma_grid_ranks, g.pm, g.pn, g.pk, g.used(), plan.processors);
    return false;
  }
  const std::int64_t fewest_k = extents[2] / g.pk;  // the fewest K columns a rank of the grid holds
  if (g.rounds < 1 || g.rounds > fewest_k) {
    if (reason) *reason = reason_text(ReasonId::cosma_rounds, g.rounds, fewest_k);
    return false;
  }
  if (g.rounds > tcert::kMaxCosmaRounds) {
    if (reason) *reason = reason_text(ReasonId::cosma_too_many_rounds, g.rounds, tcert::kMaxCosmaRounds);
    return false;
  }
  return true;
}

// "2x1x3" into the cosma grid.
bool parse_grid(std::string_view text, CosmaGrid* g, std::string* error) {
  auto parts = split_text(text, 'x');
  if (parts.size() == 3 && parse_int(parts[0], &g->pm) && parse_int(parts[1], &g->pn) && parse_int(parts[2], &g->pk) &&
      g->pm >= 1 && g->pn >= 1 && g->pk >= 1)
    return true;
  *error = fmt::format("expected grid=PMxPNxPK with positive integers, got '{}'", text);
  return false;
}

}  // namespace

bool CosmaCodec::owns(const Plan& plan) const { return std::holds_alternative<CosmaGrid>(plan.method); }

void CosmaCodec::start_plan(Plan* plan) const { plan->method = CosmaGrid{}; }

std::string CosmaCodec::plan_text(const Plan& plan) const {
  const CosmaGrid& g = cosma_grid(plan);
  return fmt::format("cosma grid={}x{}x{} rounds={} P={} split={}", g.pm, g.pn, g.pk, g.rounds, plan.processors,
                     split_name(plan.split));
}

std::vector<std::string> CosmaCodec::fields() const { return {"grid", "rounds"}; }

bool CosmaCodec::parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const {
  CosmaGrid& g = std::get<CosmaGrid>(plan->method);
  if (key == "grid") return parse_grid(value, &g, error);
  if (parse_int(value, &g.rounds) && g.rounds >= 1) return true;  // rounds
  *error = fmt::format("rounds must be a positive integer, got '{}'", value);
  return false;
}

bool CosmaCodec::check_valid(const Plan& plan, const Machine& machine, std::string* reason) const {
  return check_cosma(plan, reason) && fits_memory_exact(plan, machine, reason);
}

}  // namespace tcec::costmodel
