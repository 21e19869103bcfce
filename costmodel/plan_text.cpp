// costmodel/plan_text.cpp — parse_plan(): the one-line text form of a Plan back into a Plan.
#include <charconv>

#include <fmt/format.h>

#include "costmodel/plan.h"

namespace tcec::costmodel {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    auto p = s.find(sep);
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) return out;
    s.remove_prefix(p + 1);
  }
}

bool parse_int(std::string_view s, std::int64_t* v) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool parse_method(std::string_view s, Plan* plan) {
  if (s == "cosma") {
    plan->comm = CommMethod::Inside;
    plan->algorithm = Algorithm::Cosma;
    return true;
  }
  for (CommMethod c : {CommMethod::Inside, CommMethod::Outside})
    for (Algorithm a : {Algorithm::Rotation, Algorithm::Replication, Algorithm::Accumulation})
      if (s == method_name(c, a)) {
        plan->comm = c;
        plan->algorithm = a;
        return true;
      }
  return false;
}

// "a:2x1,b:1x3" (or "-") against the expected group; fills the tile counts.
bool parse_group(std::string_view name, std::string_view text, GroupTiling* group, std::string* error) {
  if (text == "-") text = {};
  auto items = text.empty() ? std::vector<std::string_view>{} : split(text, ',');
  if (items.size() != group->indices.size()) {
    *error = fmt::format("{} has {} indices in the plan but {} in the contraction", name, items.size(),
                         group->indices.size());
    return false;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    IndexTiles& x = group->indices[i];
    auto colon = items[i].find(':');
    auto cross = items[i].find('x', colon == std::string_view::npos ? 0 : colon);
    if (colon == std::string_view::npos || cross == std::string_view::npos ||
        items[i].substr(0, colon) != x.name ||
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

// "2x1x3" into the cosma grid.
bool parse_grid(std::string_view text, CosmaGrid* g, std::string* error) {
  auto parts = split(text, 'x');
  if (parts.size() == 3 && parse_int(parts[0], &g->pm) && parse_int(parts[1], &g->pn) &&
      parse_int(parts[2], &g->pk) && g->pm >= 1 && g->pn >= 1 && g->pk >= 1)
    return true;
  *error = fmt::format("expected grid=PMxPNxPK with positive integers, got '{}'", text);
  return false;
}

/// Fields only a cosma plan has (grid, rounds) or only the other methods have.
bool field_allowed(std::string_view key, const Plan& plan, std::string* error) {
  const bool cosma = plan.algorithm == Algorithm::Cosma;
  const bool cosma_field = key == "grid" || key == "rounds";
  const bool gao_field = key == "order" || key == "bcast" || key == "I" || key == "J" || key == "K" || key == "dist";
  if (cosma ? !gao_field : !cosma_field) return true;
  *error = cosma ? fmt::format("a cosma plan has no field '{}' (it has grid, rounds, P and split)", key)
                 : fmt::format("'{}' is a field of cosma plans only", key);
  return false;
}

bool apply_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) {
  if (!field_allowed(key, *plan, error)) return false;
  if (key == "grid") return parse_grid(value, &plan->cosma, error);
  if (key == "rounds") {
    if (parse_int(value, &plan->cosma.rounds) && plan->cosma.rounds >= 1) return true;
    *error = fmt::format("rounds must be a positive integer, got '{}'", value);
    return false;
  }
  if (key == "order") {
    for (DiskPlacementOrder o : kAllOrders)
      if (value == to_string(o)) {
        plan->order = o;
        return true;
      }
    *error = fmt::format("unknown order '{}' (expected ABC, ACB, BAC, BCA, CAB or CBA)", value);
    return false;
  }
  if (key == "P") {
    if (parse_int(value, &plan->processors) && plan->processors >= 1) return true;
    *error = fmt::format("P must be a positive integer, got '{}'", value);
    return false;
  }
  if (key == "bcast" && (value == "A" || value == "B")) {
    plan->replicated = value == "A" ? ReplicatedOperand::A : ReplicatedOperand::B;
    return true;
  }
  if (key == "split" && (value == "thirds" || value == "optimal")) {
    plan->split = value == "thirds" ? MemorySplit::Thirds : MemorySplit::Optimal;
    return true;
  }
  if (key == "I") return parse_group("I", value, &plan->I, error);
  if (key == "J") return parse_group("J", value, &plan->J, error);
  if (key == "K") return parse_group("K", value, &plan->K, error);
  if (key == "dist") {
    auto d = split(value, ',');
    if (d.size() == 3)
      return parse_dist("I", d[0], &plan->I, error) && parse_dist("J", d[1], &plan->J, error) &&
             parse_dist("K", d[2], &plan->K, error);
    *error = fmt::format("dist needs three entries (I,J,K), got '{}'", value);
    return false;
  }
  *error = fmt::format("unknown plan field '{}={}'", key, value);
  return false;
}

}  // namespace

std::optional<Plan> parse_plan(std::string_view text, const GroupTiling& I, const GroupTiling& J,
                               const GroupTiling& K, std::string* error) {
  std::string local;
  if (!error) error = &local;
  Plan plan;
  plan.I = I;
  plan.J = J;
  plan.K = K;
  std::vector<std::string_view> words;
  for (std::string_view w : split(text, ' '))
    if (!w.empty()) words.push_back(w);
  if (words.empty() || !parse_method(words[0], &plan)) {
    *error = fmt::format("a plan starts with a method such as inside-rotation, got '{}'",
                         words.empty() ? std::string_view{} : words[0]);
    return std::nullopt;
  }
  for (std::size_t i = 1; i < words.size(); ++i) {
    auto eq = words[i].find('=');
    if (eq == std::string_view::npos) {
      *error = fmt::format("expected KEY=VALUE in the plan, got '{}'", words[i]);
      return std::nullopt;
    }
    if (!apply_field(words[i].substr(0, eq), words[i].substr(eq + 1), &plan, error)) return std::nullopt;
  }
  return plan;
}

}  // namespace tcec::costmodel
