// costmodel/report_plan.cpp — the chosen plan in the dry-run report (text and JSON).
#include <algorithm>

#include <fmt/format.h>

#include "costmodel/analysis.h"

namespace tcec::costmodel {

namespace {

std::string dist_of(const GroupTiling& g) { return g.dist < 0 ? "-" : g.indices[g.dist].name; }

template <class T>
std::pair<T, T> min_max(const std::vector<T>& v) {
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

std::string range_text(const std::vector<std::uint64_t>& v) {
  auto [lo, hi] = min_max(v);
  return lo == hi ? fmt::format("{}", lo) : fmt::format("{} .. {}", lo, hi);
}

}  // namespace

double moved_bytes(const PlanVolumes& v) {
  double most = 0;
  for (std::size_t r = 0; r < v.disk_read_bytes.size(); ++r)
    most = std::max(most, static_cast<double>(v.disk_read_bytes[r] + v.comm_recv_bytes[r]));
  return most;
}

std::string plan_text(const ContractionAnalysis& a, const Machine& machine) {
  if (!a.plan.feasible) return fmt::format("  plan: none ({})\n", a.plan.reason);
  const Plan& p = a.plan.plan;
  const PlanVolumes& v = a.plan.volumes;
  const TileCounts t = p.tile_counts();
  const TileBytes tb = tile_bytes(p, machine.element_size_bytes);
  std::string out = fmt::format("  plan: {}\n", p.to_string());
  out += fmt::format("    tiles It1={} It2={} Jt1={} Jt2={} Kt1={} Kt2={}; distribution I:{} J:{} K:{}\n", t.It1,
                     t.It2, t.Jt1, t.Jt2, t.Kt1, t.Kt2, dist_of(p.I), dist_of(p.J), dist_of(p.K));
  out += fmt::format("    tile buffers per rank: A {} B, B {} B, C {} B (memory {} B, split {})\n", tb.A, tb.B,
                     tb.C, machine.memory_bytes, p.split == MemorySplit::Thirds ? "thirds" : "optimal");
  out += fmt::format("    per rank (bytes, min .. max): disk read {}, disk write {}, sent {}, received {}\n",
                     range_text(v.disk_read_bytes), range_text(v.disk_write_bytes),
                     range_text(v.comm_sent_bytes), range_text(v.comm_recv_bytes));
  out += fmt::format("    predicted {:.5g} s; model optimum of {} {} {:.5g} s (plan/model {:.4f})\n", v.time_s,
                     method_name(p.comm, p.algorithm), to_string(p.order), a.plan_model.time_s,
                     v.time_s / a.plan_model.time_s);
  const double moved = moved_bytes(v);
  out += fmt::format("    data moved per rank (disk reads + received) {} B = {:.3f}x the lower bound\n", moved,
                     moved / a.lower_bound_bytes_per_rank);
  return out;
}

nlohmann::json plan_json(const ContractionAnalysis& a, const Machine& machine) {
  if (!a.plan.feasible) return nullptr;
  const Plan& p = a.plan.plan;
  const PlanVolumes& v = a.plan.volumes;
  const TileCounts t = p.tile_counts();
  const TileBytes tb = tile_bytes(p, machine.element_size_bytes);
  auto dist = [](const GroupTiling& g) { return g.dist < 0 ? nlohmann::json(nullptr) : nlohmann::json(g.indices[g.dist].name); };
  nlohmann::json per_index = nlohmann::json::object();
  for (const GroupTiling* g : {&p.I, &p.J, &p.K})
    for (const IndexTiles& x : g->indices) per_index[x.name] = {x.t1, x.t2};
  nlohmann::json j = {{"text", p.to_string()},
                      {"comm", to_string(p.comm)},
                      {"algorithm", to_string(p.algorithm)},
                      {"order", to_string(p.order)},
                      {"distribution", {{"I", dist(p.I)}, {"J", dist(p.J)}, {"K", dist(p.K)}}},
                      {"tiles", {{"It1", t.It1}, {"It2", t.It2}, {"Jt1", t.Jt1}, {"Jt2", t.Jt2}, {"Kt1", t.Kt1},
                                 {"Kt2", t.Kt2}, {"per_index", per_index}}},
                      {"memory_split", p.split == MemorySplit::Thirds ? "thirds" : "optimal"},
                      {"tile_bytes", {{"A", tb.A}, {"B", tb.B}, {"C", tb.C}}},
                      {"disk_read_bytes", v.disk_read_bytes},
                      {"disk_write_bytes", v.disk_write_bytes},
                      {"comm_sent_bytes", v.comm_sent_bytes},
                      {"comm_recv_bytes", v.comm_recv_bytes},
                      {"time_s", v.time_s},
                      {"model_time_s", a.plan_model.time_s},
                      {"moved_bytes_per_rank", moved_bytes(v)},
                      {"lower_bound_ratio", moved_bytes(v) / a.lower_bound_bytes_per_rank}};
  if (p.algorithm == Algorithm::Replication) j["replicated"] = to_string(p.replicated);
  return j;
}

}  // namespace tcec::costmodel
