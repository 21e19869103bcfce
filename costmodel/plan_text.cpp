// costmodel/plan_text.cpp — parse_plan(): the one-line text form of a Plan back into a Plan;
// the first word names the method, whose codec parses its own fields (plan_codec.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "costmodel/method.h"
#include "costmodel/plan_codec.h"
#include "costmodel/plan_text.h"

namespace tcec::costmodel {

std::vector<std::string_view> split_text(std::string_view s, char sep) {
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

namespace {

bool apply_field(const Method& method, std::string_view key, std::string_view value, Plan* plan, std::string* error) {
  if (key == "P") {
    if (parse_int(value, &plan->processors) && plan->processors >= 1) return true;
    *error = fmt::format("P must be a positive integer, got '{}'", value);
    return false;
  }
  if (key == "C0" && (value == "current" || value == "zero")) {
    plan->accumulate = value == "current";
    return true;
  }
  if (key == "split" && (value == "thirds" || value == "optimal")) {
    plan->split = value == "thirds" ? MemorySplit::Thirds : MemorySplit::Optimal;
    return true;
  }
  const std::vector<std::string> fields = method.codec.fields();
  for (const std::string& f : fields)
    if (key == f) return method.codec.parse_field(key, value, plan, error);
  for (const Method* other : methods()) {
    if (other->family == method.family) continue;
    for (const std::string& f : other->codec.fields())
      if (key == f) {
        const std::string& name = method.name;
        *error = fmt::format("a{} {} plan has no field '{}' (it has {}, P and split)",
                             std::string_view("aeiou").find(name[0]) == std::string_view::npos ? "" : "n", name, key,
                             fmt::join(fields, ", "));
        return false;
      }
  }
  *error = fmt::format("unknown plan field '{}={}'", key, value);
  return false;
}

}  // namespace

std::optional<Plan> parse_plan(std::string_view text, const GroupTiling& I, const GroupTiling& J, const GroupTiling& K,
                               std::string* error) {
  std::string local;
  if (!error) error = &local;
  Plan plan;
  plan.I = I;
  plan.J = J;
  plan.K = K;
  std::vector<std::string_view> words;
  for (std::string_view w : split_text(text, ' '))
    if (!w.empty()) words.push_back(w);
  const Method* method = words.empty() ? nullptr : find_method(words[0]);
  if (!method) {
    *error = fmt::format("a plan starts with a method such as inside-rotation, got '{}'",
                         words.empty() ? std::string_view{} : words[0]);
    return std::nullopt;
  }
  method->codec.start_plan(&plan);
  for (std::size_t i = 1; i < words.size(); ++i) {
    auto eq = words[i].find('=');
    if (eq == std::string_view::npos) {
      *error = fmt::format("expected KEY=VALUE in the plan, got '{}'", words[i]);
      return std::nullopt;
    }
    if (!apply_field(*method, words[i].substr(0, eq), words[i].substr(eq + 1), &plan, error)) return std::nullopt;
  }
  return plan;
}

}  // namespace tcec::costmodel
