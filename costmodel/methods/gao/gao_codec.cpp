// costmodel/methods/gao/gao_codec.cpp — the six methods of Gao et al.'s plan codecs
// (plan_codec.h): their GaoPlan part, the plan text's order, bcast, tile counts I/J/K, dist and
// overlap fields, and validity (gao_plan.cpp gao_check_valid()).
#include <fmt/format.h>

#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/gao/gao_method.h"
#include "costmodel/plan_text.h"

namespace tcec::costmodel {

namespace {

// "a:2x1,b:1x3" (or "-") against the expected group; fills the tile counts.
bool parse_group(std::string_view name, std::string_view text, GroupTiling* group, std::string* error) {
  if (text == "-") text = {};
  auto items = text.empty() ? std::vector<std::string_view>{} : split_text(text, ',');
  if (items.size() != group->indices.size()) {
    *error = fmt::format("{} has {} indices in the plan but {} in the contraction", name, items.size(),
                         group->indices.size());
    return false;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    IndexTiles& x = group->indices[i];
    auto colon = items[i].find(':');
    auto cross = items[i].find('x', colon == std::string_view::npos ? 0 : colon);
    if (colon == std::string_view::npos || cross == std::string_view::npos || items[i].substr(0, colon) != x.name ||
        !parse_int(items[i].substr(colon + 1, cross - colon - 1), &x.t1) ||
        !parse_int(items[i].substr(cross + 1), &x.t2)) {
      *error = fmt::format("expected '{}:T1xT2' as index {} of {}, got '{}'", x.name, i + 1, name, items[i]);
      return false;
    }
  }
  return true;
}

bool parse_dist(std::string_view name, std::string_view text, GroupTiling* group, std::string* error) {
  group->dist = -1;
  if (text == "-") return true;
  for (std::size_t i = 0; i < group->indices.size(); ++i)
    if (group->indices[i].name == text) {
      group->dist = static_cast<int>(i);
      return true;
    }
  *error = fmt::format("distribution index '{}' is not in {}", text, name);
  return false;
}

}  // namespace

bool GaoCodec::owns(const Plan& plan) const {
  const GaoPlan* g = std::get_if<GaoPlan>(&plan.method);
  return g && g->comm == comm_ && g->algorithm == algorithm_;
}

void GaoCodec::start_plan(Plan* plan) const { plan->method = GaoPlan{comm_, algorithm_}; }

std::string GaoCodec::plan_text(const Plan& plan) const { return gao_plan_text(plan); }

std::vector<std::string> GaoCodec::fields() const { return {"order", "bcast", "I", "J", "K", "dist", "overlap"}; }

bool GaoCodec::parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const {
  GaoPlan& g = gao(*plan);
  if (key == "order") {
    if (const std::optional<PlacementOrder> order = tcert::parse_order(value)) {
      g.order = *order;
      return true;
    }
    *error = fmt::format("unknown order '{}' (expected ABC, ACB, BAC, BCA, CAB or CBA)", value);
    return false;
  }
  if (const std::optional<Operand> bcast = tcert::parse_operand(value); key == "bcast" && bcast) {
    g.replicated = *bcast;
    return true;
  }
  if (key == "overlap" && (value == "yes" || value == "no")) {
    g.overlap = value == "yes";
    return true;
  }
  if (key == "I") return parse_group("I", value, &plan->I, error);
  if (key == "J") return parse_group("J", value, &plan->J, error);
  if (key == "K") return parse_group("K", value, &plan->K, error);
  if (key == "dist") {
    auto d = split_text(value, ',');
    if (d.size() == 3)
      return parse_dist("I", d[0], &plan->I, error) && parse_dist("J", d[1], &plan->J, error) &&
             parse_dist("K", d[2], &plan->K, error);
    *error = fmt::format("dist needs three entries (I,J,K), got '{}'", value);
    return false;
  }
  *error = fmt::format("unknown plan field '{}={}'", key, value);
  return false;
}

bool GaoCodec::check_valid(const Plan& plan, const Machine& machine, std::string* reason) const {
  return gao_check_valid(plan, machine, reason);
}

}  // namespace tcec::costmodel
