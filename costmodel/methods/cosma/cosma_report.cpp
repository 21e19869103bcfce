// costmodel/methods/cosma/cosma_report.cpp — cosma's report (method_report.h): its parts of the
// dry-run report (text and JSON): its row (grid and rounds), the "chosen:" line with why it
// wins, the strategy and the plan section.
#include <algorithm>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/methods/cosma/cosma_method.h"
#include "costmodel/reasons.h"

namespace tcec::costmodel {

const CosmaStrategy& CosmaReport::strategy(const ContractionAnalysis& a) const {
  static const CosmaStrategy kNone;
  const CosmaDetail* d = a.detail<CosmaDetail>(cosma_method());
  return d ? d->strategy : kNone;
}

std::string CosmaReport::row_text(const ModelPoint& p, const ContractionAnalysis& a) const {
  const CosmaStrategy& s = strategy(a);
  const std::string grid = fmt::format("grid {}x{}x{}, {} idle, {} round{} (exact schedule)", s.grid.pm, s.grid.pn,
                                       s.grid.pk, s.idle_ranks, s.grid.rounds, s.grid.rounds == 1 ? "" : "s");
  return exact_row_text(p, row_name(p), grid);
}

nlohmann::json CosmaReport::row_json(const ModelPoint& p, const ContractionAnalysis& a) const {
  nlohmann::json j = exact_row_json(p, "cosma");
  if (!p.feasible) return j;
  const CosmaStrategy& s = strategy(a);
  j.update({{"grid", {{"pm", s.grid.pm}, {"pn", s.grid.pn}, {"pk", s.grid.pk}}},
            {"idle_ranks", s.idle_ranks},
            {"rounds", s.grid.rounds}});
  return j;
}

std::string CosmaReport::choice_name(const ModelPoint&, const Plan& plan) const {
  const CosmaGrid& g = cosma_grid(plan);
  return fmt::format("cosma, grid {}x{}x{} ({} idle), {} round{}", g.pm, g.pn, g.pk, plan.processors - g.used(),
                     g.rounds, g.rounds == 1 ? "" : "s");
}

void CosmaReport::chosen_json(const ContractionAnalysis& a, nlohmann::json& chosen) const {
  chosen["why"] = why(a, true);
}

void CosmaReport::analysis_json(const ContractionAnalysis& a, nlohmann::json& j) const {
  const CosmaStrategy& s = strategy(a);
  j["cosma"] = {{"feasible", s.feasible},
                {"reason", s.reason},
                {"memory_words", s.memory_words},
                {"max_idle_ranks", s.max_idle_ranks},
                {"ideal_a", s.ideal_a},
                {"ideal_b", s.ideal_b},
                {"ideal_rounds", s.ideal_rounds},
                {"bound_words_per_rank", s.bound_words},
                {"grid", {{"pm", s.grid.pm}, {"pn", s.grid.pn}, {"pk", s.grid.pk}}},
                {"rounds", s.grid.rounds},
                {"idle_ranks", s.idle_ranks},
                {"block", {{"I", s.block_m}, {"J", s.block_n}, {"K", s.block_k}, {"K_per_round", s.slice_k}}},
                {"memory_used_words", s.memory_used_words},
                {"max_recv_words", s.max_recv_words},
                {"max_sent_words", s.max_sent_words},
                {"stretch", s.stretch}};
}

std::string CosmaReport::plan_section(const ContractionAnalysis& a, const Machine& machine) const {
  const Plan& p = a.plan().plan;
  const PlanVolumes& v = a.plan().volumes;
  const CosmaStrategy& s = strategy(a);
  std::string out = fmt::format("  plan: {}\n", p.to_string());
  out += fmt::format(
      "    grid pm x pn x pk = {}x{}x{} over I, J, K ({} of {} ranks idle, at most {}); local domain "
      "{} x {} x {} (rank 0), {} round{} of up to {} K columns\n",
      s.grid.pm, s.grid.pn, s.grid.pk, s.idle_ranks, s.processors, s.max_idle_ranks, s.block_m, s.block_n, s.block_k,
      s.grid.rounds, s.grid.rounds == 1 ? "" : "s", s.slice_k);
  out += fmt::format(
      "    COSMA Eq. 32: a = {:.6g}, b = {:.6g}; Eq. 33 bound {:.6g} words per rank; rank 0's domain "
      "touches {:.4f}x that (stretch)\n",
      s.ideal_a, s.ideal_b, s.bound_words, s.stretch);
  out += fmt::format("    memory per rank: {} (split {})\n", memory_text(plan_memory(p, machine), machine),
                     split_name(p.split));
  out += per_rank_text(v);
  const std::string w = why(a, true);
  out +=
      fmt::format("    predicted {:.5g} s (disk + network, exact schedule){}{}\n", v.time_s, w.empty() ? "" : "; ", w);
  out += wall_text(a, machine);
  const double moved = moved_bytes(p, v, machine);
  out += fmt::format(
      "    data moved per rank (own pieces read from the operands or the disk + received + disk writes) {} B = "
      "{:.3f}x the lower bound\n",
      moved, moved / a.lower_bound_bytes_per_rank);
  return out;
}

void CosmaReport::plan_json(const ContractionAnalysis& a, const Machine&, nlohmann::json& j) const {
  const Plan& p = a.plan().plan;
  const CosmaGrid& g = cosma_grid(p);
  j["comm"] = "inside";
  j["algorithm"] = "cosma";
  j["order"] = "-";
  j["grid"] = {{"pm", g.pm}, {"pn", g.pn}, {"pk", g.pk}};
  j["rounds"] = g.rounds;
  j["idle_ranks"] = p.processors - g.used();
  j["why"] = why(a, true);
}

std::string CosmaReport::why(const ContractionAnalysis& a, bool plans) const {
  const bool chosen = plans ? a.plan().feasible && &method_of(a.plan().plan) == &cosma_method()
                            : a.fastest_row.feasible && a.fastest_row.method == &cosma_method();
  if (!chosen) return {};
  double cosma_s = a.fastest_row.time_s, cosma_comm = a.fastest_row.comm_bytes, other_s = 0, other_comm = 0;
  std::string other, family;
  if (plans) {
    const PlannedCandidate* best = best_plan_outside(a, cosma_method().family, &family);
    if (!best || !best->feasible) {
      const bool excluded = !best || best->reason == reason_text(ReasonId::no_candidate_allowed);
      return fmt::format("cosma: {:.5g} s; {}", a.plan().volumes.time_s,
                         excluded ? fmt::format("the {} methods are excluded by --force-method", family)
                                  : fmt::format("no {} plan is feasible", family));
    }
    auto most = [](const std::vector<std::uint64_t>& v) {
      return static_cast<double>(*std::max_element(v.begin(), v.end()));
    };
    cosma_s = a.plan().volumes.time_s, cosma_comm = most(a.plan().volumes.comm_recv_bytes);
    other_s = best->volumes.time_s, other_comm = most(best->volumes.comm_recv_bytes);
    other = report_of(best->plan).describe_plan(best->plan);
  } else {
    const ModelPoint best = best_row_outside(a, cosma_method().family);
    if (!best.feasible) return fmt::format("cosma: {:.5g} s; no Gao method is feasible", cosma_s);
    family = best.method->family;
    other_s = best.time_s, other_comm = best.comm_bytes;
    other = best.method->report.describe_row(best);
  }
  std::string comm;
  if (cosma_comm == 0)
    comm = other_comm == 0 ? "neither communicates"
                           : fmt::format("no communication vs {} received per rank", human_bytes(other_comm));
  else if (other_comm == 0)
    comm = fmt::format("{} received per rank vs none, but less disk time", human_bytes(cosma_comm));
  else if (other_comm >= cosma_comm)
    comm = fmt::format("{:.3g}x less communication: {} vs {} received per rank", other_comm / cosma_comm,
                       human_bytes(cosma_comm), human_bytes(other_comm));
  else
    comm = fmt::format("{:.3g}x more communication, {} vs {} received per rank, but less disk time",
                       cosma_comm / other_comm, human_bytes(cosma_comm), human_bytes(other_comm));
  return fmt::format("cosma: {:.5g} s vs best {} {} {:.5g} s ({})", cosma_s, family, other, other_s, comm);
}

}  // namespace tcec::costmodel
