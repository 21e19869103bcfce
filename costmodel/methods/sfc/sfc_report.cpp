// costmodel/methods/sfc/sfc_report.cpp — sfc's report (method_report.h), its parts of the dry-run
// report (text and JSON): its row, the "chosen:" line and the plan section (grid, segments,
// cache hits, layers along K).
#include <algorithm>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/methods/sfc/sfc_method.h"

namespace tcec::costmodel {

namespace {

/// The sfc plan among the analysis's plans (null when none is feasible).
const PlannedCandidate* sfc_candidate(const ContractionAnalysis& a) {
  for (const Candidate& c : a.candidates)
    if (c.plan.feasible && sfc_method().codec.owns(c.plan.plan)) return &c.plan;
  return nullptr;
}

/// "grid 8x8 along the curve, chunks of 128, 14 slots", then ", c=5 layers along K" when
/// replicated.
std::string grid_text(const Plan& plan) {
  const SfcPlan& s = sfc_plan(plan);
  return fmt::format("grid {}x{} along the curve, chunks of {}, {} slots{}", s.tiles_I, s.tiles_J, s.chunk, s.slots,
                     s.layers > 1 ? fmt::format(", c={} layers along K", s.layers) : std::string());
}

}  // namespace

std::string SfcReport::row_text(const ModelPoint& p, const ContractionAnalysis& a) const {
  const PlannedCandidate* pc = sfc_candidate(a);
  return exact_row_text(p, row_name(p), pc ? grid_text(pc->plan) : std::string("space-filling curve"));
}

nlohmann::json SfcReport::row_json(const ModelPoint& p, const ContractionAnalysis&) const {
  return exact_row_json(p, "sfc");
}

std::string SfcReport::choice_name(const ModelPoint&, const Plan&) const {
  return "sfc (generalized Hilbert curve over C's tiles, Georganas et al.)";
}

std::string SfcReport::plan_section(const ContractionAnalysis& a, const Machine& machine) const {
  const Plan& p = a.plan().plan;
  const PlanVolumes& v = a.plan().volumes;
  const std::vector<SfcRankWalk> w = sfc_walk(p, nullptr);
  std::vector<std::uint64_t> tiles, hits;
  std::int64_t all_hits = 0, all_misses = 0;
  for (const SfcRankWalk& r : w)
    tiles.push_back(static_cast<std::uint64_t>(r.tiles)), all_hits += r.hits, all_misses += r.misses;
  std::string out = fmt::format("  plan: {}\n", p.to_string());
  out += fmt::format(
      "    C's {}; tiles per rank {} (contiguous segments, balanced by elements); each rank's LRU "
      "cache of A and B panels hit {} of {} panel uses ({:.1f}%)\n",
      grid_text(p), range_text(tiles), all_hits, all_hits + all_misses,
      all_hits + all_misses > 0 ? 100.0 * static_cast<double>(all_hits) / static_cast<double>(all_hits + all_misses)
                                : 0.0);
  if (const SfcPlan& s = sfc_plan(p); s.layers > 1)
    out += fmt::format(
        "    replication c={} along K (2.5D): {} layers of {} ranks, each walking the curve over its share of K "
        "(|K|/c = {}); after each tile the c partial tiles are reduced (ring reduce-scatter by rows) and each "
        "rank writes its rows\n",
        s.layers, s.layers, sfc_layer_ranks(p), static_cast<double>(p.K.extent()) / static_cast<double>(s.layers));
  out += fmt::format("    memory per rank: {} (split {})\n", memory_text(plan_memory(p, machine), machine),
                     split_name(p.split));
  out += per_rank_text(v);
  out += fmt::format("    predicted {:.5g} s (disk{}, exact walk; each rank reads the panels it lacks{})\n", v.time_s,
                     sfc_plan(p).layers > 1 ? " and network" : "",
                     sfc_plan(p).layers > 1 ? ", the reductions move C's partial tiles" : "; no network");
  out += wall_text(a, machine);
  const double moved = moved_bytes(p, v, machine);
  out += fmt::format("    data moved per rank (disk reads + received + disk writes) {} B = {:.3f}x the lower bound\n",
                     moved, moved / a.lower_bound_bytes_per_rank);
  return out;
}

void SfcReport::plan_json(const ContractionAnalysis& a, const Machine&, nlohmann::json& j) const {
  const SfcPlan& s = sfc_plan(a.plan().plan);
  j["comm"] = "inside";
  j["algorithm"] = "sfc";
  j["order"] = "-";
  j["grid"] = {{"I", s.tiles_I}, {"J", s.tiles_J}};
  j["chunk"] = s.chunk;
  j["slots"] = s.slots;
  j["c"] = s.layers;
}

}  // namespace tcec::costmodel
