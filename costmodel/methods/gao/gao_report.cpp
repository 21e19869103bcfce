// costmodel/methods/gao/gao_report.cpp — the Gao methods' reports (method_report.h): their parts
// of the dry-run report (text and JSON): their rows (model optimum per order), the "chosen:"
// line and the plan section.
#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/gao/gao_method.h"

namespace tcec::costmodel {

namespace {

std::string dist_of(const GroupTiling& g) { return g.dist < 0 ? "-" : g.indices[g.dist].name; }

}  // namespace

std::string GaoReport::row_name(const ModelPoint& p) const {
  std::string name = fmt::format("{} {}", to_string(p.comm), to_string(p.algorithm));
  if (p.algorithm == Algorithm::Replication) name += fmt::format("-{}", to_string(p.replicated));
  return name;
}

std::string GaoReport::describe_row(const ModelPoint& p) const {
  return fmt::format("method {} ({})", row_name(p), to_string(p.order));
}

std::string GaoReport::describe_plan(const Plan& plan) const {
  return fmt::format("plan {} ({})", method_name(comm_, algorithm_), to_string(gao(plan).order));
}

std::string GaoReport::row_text(const ModelPoint& p, const ContractionAnalysis&) const {
  const TileCounts& t = p.tiles;
  return fmt::format(
      "    {:<26} {:<5} {:>4} {:>8.3g} {:>8.3g} {:>8.3g} {:>8.3g} {:>8.3g} {:>8.3g} {:>10} {:>10} {:>11.5g}\n",
      row_name(p), to_string(p.order), p.case_id, t.It1, t.It2, t.Jt1, t.Jt2, t.Kt1, t.Kt2, human_bytes(p.comm_bytes),
      human_bytes(p.disk_bytes()), p.time_s);
}

nlohmann::json GaoReport::row_json(const ModelPoint& p, const ContractionAnalysis&) const {
  const TileCounts& t = p.tiles;
  nlohmann::json j = {{"comm", to_string(p.comm)},
                      {"algorithm", to_string(p.algorithm)},
                      {"feasible", p.feasible},
                      {"reason", p.reason}};
  if (p.algorithm == Algorithm::Replication) j["replicated"] = to_string(p.replicated);
  if (!p.feasible) return j;
  j.update(
      {{"order", to_string(p.order)},
       {"case", p.case_id},
       {"model_time_s", p.time_s},
       {"model_disk_bytes", p.disk_bytes()},
       {"model_disk_read_bytes", p.disk_read_bytes},
       {"model_disk_write_bytes", p.disk_write_bytes},
       {"model_comm_bytes", p.comm_bytes},
       {"tiles", {{"It1", t.It1}, {"It2", t.It2}, {"Jt1", t.Jt1}, {"Jt2", t.Jt2}, {"Kt1", t.Kt1}, {"Kt2", t.Kt2}}}});
  return j;
}

std::string GaoReport::choice_name(const ModelPoint& row, const Plan& plan) const {
  return fmt::format("{}, order {}", row_name(row), to_string(gao(plan).order));
}

std::string GaoReport::plan_section(const ContractionAnalysis& a, const Machine& machine) const {
  const Plan& p = a.plan().plan;
  const PlanVolumes& v = a.plan().volumes;
  const TileCounts t = p.tile_counts();
  std::string out = fmt::format("  plan: {}\n", p.to_string());
  out += fmt::format("    tiles It1={} It2={} Jt1={} Jt2={} Kt1={} Kt2={}; distribution I:{} J:{} K:{}\n", t.It1, t.It2,
                     t.Jt1, t.Jt2, t.Kt1, t.Kt2, dist_of(p.I), dist_of(p.J), dist_of(p.K));
  out += fmt::format("    memory per rank: {} (split {})\n", memory_text(plan_memory(p, machine), machine),
                     split_name(p.split));
  out += per_rank_text(v);
  out += fmt::format(
      "    predicted {:.5g} s (disk + network, Gao et al.); model optimum of {} {} {:.5g} s (plan/model {:.4f})\n",
      v.time_s, method_name(comm_, algorithm_), to_string(gao(p).order), a.plan_row().time_s,
      v.time_s / a.plan_row().time_s);
  out += wall_text(a, machine);
  const double moved = moved_bytes(p, v, machine);
  out += fmt::format("    data moved per rank (disk reads + received + disk writes) {} B = {:.3f}x the lower bound\n",
                     moved, moved / a.lower_bound_bytes_per_rank);
  return out;
}

void GaoReport::plan_json(const ContractionAnalysis& a, const Machine&, nlohmann::json& j) const {
  const GaoPlan& g = gao(a.plan().plan);
  j["comm"] = to_string(g.comm);
  j["algorithm"] = to_string(g.algorithm);
  j["order"] = to_string(g.order);
  if (g.algorithm == Algorithm::Replication) j["replicated"] = to_string(g.replicated);
}

}  // namespace tcec::costmodel
