// costmodel/methods/cosma/cosma_method.cpp — COSMA (Kwasniewski et al., seed 000; cosma.h) as a
// Method (method.h): its analysis (the fitted strategy and its exact schedule), plan text,
// buffers, validity and volumes. Its report is in cosma_report.cpp.
#include "costmodel/methods/cosma/cosma_method.h"

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/methods/pass_runs.h"
#include "costmodel/partition.h"
#include "costmodel/plan_text.h"
#include "costmodel/reasons.h"

namespace tcec::costmodel {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Cosma: rank 0's A slice, B slice and C block (cosma.h "Memory per rank").
TileBytes cosma_buffers(const Plan& plan, double element_size_bytes) {
  const CosmaGrid& g = cosma_grid(plan);
  const auto e = static_cast<std::uint64_t>(element_size_bytes);
  const auto bm = static_cast<std::uint64_t>(ceil_div(plan.I.extent(), g.pm));
  const auto bn = static_cast<std::uint64_t>(ceil_div(plan.J.extent(), g.pn));
  const auto slice = static_cast<std::uint64_t>(ceil_div(ceil_div(plan.K.extent(), g.pk), g.rounds));
  const std::uint64_t buffers = g.rounds > 1 ? 2 : 1;  // double-buffered slices over rounds (§7.3)
  return {buffers * e * bm * slice, buffers * e * bn * slice, e * bm * bn};
}

/// Cosma's grid and rounds (plan.h check_valid()); memory is checked by the caller.
bool check_cosma(const Plan& plan, std::string* reason) {
  const CosmaGrid& g = cosma_grid(plan);
  const std::int64_t extents[] = {plan.I.extent(), plan.J.extent(), plan.K.extent()};
  const std::int64_t parts[] = {g.pm, g.pn, g.pk};
  const char* names[] = {"pm", "pn", "pk"};
  for (int i = 0; i < 3; ++i) {
    if (parts[i] >= 1 && parts[i] <= extents[i]) continue;
    if (reason)
      *reason =
          reason_text(ReasonId::cosma_grid_extent, names[i], parts[i], "IJK"[i], extents[i], names[i], extents[i]);
    return false;
  }
  if (g.used() > plan.processors) {
    if (reason) *reason = reason_text(ReasonId::cosma_grid_ranks, g.pm, g.pn, g.pk, g.used(), plan.processors);
    return false;
  }
  const std::int64_t fewest_k = extents[2] / g.pk;  // the fewest K columns a rank of the grid holds
  if (g.rounds < 1 || g.rounds > fewest_k) {
    if (reason) *reason = reason_text(ReasonId::cosma_rounds, g.rounds, fewest_k);
    return false;
  }
  return true;
}

// "2x1x3" into the cosma grid.
bool parse_grid(std::string_view text, CosmaGrid* g, std::string* error) {
  auto parts = split_text(text, 'x');
  if (parts.size() == 3 && parse_int(parts[0], &g->pm) && parse_int(parts[1], &g->pn) && parse_int(parts[2], &g->pk) &&
      g->pm >= 1 && g->pn >= 1 && g->pk >= 1)
    return true;
  *error = fmt::format("expected grid=PMxPNxPK with positive integers, got '{}'", text);
  return false;
}

}  // namespace

bool CosmaMethod::owns(const Plan& plan) const { return std::holds_alternative<CosmaGrid>(plan.method); }

void CosmaMethod::analyze(MethodAnalysis& ctx) const {
  const ContractionAnalysis& a = ctx.analysis();
  const Machine& machine = ctx.machine();
  const Groups& groups = ctx.groups();
  const double S = machine.memory_bytes / machine.element_size_bytes;
  auto detail = std::make_shared<CosmaDetail>();
  detail->strategy =
      cosma_strategy(a.gemm.extent_I, a.gemm.extent_J, a.gemm.extent_K, machine.processors, S, -1, ctx.options().split);
  const CosmaStrategy& s = detail->strategy;
  ctx.keep_detail(*this, detail);
  PlannedCandidate pc;
  pc.plan = {machine.processors, groups.I, groups.J, groups.K, ctx.options().split, a.accumulate, s.grid};
  pc.feasible = s.feasible;
  pc.reason = s.reason;
  if (pc.feasible && a.declared.any()) {  // the blocked layout has no TensorLayout (layout.h)
    pc.feasible = false;
    const std::string declared = a.declared.which();
    pc.reason = declared.empty() ? reason_text(ReasonId::cosma_kept_tensors)
                                 : reason_text(ReasonId::cosma_declared_distribution, declared);
  }
  if (pc.feasible) pc.volumes = plan_volumes(pc.plan, machine);
  const ModelPoint point = exact_row(*this, pc, machine);
  ctx.add_row(point);
  const bool allowed = ctx.allows(*this, std::nullopt);
  if (allowed && pc.feasible) pc.redistribution = redistribution_volumes(pc.plan, machine, a.accumulate);
  ctx.add_candidate(*this, point, pc, allowed);
}

void CosmaMethod::start_plan(Plan* plan) const { plan->method = CosmaGrid{}; }

std::string CosmaMethod::plan_text(const Plan& plan) const {
  const CosmaGrid& g = cosma_grid(plan);
  return fmt::format("cosma grid={}x{}x{} rounds={} P={} split={}", g.pm, g.pn, g.pk, g.rounds, plan.processors,
                     split_name(plan.split));
}

std::vector<std::string> CosmaMethod::fields() const { return {"grid", "rounds"}; }

bool CosmaMethod::parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const {
  CosmaGrid& g = std::get<CosmaGrid>(plan->method);
  if (key == "grid") return parse_grid(value, &g, error);
  if (parse_int(value, &g.rounds) && g.rounds >= 1) return true;  // rounds
  *error = fmt::format("rounds must be a positive integer, got '{}'", value);
  return false;
}

bool CosmaMethod::check_valid(const Plan& plan, const Machine& machine, std::string* reason) const {
  return check_cosma(plan, reason) && fits_memory_exact(plan, machine, reason);
}

PlanVolumes CosmaMethod::volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                                 std::int64_t end_rank) const {
  return cosma_volumes(cosma_grid(plan), plan.I.extent(), plan.J.extent(), plan.K.extent(), machine, first_rank,
                       end_rank);
}

std::vector<std::uint64_t> CosmaMethod::disk_requests(const Plan& plan, const ArrayAccess&) const {
  std::vector<std::uint64_t> out;  // the tensors' files are read in stage 1 only
  for (std::int64_t rank = 0; rank < plan.processors; ++rank)
    out.push_back(cosma_rank_words(cosma_grid(plan), plan.I.extent(), plan.J.extent(), plan.K.extent(), rank).requests);
  return out;
}

std::vector<std::uint64_t> CosmaMethod::stage_requests(const Plan& plan, const StageAccess& s) const {
  using i64 = std::int64_t;
  constexpr i64 kLoadChunkElems = i64{1} << 16;  // runtime/methods/cosma/cosma.cpp kChunk: one write per chunk
  const CosmaGrid g = cosma_grid(plan);
  const std::size_t ni = plan.I.indices.size(), nj = plan.J.indices.size(), nk = plan.K.indices.size();
  PassRuns runs_A(group_extents(plan.I, plan.K), s.perm_A, 0, ni, ni, nk);
  PassRuns runs_B(group_extents(plan.J, plan.K), s.perm_B, 0, nj, nj, nk);
  PassRuns runs_C(group_extents(plan.I, plan.J), s.perm_C, 0, ni, ni, nj);
  const i64 m = plan.I.extent(), n = plan.J.extent(), k = plan.K.extent();
  std::vector<std::uint64_t> out;
  for (i64 rank = 0; rank < plan.processors; ++rank) {
    if (rank >= g.used()) {  // idle
      out.push_back(0);
      continue;
    }
    const i64 x = rank / (g.pn * g.pk), y = rank / g.pk % g.pn, z = rank % g.pk;
    const i64 Ix = piece(m, g.pm, x), Jy = piece(n, g.pn, y), Kz = piece(k, g.pk, z);
    const i64 I0 = piece_start(m, g.pm, x), J0 = piece_start(n, g.pn, y), K0 = piece_start(k, g.pk, z);
    std::uint64_t req = 0;
    // Own piece `me` of `ways` of every slice of an operand with `rows` rows from `first_row`.
    auto load = [&](PassRuns& runs, i64 first_row, i64 rows, i64 ways, i64 me) {
      runs.begin();
      for (i64 j = 0; j < g.rounds; ++j) {
        const i64 cols = piece(Kz, g.rounds, j), total = rows * cols;
        const i64 start = piece_start(total, ways, me), length = piece(total, ways, me);
        if (length == 0) continue;
        const i64 c0 = K0 + piece_start(Kz, g.rounds, j);
        if (!runs.rows_innermost()) {
          runs.range(first_row, c0, cols, start, start + length);
        } else {  // runtime/methods/cosma/cosma.cpp: a resident round in one pass, a streamed one chunk by chunk,
                  // each pass's whole rows column by column
          const i64 pass = j < g.buffers() ? length : kLoadChunkElems;
          for (i64 done = 0; done < length; done += pass)
            runs.range_by_columns(first_row, c0, cols, start + done, start + std::min(length, done + pass));
        }
        if (j >= g.buffers()) req += static_cast<std::uint64_t>((length + kLoadChunkElems - 1) / kLoadChunkElems);
      }
      req += runs.runs();
    };
    load(runs_A, I0, Ix, g.pn, y);
    load(runs_B, J0, Jy, g.pm, x);
    if (Ix * Jy == 0) {
      out.push_back(req);
      continue;
    }
    if (s.accumulate && z == 0) req += runs_C.block(I0, Ix, J0, Jy);  // C's start values into the block
    if (s.store_result) {                                             // stage 3: the reduced piece
      runs_C.begin();
      runs_C.range(I0, J0, Jy, piece_start(Ix * Jy, g.pk, z), piece_start(Ix * Jy, g.pk, z) + piece(Ix * Jy, g.pk, z));
      req += runs_C.runs();
    }
    out.push_back(req);
  }
  return out;
}

double CosmaMethod::rank_flops(const Plan& plan, std::int64_t rank) const {
  const CosmaGrid g = cosma_grid(plan);
  if (rank >= g.used()) return 0;  // idle
  const std::int64_t x = rank / (g.pn * g.pk), y = rank / g.pk % g.pn, z = rank % g.pk;
  return 2.0 * static_cast<double>(piece(plan.I.extent(), g.pm, x)) *
         static_cast<double>(piece(plan.J.extent(), g.pn, y)) * static_cast<double>(piece(plan.K.extent(), g.pk, z));
}

double CosmaMethod::kernel_efficiency(const Plan& plan, const Machine& machine, std::int64_t rank) const {
  // A round multiplies the rank's local domain over its round's share of the K columns.
  const CosmaGrid g = cosma_grid(plan);
  if (rank >= g.used()) return 1;  // idle
  const std::int64_t x = rank / (g.pn * g.pk), y = rank / g.pk % g.pn, z = rank % g.pk;
  return gemm_efficiency(static_cast<double>(piece(plan.I.extent(), g.pm, x)),
                         static_cast<double>(piece(plan.J.extent(), g.pn, y)),
                         static_cast<double>(piece(plan.K.extent(), g.pk, z)) / static_cast<double>(g.rounds), machine);
}

PlanVolumes CosmaMethod::walk(const Plan& plan, const Machine& machine) const {
  return cosma_walk(cosma_grid(plan), plan.I.extent(), plan.J.extent(), plan.K.extent(), machine);
}

TileBytes CosmaMethod::tile_bytes(const Plan& plan, double element_size_bytes) const {
  return cosma_buffers(plan, element_size_bytes);
}

std::vector<MemoryPart> CosmaMethod::memory_parts(const Plan&, const TileBytes& t) const {
  return {{"C block", t.C, false}, {"A slices", t.A, false}, {"B slices", t.B, false}};
}

StageElements CosmaMethod::stage_elements(const Plan& plan, std::int64_t rank) const {
  StageElements out;
  const CosmaGrid& g = cosma_grid(plan);
  const CosmaRankWords w = cosma_rank_words(g, plan.I.extent(), plan.J.extent(), plan.K.extent(), rank);
  out.C = w.result;  // its piece of C
  out.A = w.owned;   // its pieces of every A and B slice (cosma has no declared layouts)
  out.spilled = w.read;
  out.owns_C = rank < g.used();
  out.C_start = 0;
  if (out.owns_C && rank % g.pk == 0) {  // rank (x,y,0) starts its C block from C's old values
    const std::int64_t x = rank / (g.pn * g.pk), y = rank / g.pk % g.pn;
    out.C_start = static_cast<std::uint64_t>(piece(plan.I.extent(), g.pm, x) * piece(plan.J.extent(), g.pn, y));
  }
  return out;
}

double CosmaMethod::resident_bytes(const Plan& plan, std::int64_t rank, double element_size_bytes) const {
  // Own pieces loaded straight into the slice buffers from the operands' files (cosma.h).
  const CosmaRankWords w = cosma_rank_words(cosma_grid(plan), plan.I.extent(), plan.J.extent(), plan.K.extent(), rank);
  return static_cast<double>(w.owned - w.read) * element_size_bytes;
}

const Method& cosma_method() {
  static const CosmaMethod kMethod;
  return kMethod;
}

}  // namespace tcec::costmodel
