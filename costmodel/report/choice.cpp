// costmodel/report/choice.cpp — the report's one chosen plan and its runner-up (analysis.h
// runner_up(), choice_text(), chosen_json()).
#include <limits>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/reasons.h"

namespace tcec::costmodel {

namespace {

/// How the report names a plan: its method's choice_name() at its candidate row.
std::string name_of(const ContractionAnalysis& a, const Plan& plan) {
  return report_of(plan).choice_name(candidate_row(a, plan), plan);
}

/// The eligible candidate of least total time whose method is `m` (`same`) or is not `m`
/// (!`same`); ties keep the earlier. Null when there is none.
const Candidate* best_eligible(const ContractionAnalysis& a, const Method* m, bool same) {
  const Candidate* best = nullptr;
  for (const Candidate& c : a.candidates)
    if (c.eligible && (c.row.method == m) == same && (!best || c.plan.total_s() < best->plan.total_s())) best = &c;
  return best;
}

}  // namespace

RunnerUp runner_up(const ContractionAnalysis& a) {
  RunnerUp r;
  if (!a.plan().feasible) return r;
  if (a.pinned) {
    r.exists = r.planner_choice = true;
    r.plan = a.planner_choice();
    if (a.planner_choice().feasible) r.name = name_of(a, a.planner_choice().plan);
    return r;
  }
  const Method* chosen = a.plan_row().method;
  const Method* fastest = a.fastest_row.feasible ? a.fastest_row.method : nullptr;
  if (fastest && fastest != chosen) {  // the table's fastest compute stage lost on the total
    r.exists = r.fastest_row = true;
    r.fastest_row_s = a.fastest_row.time_s;
    if (const Candidate* c = best_eligible(a, fastest, true)) {
      r.plan = c->plan;
      r.name = name_of(a, c->plan.plan);
      return r;
    }
    r.name = fastest->report.row_name(a.fastest_row);
    r.plan.reason = reason_text(ReasonId::runner_up_no_plan);
    for (const Candidate& c : a.candidates)  // the first reason its candidates give
      if (c.row.method == fastest && !c.plan.feasible && !c.plan.reason.empty()) {
        r.plan.reason = c.plan.reason;
        break;
      }
    return r;
  }
  if (const Candidate* c = best_eligible(a, chosen, false)) {
    r.exists = true;
    r.plan = c->plan;
    r.name = name_of(a, c->plan.plan);
  }
  return r;
}

std::string choice_text(const ContractionAnalysis& a) {
  if (!a.plan().feasible) return fmt::format("chosen: none ({})", a.plan().reason);
  std::string out = fmt::format("chosen: {}: {:.5g} s predicted in all (compute stage and redistribution){}",
                                name_of(a, a.plan().plan), a.plan().total_s(), a.pinned ? ", pinned by --plan" : "");
  const RunnerUp r = runner_up(a);
  if (r.planner_choice)
    return out + (!r.plan.feasible ? fmt::format("; the planner has no feasible plan ({})", r.plan.reason)
                  : r.plan.plan == a.plan().plan
                      ? std::string("; the planner's choice too")
                      : fmt::format("; the planner's choice {}: {:.5g} s in all", r.name, r.plan.total_s()));
  if (!r.exists) return out + "; runner-up: none (no other method has a plan the options allow)";
  if (!r.plan.feasible)
    return out +
           fmt::format(
               "; runner-up {}: its method's compute stage is the methods table's fastest ({:.5g} s), but it is not "
               "emittable: {}",
               r.name, r.fastest_row_s, r.plan.reason);
  out += fmt::format("; runner-up {}: {:.5g} s in all", r.name, r.plan.total_s());
  if (r.plan.total_s() == a.plan().total_s()) {  // a tie: the shorter compute stage in the table wins, then the earlier
    const double runner_row_s = candidate_row(a, r.plan.plan).time_s;
    out += runner_row_s > a.plan_row().time_s
               ? fmt::format(", a tie won by the shorter compute stage ({:.5g} s against {:.5g} s)",
                             a.plan_row().time_s, runner_row_s)
               : std::string(", a tie won by the method listed first");
  }
  if (r.fastest_row)
    out += fmt::format(
        ", though its method's compute stage is the methods table's fastest ({:.5g} s): plans are picked by "
        "the total",
        r.fastest_row_s);
  return out;
}

nlohmann::json chosen_json(const ContractionAnalysis& a) {
  if (!a.plan().feasible) return nullptr;
  const MethodReport& m = report_of(a.plan().plan);
  nlohmann::json j = m.row_json(a.plan_row(), a);
  m.chosen_json(a, j);
  j["choice"] = choice_text(a).substr(std::string("chosen: ").size());
  j["pinned"] = a.pinned.has_value();
  const RunnerUp r = runner_up(a);
  j["runner_up"] = nullptr;
  if (r.exists)
    j["runner_up"] = {{"name", r.name},
                      {"total_time_s", r.plan.feasible ? nlohmann::json(r.plan.total_s()) : nlohmann::json(nullptr)},
                      {"reason", r.plan.feasible ? std::string() : r.plan.reason},
                      {"fastest_row", r.fastest_row},
                      {"planner_choice", r.planner_choice}};
  return j;
}

}  // namespace tcec::costmodel
