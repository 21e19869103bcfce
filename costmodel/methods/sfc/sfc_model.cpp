// costmodel/methods/sfc/sfc_model.cpp — sfc's model (Georganas et al., seed 002; sfc_walk.h;
// method_model.h): the plans it walks (the best estimated of sfc_candidates.h's), buffers and
// volumes. Its plan codec is sfc_codec.cpp, its report sfc_report.cpp.
#include "costmodel/methods/sfc/sfc_method.h"

#include <algorithm>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/methods/pass_runs.h"
#include "costmodel/methods/sfc/sfc_candidates.h"
#include "costmodel/partition.h"
#include "costmodel/reasons.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;

/// Candidates walked exactly (the best by their estimated time, sfc_candidates.h).
constexpr std::size_t kWalked = 2;

/// Of rank r's sent and received elements, those to and from other nodes: its reduce-scatter
/// ring over the c layers sends to the same position of the next layer (rank r + P/c) and
/// receives from the previous one (runtime/methods/sfc/sfc.cpp).
std::pair<std::uint64_t, std::uint64_t> crossing(const Plan& plan, const Machine& machine, i64 r,
                                                 const SfcRankWalk& w) {
  const i64 P = plan.processors, g = P / sfc_plan(plan).layers;
  return {machine.apart(r, (r + g) % P) ? w.sent : 0, machine.apart(r, (r + P - g) % P) ? w.received : 0};
}

}  // namespace

void SfcModel::analyze(MethodAnalysis& ctx) const {
  const ContractionAnalysis& a = ctx.analysis();
  const Machine& machine = ctx.machine();
  const Groups& groups = ctx.groups();
  PlannedCandidate best;
  best.reason = reason_text(ReasonId::sfc_no_grid_fits);
  if (a.declared.any()) {
    best.reason = reason_text(ReasonId::sfc_declared);
  } else {
    const i64 m = groups.I.extent(), n = groups.J.extent(), k = groups.K.extent();
    const ArrayAccess access{true, true, true, a.gemm.perm_A, a.gemm.perm_B, a.gemm.perm_C};
    // Every candidate's estimated time (no cache: each tile reads its A and B panels whole),
    // cheap; the kWalked best of them are then walked exactly, cache and all.
    bool too_long = false;
    std::vector<SfcCandidate> tried = sfc_candidates(m, n, k, a.accumulate, machine, &too_long);
    if (tried.empty() && too_long) best.reason = reason_text(ReasonId::sfc_walk_budget);
    std::stable_sort(tried.begin(), tried.end(),
                     [](const SfcCandidate& x, const SfcCandidate& y) { return x.estimate_s < y.estimate_s; });
    if (tried.size() > kWalked) tried.resize(kWalked);
    for (const SfcCandidate& candidate : tried) {
      PlannedCandidate pc;
      pc.plan = {machine.processors, groups.I, groups.J, groups.K, ctx.options().split, a.accumulate, candidate.plan};
      pc.feasible = true;
      pc.volumes = plan_volumes(pc.plan, machine);
      plan_requests(pc.plan, machine, access, pc.volumes);
      if (!best.feasible || pc.volumes.wall_s < best.volumes.wall_s) best = pc;
    }
  }
  const ModelPoint point = exact_row(best, machine);
  ctx.add_row(point);
  const bool allowed = ctx.allows(std::nullopt);
  if (allowed && best.feasible) best.redistribution = redistribution_volumes(best.plan, machine, a.accumulate);
  ctx.add_candidate(point, best, allowed);
}

PlanVolumes SfcModel::volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                              std::int64_t end_rank) const {
  const std::vector<SfcRankWalk> w = sfc_walk(plan, nullptr);
  PlanVolumes v;
  for (i64 r = first_rank; r < end_rank; ++r) {
    const SfcRankWalk& x = w[static_cast<std::size_t>(r)];
    append_rank(v, 1.0, machine, x.read, x.written, x.sent, x.received, crossing(plan, machine, r, x));
  }
  return v;
}

PlanVolumes SfcModel::walk(const Plan& plan, const Machine& machine) const {
  PlanVolumes v;
  i64 r = 0;
  for (const SfcRankWalk& w : sfc_replay(plan))
    append_rank(v, 1.0, machine, w.read, w.written, w.sent, w.received, crossing(plan, machine, r++, w));
  return v;
}

std::vector<std::uint64_t> SfcModel::disk_requests(const Plan& plan, const ArrayAccess& access) const {
  std::vector<std::uint64_t> out;
  for (const SfcRankWalk& w : sfc_walk(plan, &access)) out.push_back(w.requests);
  return out;
}

std::vector<std::uint64_t> SfcModel::page_faults(const Plan& plan, const ArrayAccess& access) const {
  const double elements = static_cast<double>(plan.I.extent() + plan.J.extent()) * static_cast<double>(plan.K.extent());
  std::vector<std::uint64_t> out;  // A's and B's panels
  for (const SfcRankWalk& w : sfc_walk(plan, &access))
    out.push_back(static_cast<std::uint64_t>(capped_faults(static_cast<double>(w.faults), elements)));
  return out;
}

double SfcModel::rank_flops(const Plan& plan, std::int64_t rank) const {
  const SfcSchedule s = sfc_schedule(plan);
  const SfcPlan& p = sfc_plan(plan);
  const auto q = static_cast<std::size_t>(rank % sfc_layer_ranks(plan));  // its position in its layer
  double elements = 0;                                                    // of C in the rank's segment
  for (i64 at = s.segment[q]; at < s.segment[q + 1]; ++at) {
    const i64 t = s.order[static_cast<std::size_t>(at)];
    elements += static_cast<double>(piece(plan.I.extent(), p.tiles_I, t / p.tiles_J) *
                                    piece(plan.J.extent(), p.tiles_J, t % p.tiles_J));
  }
  // Its layer's share of K.
  return 2.0 * elements * static_cast<double>(piece(plan.K.extent(), p.layers, rank / sfc_layer_ranks(plan)));
}

double SfcModel::kernel_efficiency(const Plan& plan, const Machine& machine, std::int64_t) const {
  // One call per C tile and K panel: a tile of the balanced grid times `chunk` columns.
  const SfcPlan& p = sfc_plan(plan);
  return gemm_efficiency(static_cast<double>(plan.I.extent()) / static_cast<double>(p.tiles_I),
                         static_cast<double>(plan.J.extent()) / static_cast<double>(p.tiles_J),
                         static_cast<double>(p.chunk), machine);
}

TileBytes SfcModel::tile_bytes(const Plan& plan, double element_size_bytes) const {
  const auto e = static_cast<std::uint64_t>(element_size_bytes);
  // A: the panel slots, B: the reduction's scratch (c > 1), C: the C tile.
  return {e * static_cast<std::uint64_t>(sfc_plan(plan).slots * sfc_slot_elements(plan)),
          e * static_cast<std::uint64_t>(sfc_scratch_elements(plan)),
          e * static_cast<std::uint64_t>(sfc_tile_elements(plan))};
}

std::vector<MemoryPart> SfcModel::memory_parts(const Plan&, const TileBytes& t) const {
  std::vector<MemoryPart> parts = {{"C tile", t.C, false}, {"panel slots", t.A, false}};
  if (t.B > 0) parts.push_back({"reduction scratch", t.B, false});
  return parts;
}

StageElements SfcModel::stage_elements(const Plan&, std::int64_t) const {
  StageElements e;
  e.C_start = 0;  // C's current tiles are read in the compute stage, straight from its file
  return e;
}

}  // namespace tcec::costmodel
