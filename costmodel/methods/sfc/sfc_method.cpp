// costmodel/methods/sfc/sfc_method.cpp — sfc (Georganas et al., seed 002; sfc_walk.h) as a
// Method (method.h): the plans it tries (tile grids, K chunks and cache slots for the memory),
// the plan text, buffers, validity and volumes. Its report is in sfc_report.cpp.
#include "costmodel/methods/sfc/sfc_method.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/partition.h"
#include "costmodel/plan_text.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

/// Shares of the memory a C tile may take (the panel slots get the rest), tiles per rank the
/// grid should at least give (more: better balance, less reuse), and K chunks tried (all of K
/// too); a walk has at most kMostChunks chunks per tile, which bounds the planning time.
constexpr double kTileShares[] = {0.1, 0.2, 0.35, 0.5, 0.7, 0.85};
constexpr i64 kTilesPerRank[] = {1, 2, 4};
constexpr i64 kMostTilesPerRank = 8;
constexpr i64 kChunks[] = {1, 2, 8, 32, 128, 512, 2048};
constexpr i64 kMostChunks = 4096;
/// Panel uses (tiles × chunks × 2) a candidate's walk may take at most; finer candidates are
/// not tried (their walk would dominate the planning time).
constexpr double kMostSteps = 1e6;
/// Candidates walked exactly (the best by their time without the cache).
constexpr std::size_t kWalked = 2;

/// The tile grid for C tiles of about `area` elements of an m × n result: square tiles, or as
/// wide as C when C is narrower than a square tile; then split further until there are at
/// least `tiles` of them.
std::pair<i64, i64> grid_for(i64 m, i64 n, double area, i64 tiles) {
  const auto side = std::max<i64>(1, static_cast<i64>(std::sqrt(area)));
  i64 Ti = ceil_div(m, side), Tj = ceil_div(n, side);
  if (n <= side) Tj = 1, Ti = ceil_div(m, std::max<i64>(1, static_cast<i64>(area / static_cast<double>(n))));
  if (m <= side) Ti = 1, Tj = ceil_div(n, std::max<i64>(1, static_cast<i64>(area / static_cast<double>(m))));
  Ti = std::min(Ti, m), Tj = std::min(Tj, n);
  while (Ti * Tj < tiles && (Ti < m || Tj < n)) {  // split the longer tiles
    if ((Tj >= n || ceil_div(m, Ti) >= ceil_div(n, Tj)) && Ti < m)
      ++Ti;
    else
      ++Tj;
  }
  return {Ti, Tj};
}

}  // namespace

bool SfcMethod::owns(const Plan& plan) const { return std::holds_alternative<SfcPlan>(plan.method); }

void SfcMethod::analyze(MethodAnalysis& ctx) const {
  const ContractionAnalysis& a = ctx.analysis();
  const Machine& machine = ctx.machine();
  const Groups& groups = ctx.groups();
  PlannedCandidate best;
  best.reason = "no tile grid, K chunk and two panel slots fit the memory";
  if (a.declared.any()) {
    best.reason = "tensors kept on the ranks or declared distributions are not modelled against sfc's curve";
  } else {
    const auto S = static_cast<i64>(machine.memory_bytes / machine.element_size_bytes);
    const i64 m = groups.I.extent(), n = groups.J.extent(), k = groups.K.extent();
    const ArrayAccess access{true, true, true, a.gemm.perm_A, a.gemm.perm_B, a.gemm.perm_C};
    std::vector<i64> chunks = {k};  // the longest first: on equal time the kernel runs best on long chunks
    for (auto c = std::rbegin(kChunks); c != std::rend(kChunks); ++c)
      if (*c < k && (k + *c - 1) / *c <= kMostChunks) chunks.push_back(*c);
    // Every candidate's time without the cache (each tile reads its A and B panels whole),
    // cheap; the kWalked best of them are then walked exactly, cache and all.
    // Grids: tiles of a share of the memory, split until every rank has some; and grids of
    // t·P tiles shaped like C (t tiles per rank, each as large as C's share allows).
    std::vector<std::pair<i64, i64>> grids;
    for (double share : kTileShares)
      for (i64 per_rank : kTilesPerRank)
        grids.push_back(grid_for(m, n, share * static_cast<double>(S), per_rank * machine.processors));
    for (i64 t = 1; t <= kMostTilesPerRank; ++t) {
      const double tiles = static_cast<double>(t * machine.processors);
      const i64 Ti =
          std::clamp<i64>(std::llround(std::sqrt(tiles * static_cast<double>(m) / static_cast<double>(n))), 1, m);
      grids.emplace_back(Ti, std::min(n, ceil_div(t * machine.processors, Ti)));
    }
    std::sort(grids.begin(), grids.end());
    grids.erase(std::unique(grids.begin(), grids.end()), grids.end());
    std::vector<std::pair<double, SfcPlan>> tried;
    bool too_long = false;
    for (const auto& [Ti, Tj] : grids)
      for (i64 chunk : chunks) {
        const i64 rows = ceil_div(m, Ti), cols = ceil_div(n, Tj), tile = rows * cols;
        const i64 slots = (S - tile) / (std::max(rows, cols) * chunk);
        if (slots < 2) continue;
        if (2.0 * static_cast<double>(Ti * Tj) * static_cast<double>((k + chunk - 1) / chunk) > kMostSteps) {
          too_long = true;  // it fits, but walking it would take too long
          continue;
        }
        const double tiles = std::ceil(static_cast<double>(Ti * Tj) / static_cast<double>(machine.processors));
        const double e = machine.element_size_bytes;
        const double time = tiles * (static_cast<double>((rows + cols) * k) * e / machine.disk_read_bytes_per_s +
                                     static_cast<double>(tile) * e / machine.disk_write_bytes_per_s +
                                     2.0 * static_cast<double>(tile * k) / machine.flops_per_s);
        tried.emplace_back(time, SfcPlan{Ti, Tj, chunk, slots});
      }
    if (tried.empty() && too_long)
      best.reason = fmt::format(
          "every tile grid that fits the memory takes more than {:g} panel uses to walk (the "
          "planning budget)",
          kMostSteps);
    std::stable_sort(tried.begin(), tried.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    if (tried.size() > kWalked) tried.resize(kWalked);
    for (const auto& [estimate, part] : tried) {
      PlannedCandidate pc;
      pc.plan = {machine.processors, groups.I, groups.J, groups.K, ctx.options().split, a.accumulate, part};
      pc.feasible = true;
      pc.volumes = plan_volumes(pc.plan, machine);
      plan_requests(pc.plan, machine, access, pc.volumes);
      if (!best.feasible || pc.volumes.wall_s < best.volumes.wall_s) best = pc;
    }
  }
  const ModelPoint point = exact_row(*this, best, machine);
  ctx.add_row(point);
  const bool allowed = ctx.allows(*this, std::nullopt);
  if (allowed && best.feasible) best.redistribution = redistribution_volumes(best.plan, machine, a.accumulate);
  ctx.add_candidate(*this, point, best, allowed);
}

void SfcMethod::start_plan(Plan* plan) const { plan->method = SfcPlan{}; }

std::string SfcMethod::plan_text(const Plan& plan) const {
  const SfcPlan& s = sfc_plan(plan);
  return fmt::format("sfc tiles={}x{} chunk={} slots={} P={} split={}", s.tiles_I, s.tiles_J, s.chunk, s.slots,
                     plan.processors, split_name(plan.split));
}

std::vector<std::string> SfcMethod::fields() const { return {"tiles", "chunk", "slots"}; }

bool SfcMethod::parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const {
  SfcPlan& s = std::get<SfcPlan>(plan->method);
  if (key == "tiles") {
    const auto parts = split_text(value, 'x');
    if (parts.size() == 2 && parse_int(parts[0], &s.tiles_I) && parse_int(parts[1], &s.tiles_J) && s.tiles_I >= 1 &&
        s.tiles_J >= 1)
      return true;
    *error = fmt::format("expected tiles=TIxTJ with positive integers, got '{}'", value);
    return false;
  }
  i64* field = key == "chunk" ? &s.chunk : &s.slots;
  if (parse_int(value, field) && *field >= 1) return true;
  *error = fmt::format("{} must be a positive integer, got '{}'", key, value);
  return false;
}

bool SfcMethod::check_valid(const Plan& plan, const Machine& machine, std::string* reason) const {
  const SfcPlan& s = sfc_plan(plan);
  if (s.tiles_I > plan.I.extent() || s.tiles_J > plan.J.extent() || s.chunk > plan.K.extent() || s.slots < 2) {
    if (reason)
      *reason = fmt::format(
          "sfc needs tiles_I <= {}, tiles_J <= {}, chunk <= {} and at least 2 slots; got tiles={}x{} "
          "chunk={} slots={}",
          plan.I.extent(), plan.J.extent(), plan.K.extent(), s.tiles_I, s.tiles_J, s.chunk, s.slots);
    return false;
  }
  return fits_memory_exact(plan, machine, reason);
}

PlanVolumes SfcMethod::volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                               std::int64_t end_rank) const {
  const std::vector<SfcRankWalk> w = sfc_walk(plan, nullptr);
  PlanVolumes v;
  for (i64 r = first_rank; r < end_rank; ++r)
    append_rank(v, 1.0, machine, w[static_cast<std::size_t>(r)].read, w[static_cast<std::size_t>(r)].written, 0, 0);
  return v;
}

PlanVolumes SfcMethod::walk(const Plan& plan, const Machine& machine) const {
  PlanVolumes v;
  for (const SfcRankWalk& w : sfc_replay(plan)) append_rank(v, 1.0, machine, w.read, w.written, 0, 0);
  return v;
}

std::vector<std::uint64_t> SfcMethod::disk_requests(const Plan& plan, const ArrayAccess& access) const {
  std::vector<std::uint64_t> out;
  for (const SfcRankWalk& w : sfc_walk(plan, &access)) out.push_back(w.requests);
  return out;
}

double SfcMethod::rank_flops(const Plan& plan, std::int64_t rank) const {
  const SfcSchedule s = sfc_schedule(plan);
  const SfcPlan& p = sfc_plan(plan);
  double elements = 0;  // of C in the rank's segment
  for (i64 at = s.segment[static_cast<std::size_t>(rank)]; at < s.segment[static_cast<std::size_t>(rank) + 1]; ++at) {
    const i64 t = s.order[static_cast<std::size_t>(at)];
    elements += static_cast<double>(piece(plan.I.extent(), p.tiles_I, t / p.tiles_J) *
                                    piece(plan.J.extent(), p.tiles_J, t % p.tiles_J));
  }
  return 2.0 * elements * static_cast<double>(plan.K.extent());
}

TileBytes SfcMethod::tile_bytes(const Plan& plan, double element_size_bytes) const {
  const auto e = static_cast<std::uint64_t>(element_size_bytes);
  return {e * static_cast<std::uint64_t>(sfc_plan(plan).slots * sfc_slot_elements(plan)), 0,
          e * static_cast<std::uint64_t>(sfc_tile_elements(plan))};
}

std::vector<MemoryPart> SfcMethod::memory_parts(const Plan&, const TileBytes& t) const {
  return {{"C tile", t.C, false}, {"panel slots", t.A, false}};
}

StageElements SfcMethod::stage_elements(const Plan&, std::int64_t) const {
  StageElements e;
  e.C_start = 0;  // C's current tiles are read in the compute stage, straight from its file
  return e;
}

const Method& sfc_method() {
  static const SfcMethod kMethod;
  return kMethod;
}

}  // namespace tcec::costmodel
