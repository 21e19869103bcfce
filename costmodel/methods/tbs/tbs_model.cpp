// costmodel/methods/tbs/tbs_method.cpp — TBS (Beaumont et al. SPAA'22 §5.1; family.h) as a
// Method (method.h): when it applies, the memory split between C blocks and A panels, the plan
// text, buffers and validity. Volumes: tbs_volumes.cpp; report: tbs_report.cpp.
#include "costmodel/methods/tbs/tbs_method.h"

#include <cmath>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/plan_text.h"
#include "costmodel/reasons.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;

/// Fractions of the memory the C blocks may take; the A panel gets the rest. The planner
/// keeps the fastest: fewer A rows read with larger blocks, longer panel runs with more rest,
/// and on several ranks more (smaller) blocks to deal evenly.
constexpr double kBlockShares[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.96, 0.98};
/// Streaming (family.h TbsStream): shares of the memory the resident panel, a streamed group and
/// a stream tile take; a stream block lists at most this many ranges (the generated program
/// holds them as constants), so groups have at least ⌈|I| / it⌉ rows (and 4 and 16 times that).
constexpr double kPanelShares[] = {0.5, 0.7, 0.85, 0.95};
constexpr i64 kMaxStreamRanges = 1024;
/// Panels of fewer K columns than this (or |K|) make the tile kernel a matrix-vector product.
constexpr i64 kMinChunk = 8;

/// Why tbs does not apply to the contraction (empty: it applies).
std::string not_applicable(const ContractionAnalysis& a, const PlanOptions& options) {
  if (!a.gemm.symmetric) return reason_text(ReasonId::tbs_not_symmetric);
  if (!options.symmetry) return reason_text(ReasonId::tbs_no_symmetry);
  if (a.accumulate) return reason_text(ReasonId::tbs_accumulates);
  if (a.declared.any()) return reason_text(ReasonId::tbs_declared);
  return {};
}

}  // namespace

TbsSchedule tbs_schedule(const Plan& plan) {
  // The volumes, requests, flops and buffers of one plan each ask for its family: keep the last.
  struct Last {
    i64 n = -1, words = -1, processors = -1;
    TbsStream stream;
    TbsSchedule schedule;
  };
  thread_local Last last;
  const TbsPlan& t = tbs_plan(plan);
  const TbsStream stream{t.panel, t.group, plan.K.extent()};
  const i64 n = plan.I.extent();
  if (last.n != n || last.words != t.block_words || last.processors != plan.processors ||
      last.stream.panel != stream.panel || last.stream.group != stream.group || last.stream.columns != stream.columns)
    last = {n, t.block_words, plan.processors, stream, tbs_schedule(n, t.block_words, plan.processors, stream)};
  return last.schedule;
}

bool TbsMethod::owns(const Plan& plan) const { return std::holds_alternative<TbsPlan>(plan.method); }

void TbsMethod::analyze(MethodAnalysis& ctx) const {
  const ContractionAnalysis& a = ctx.analysis();
  const Machine& machine = ctx.machine();
  const Groups& groups = ctx.groups();
  auto detail = std::make_shared<TbsDetail>();
  detail->reason = not_applicable(a, ctx.options());
  detail->applies = detail->reason.empty();
  ctx.keep_detail(*this, detail);
  const bool forced = ctx.options().force_method && *ctx.options().force_method == name();
  if (!detail->applies && !forced) return;  // no row for the many contractions it does not fit
  PlannedCandidate best;
  best.reason = detail->reason;
  const auto S = static_cast<i64>(machine.memory_bytes / machine.element_size_bytes);
  const i64 n = groups.I.extent(), m = groups.K.extent();
  const ArrayAccess access{true, true, true, a.gemm.perm_A, a.gemm.perm_B, a.gemm.perm_C};
  // One candidate: the family for C blocks of `words` elements (and streaming), its panels
  // given the rest of the memory; kept when feasible and faster than the best so far.
  auto consider = [&](i64 words, const TbsStream& stream, i64 panel_budget) {
    const TbsSchedule s = tbs_schedule(n, words, machine.processors, stream);
    if (s.blocks.empty() || s.block_elements >= S) return;
    const i64 room = std::min(S - s.block_elements, panel_budget);
    const i64 chunk = s.panel_rows > 0 ? std::min(m, room / s.panel_rows) : m;
    if (chunk < std::min(m, kMinChunk) || s.block_elements + s.buffer_rows(chunk) * chunk > S) return;
    PlannedCandidate pc;
    pc.plan = {machine.processors,
               groups.I,
               groups.J,
               groups.K,
               ctx.options().split,
               false,
               TbsPlan{words, chunk, stream.panel, stream.group}};
    pc.feasible = true;
    pc.volumes = plan_volumes(pc.plan, machine);
    plan_requests(pc.plan, machine, access, pc.volumes);
    if (!best.feasible || pc.volumes.wall_s < best.volumes.wall_s) best = pc;
  };
  if (detail->applies) {
    for (double share : kBlockShares) consider(static_cast<i64>(std::floor(static_cast<double>(S) * share)), {}, S);
    // Streaming panels of R rows with all K columns: the panel and a streamed group,
    // (R + group)·|K|, and a stream tile, R·group, take `share` of the memory; the C buffer
    // (stream tiles and the C blocks of the panels' triangles) has what the panel leaves.
    const i64 fewest = std::max<i64>(1, (n + kMaxStreamRanges - 1) / kMaxStreamRanges);
    for (double share : kPanelShares)
      for (i64 group : {fewest, 4 * fewest, 16 * fewest}) {
        const auto budget = static_cast<i64>(std::floor(static_cast<double>(S) * share));
        const i64 panel = std::min(n, (budget - group * m) / (m + group));
        if (panel < 1 || panel >= n) continue;
        consider(S - (panel + group) * m, TbsStream{panel, group, m}, (panel + group) * m);
      }
  }
  if (detail->applies && !best.feasible)
    best.reason = reason_text(ReasonId::tbs_no_family_fits_memory, S, std::min(m, kMinChunk));
  const ModelPoint point = exact_row(*this, best, machine);
  ctx.add_row(point);
  const bool allowed = ctx.allows(*this, std::nullopt);
  if (allowed && best.feasible) best.redistribution = redistribution_volumes(best.plan, machine, false);
  ctx.add_candidate(*this, point, best, allowed);
}

void TbsMethod::start_plan(Plan* plan) const { plan->method = TbsPlan{}; }

std::string TbsMethod::plan_text(const Plan& plan) const {
  const TbsPlan& t = tbs_plan(plan);
  const std::string stream = t.panel > 0 ? fmt::format(" panel={} group={}", t.panel, t.group) : std::string();
  return fmt::format("tbs block={} chunk={}{} P={} split={}", t.block_words, t.chunk, stream, plan.processors,
                     split_name(plan.split));
}

std::vector<std::string> TbsMethod::fields() const { return {"block", "chunk", "panel", "group"}; }

bool TbsMethod::parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const {
  TbsPlan& t = std::get<TbsPlan>(plan->method);
  i64* field = key == "block" ? &t.block_words : key == "chunk" ? &t.chunk : key == "panel" ? &t.panel : &t.group;
  if (parse_int(value, field) && *field >= 1) return true;
  *error = fmt::format("{} must be a positive integer, got '{}'", key, value);
  return false;
}

bool TbsMethod::check_valid(const Plan& plan, const Machine& machine, std::string* reason) const {
  const TbsPlan& t = tbs_plan(plan);
  const i64 n = plan.I.extent(), m = plan.K.extent();
  if (n != plan.J.extent()) {
    if (reason) *reason = reason_text(ReasonId::tbs_not_square, n, plan.J.extent());
    return false;
  }
  if (t.chunk < 1 || t.chunk > m) {
    if (reason) *reason = reason_text(ReasonId::tbs_chunk, t.chunk, m);
    return false;
  }
  if ((t.panel > 0) != (t.group > 0)) {
    if (reason) *reason = reason_text(ReasonId::tbs_stream_pair, t.panel, t.group);
    return false;
  }
  if (tbs_rows_read(t.panel > 0 ? std::min(n, t.panel) : n, t.block_words) < 0) {
    if (reason) *reason = reason_text(ReasonId::tbs_no_family_fits_blocks, n, t.block_words);
    return false;
  }
  return fits_memory_exact(plan, machine, reason);
}

TileBytes TbsMethod::tile_bytes(const Plan& plan, double element_size_bytes) const {
  const TbsSchedule s = tbs_schedule(plan);
  const auto e = static_cast<std::uint64_t>(element_size_bytes);
  const i64 chunk = tbs_plan(plan).chunk;
  return {e * static_cast<std::uint64_t>(s.buffer_rows(chunk) * chunk), 0,
          e * static_cast<std::uint64_t>(s.block_elements)};
}

std::vector<MemoryPart> TbsMethod::memory_parts(const Plan&, const TileBytes& t) const {
  return {{"C block", t.C, false}, {"A panel", t.A, false}};
}

StageElements TbsMethod::stage_elements(const Plan&, std::int64_t) const { return {}; }

const Method& tbs_method() {
  static const TbsMethod kMethod;
  return kMethod;
}

}  // namespace tcec::costmodel
