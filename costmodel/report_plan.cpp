// costmodel/report_plan.cpp — the chosen plan in the dry-run report (text and JSON).
#include <algorithm>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/cosma.h"

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

/// The plan section of a cosma plan (the schedule of cosma.h).
std::string cosma_plan_text(const ContractionAnalysis& a, const Machine& machine) {
  const Plan& p = a.plan.plan;
  const PlanVolumes& v = a.plan.volumes;
  const CosmaStrategy& s = a.cosma;
  const TileBytes tb = tile_bytes(p, machine.element_size_bytes);
  std::string out = fmt::format("  plan: {}\n", p.to_string());
  out += fmt::format("    grid pm x pn x pk = {}x{}x{} over I, J, K ({} of {} ranks idle, at most {}); local domain "
                     "{} x {} x {} (rank 0), {} round{} of up to {} K columns\n",
                     s.grid.pm, s.grid.pn, s.grid.pk, s.idle_ranks, s.processors, s.max_idle_ranks, s.block_m, s.block_n,
                     s.block_k, s.grid.rounds, s.grid.rounds == 1 ? "" : "s", s.slice_k);
  out += fmt::format("    COSMA Eq. 32: a = {:.6g}, b = {:.6g}; Eq. 33 bound {:.6g} words per rank; rank 0's domain "
                     "touches {:.4f}x that (stretch)\n",
                     s.ideal_a, s.ideal_b, s.bound_words, s.stretch);
  out += fmt::format("    memory per rank: {} (split {})\n", memory_text(plan_memory(p, machine), machine),
                     p.split == MemorySplit::Thirds ? "thirds" : "optimal");
  out += fmt::format("    per rank (bytes, min .. max): disk read {}, disk write {}, sent {}, received {}\n",
                     range_text(v.disk_read_bytes), range_text(v.disk_write_bytes),
                     range_text(v.comm_sent_bytes), range_text(v.comm_recv_bytes));
  const std::string why = cosma_why(a, true);
  out += fmt::format("    predicted {:.5g} s (exact schedule){}{}\n", v.time_s, why.empty() ? "" : "; ", why);
  const double moved = moved_bytes(p, v, machine);
  out += fmt::format("    data moved per rank (own pieces read from the operands or the disk + received) {} B = "
                     "{:.3f}x the lower bound\n",
                     moved, moved / a.lower_bound_bytes_per_rank);
  return out;
}

}  // namespace

std::string memory_text(const PlanMemory& memory, const Machine& machine) {
  std::vector<std::string> load, resident;
  std::uint64_t sum = 0;
  for (const MemoryPart& p : memory.parts) {
    if (p.load_stage) {
      load.push_back(fmt::format("{} {} B", p.what, p.bytes));
    } else {
      resident.push_back(fmt::format("{} {}", p.what, p.bytes));
      sum += p.bytes;
    }
  }
  const auto M = static_cast<std::uint64_t>(machine.memory_bytes);
  if (load.empty()) return fmt::format("{} = {} B of {} B", fmt::join(resident, " + "), sum, M);
  return fmt::format("{} (load stage), then {} = {} B; peak {} B of {} B", fmt::join(load, ", "),
                     fmt::join(resident, " + "), sum, memory.peak_bytes, M);
}

nlohmann::json memory_json(const PlanMemory& memory, const Machine& machine) {
  nlohmann::json parts = nlohmann::json::array();
  for (const MemoryPart& p : memory.parts)
    parts.push_back({{"what", p.what}, {"bytes", p.bytes}, {"stage", p.load_stage ? "load" : "step"}});
  return {{"parts", parts}, {"peak_bytes", memory.peak_bytes},
          {"memory_bytes", static_cast<std::uint64_t>(machine.memory_bytes)}};
}

double moved_bytes(const Plan& plan, const PlanVolumes& v, const Machine& machine) {
  double most = 0;
  for (std::size_t r = 0; r < v.disk_read_bytes.size(); ++r) {
    double resident = 0;   // cosma: own pieces loaded straight into the slice buffers
    if (plan.algorithm == Algorithm::Cosma) {
      const CosmaRankWords w = cosma_rank_words(plan.cosma, plan.I.extent(), plan.J.extent(), plan.K.extent(),
                                                static_cast<std::int64_t>(r));
      resident = static_cast<double>(w.owned - w.read) * static_cast<double>(machine.element_size_bytes);
    }
    most = std::max(most, static_cast<double>(v.disk_read_bytes[r] + v.comm_recv_bytes[r]) + resident);
  }
  return most;
}

std::string compute_plan_text(const ContractionAnalysis& a, const Machine& machine);

/// The plan's redistribution line (Gao et al. §2.3 stages 1 and 3): through the tensor files
/// as tcec runs them, or rank to rank from and to the declared distributions.
std::string redistribution_text(const ContractionAnalysis& a) {
  const PlanVolumes& r = a.plan.redistribution;
  const std::string declared = a.declared.which();
  const std::string how = declared.empty()                    ? "through the tensor files"
                          : declared == "A, B, C"             ? "declared distributions of A, B, C"
                                                              : "declared distributions of " + declared + ", tensor files";
  const bool moved = std::any_of(r.comm_recv_bytes.begin(), r.comm_recv_bytes.end(), [](auto b) { return b > 0; });
  return fmt::format("    redistribution (stages 1 and 3, {}{}): per rank disk read {}, disk write {}{}; {:.5g} s; "
                     "total with the compute stage {:.5g} s\n",
                     how, a.accumulate ? "; C starts from its current value" : "", range_text(r.disk_read_bytes),
                     range_text(r.disk_write_bytes),
                     moved ? fmt::format(", sent {}, received {}", range_text(r.comm_sent_bytes),
                                         range_text(r.comm_recv_bytes))
                           : "",
                     r.time_s, a.plan.total_s());
}

std::string plan_text(const ContractionAnalysis& a, const Machine& machine) {
  if (!a.plan.feasible) return fmt::format("  plan: none ({})\n", a.plan.reason);
  return compute_plan_text(a, machine) + redistribution_text(a);
}

std::string compute_plan_text(const ContractionAnalysis& a, const Machine& machine) {
  if (a.plan.plan.algorithm == Algorithm::Cosma) return cosma_plan_text(a, machine);
  const Plan& p = a.plan.plan;
  const PlanVolumes& v = a.plan.volumes;
  const TileCounts t = p.tile_counts();
  const TileBytes tb = tile_bytes(p, machine.element_size_bytes);
  std::string out = fmt::format("  plan: {}\n", p.to_string());
  out += fmt::format("    tiles It1={} It2={} Jt1={} Jt2={} Kt1={} Kt2={}; distribution I:{} J:{} K:{}\n", t.It1,
                     t.It2, t.Jt1, t.Jt2, t.Kt1, t.Kt2, dist_of(p.I), dist_of(p.J), dist_of(p.K));
  out += fmt::format("    memory per rank: {} (split {})\n", memory_text(plan_memory(p, machine), machine),
                     p.split == MemorySplit::Thirds ? "thirds" : "optimal");
  out += fmt::format("    per rank (bytes, min .. max): disk read {}, disk write {}, sent {}, received {}\n",
                     range_text(v.disk_read_bytes), range_text(v.disk_write_bytes),
                     range_text(v.comm_sent_bytes), range_text(v.comm_recv_bytes));
  out += fmt::format("    predicted {:.5g} s; model optimum of {} {} {:.5g} s (plan/model {:.4f})\n", v.time_s,
                     method_name(p.comm, p.algorithm), to_string(p.order), a.plan_model.time_s,
                     v.time_s / a.plan_model.time_s);
  const double moved = moved_bytes(p, v, machine);
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
                      {"memory_bytes_per_rank", memory_json(plan_memory(p, machine), machine)},
                      {"disk_read_bytes", v.disk_read_bytes},
                      {"disk_write_bytes", v.disk_write_bytes},
                      {"comm_sent_bytes", v.comm_sent_bytes},
                      {"comm_recv_bytes", v.comm_recv_bytes},
                      {"time_s", v.time_s},
                      {"model_time_s", a.plan_model.time_s},
                      {"moved_bytes_per_rank", moved_bytes(p, v, machine)},
                      {"lower_bound_ratio", moved_bytes(p, v, machine) / a.lower_bound_bytes_per_rank},
                      {"redistribution", {{"disk_read_bytes", a.plan.redistribution.disk_read_bytes},
                                          {"disk_write_bytes", a.plan.redistribution.disk_write_bytes},
                                          {"comm_sent_bytes", a.plan.redistribution.comm_sent_bytes},
                                          {"comm_recv_bytes", a.plan.redistribution.comm_recv_bytes},
                                          {"time_s", a.plan.redistribution.time_s},
                                          {"accumulate", a.accumulate},
                                          {"declared", a.declared.which()}}},
                      {"total_time_s", a.plan.total_s()}};
  if (p.algorithm == Algorithm::Replication) j["replicated"] = to_string(p.replicated);
  if (p.algorithm == Algorithm::Cosma) {
    j["order"] = "-";
    j["grid"] = {{"pm", p.cosma.pm}, {"pn", p.cosma.pn}, {"pk", p.cosma.pk}};
    j["rounds"] = p.cosma.rounds;
    j["idle_ranks"] = p.processors - p.cosma.used();
    j["why"] = cosma_why(a, true);
  }
  return j;
}

}  // namespace tcec::costmodel
