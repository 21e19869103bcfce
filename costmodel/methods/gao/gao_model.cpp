// costmodel/methods/gao/gao_model.cpp — the six methods of Gao et al.'s models (method_model.h):
// analysis (closed-form model optima, integer plans, declared distributions), volumes, flops,
// buffers and stages 1 and 3. Their plan codec is gao_codec.cpp, their report gao_report.cpp.
#include "costmodel/methods/gao/gao_method.h"

#include <algorithm>

#include "costmodel/analysis.h"
#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/gao/model_optimum.h"
#include "costmodel/methods/gao/plan_search.h"
#include "costmodel/methods/gao/simulate.h"
#include "costmodel/partition.h"

namespace tcec::costmodel {

namespace {

using u64 = std::uint64_t;

/// With declared distributions, the plan's distribution indices that could match them: each
/// group's chosen index and every index of the group a declared distribution splits; the
/// variant of least compute-plus-redistribution time replaces `p` (ties keep the search's).
void match_declared(PlannedCandidate& p, const ContractionAnalysis& a, const Machine& machine) {
  std::vector<std::string> split;  // index names some declared (or kept) layout splits
  auto add = [&](const std::optional<TensorLayout>& layout, const std::vector<std::string>& names) {
    if (!layout) return;
    for (std::size_t d = 0; d < layout->dims.size(); ++d)
      if (layout->dims[d].parts > 1) split.push_back(names[d]);
  };
  add(a.declared.A, a.declared.names_A);
  add(a.declared.B, a.declared.names_B);
  add(a.declared.C, a.declared.names_C);
  add(a.declared.C_in, a.declared.names_C);
  auto choices = [&](const GroupTiling& g) {
    std::vector<int> out{g.dist};
    if (g.dist < 0) return out;
    for (std::size_t i = 0; i < g.indices.size(); ++i)
      if (static_cast<int>(i) != g.dist && std::count(split.begin(), split.end(), g.indices[i].name))
        out.push_back(static_cast<int>(i));
    return out;
  };
  const Plan base = p.plan;
  for (int di : choices(base.I))
    for (int dj : choices(base.J))
      for (int dk : choices(base.K)) {
        if (di == base.I.dist && dj == base.J.dist && dk == base.K.dist) continue;
        PlannedCandidate v;
        v.plan = base;
        v.plan.I.dist = di;
        v.plan.J.dist = dj;
        v.plan.K.dist = dk;
        if (!check_valid(v.plan, machine, nullptr)) continue;
        v.feasible = true;
        v.volumes = plan_volumes(v.plan, machine);
        v.redistribution = redistribution_volumes(v.plan, machine, a.accumulate, &a.declared);
        if (v.total_s() < p.total_s()) p = v;
      }
}

/// Elements of `group` held by part p of g (p < 0 or g == 1: all of it).
u64 share(const GroupTiling& group, std::int64_t g, std::int64_t p) {
  return static_cast<u64>(p < 0 ? group.extent() : group_share(group, g, p));
}

}  // namespace

void GaoModel::analyze(MethodAnalysis& ctx) const {
  const ContractionAnalysis& a = ctx.analysis();
  const Machine& machine = ctx.machine();
  ModelPoint best = best_model_optimum(a.problem, machine, comm_, algorithm_);
  ctx.add_row(best);
  for (PlacementOrder order : kAllOrders) {
    for (Operand r : {Operand::A, Operand::B}) {
      if (r == Operand::B && algorithm_ != Algorithm::Replication) continue;
      ModelPoint model = model_optimum(a.problem, machine, comm_, algorithm_, order, r);
      const TileCounts hint = model.feasible ? model.tiles : TileCounts{};
      const bool allowed = ctx.allows(order);
      auto plan = [&](bool overlap) {
        // With overlap the tiles get half the memory: their second buffers take the rest.
        Machine room = machine;
        if (overlap) room.memory_bytes /= 2;
        PlannedCandidate p = plan_candidate(ctx.groups(), room, comm_, algorithm_, order, r, ctx.options().split, hint,
                                            a.accumulate, &a);
        if (overlap && p.feasible) {
          gao(p.plan).overlap = true;
          p.feasible = check_valid(p.plan, machine, &p.reason);
        }
        if (p.feasible) p.volumes = plan_volumes(p.plan, machine);
        if (allowed && p.feasible) {
          p.redistribution = redistribution_volumes(p.plan, machine, a.accumulate, &a.declared);
          if (a.declared.any()) match_declared(p, a, machine);
        }
        return p;
      };
      PlannedCandidate p = plan(false);
      // At overlap 0 an overlapped plan's tiles would run no faster than serially (plus the fill).
      if (ctx.options().overlap && ctx.options().split == MemorySplit::Optimal && machine.overlap > 0) {
        PlannedCandidate q = plan(true);
        if (q.feasible && (!p.feasible || q.total_s() < p.total_s())) p = std::move(q);
      }
      ctx.add_candidate(model, p, allowed);
    }
  }
}

PlanVolumes GaoModel::volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                              std::int64_t end_rank) const {
  return gao_volumes(plan, machine, first_rank, end_rank);
}

std::vector<std::uint64_t> GaoModel::disk_requests(const Plan& plan, const ArrayAccess& access) const {
  return gao_requests(plan, access);
}

PlanVolumes GaoModel::walk(const Plan& plan, const Machine& machine) const { return gao_simulate(plan, machine); }

double GaoModel::collective_factor(const Plan&, const Machine& m) const {
  // docs/model.md "Collective factors": f_rep multiplies broadcast traffic, f_red all-reduce traffic.
  return algorithm_ == Algorithm::Replication    ? m.replication_factor
         : algorithm_ == Algorithm::Accumulation ? m.reduction_factor
                                                 : 1.0;
}

TileBytes GaoModel::tile_bytes(const Plan& plan, double element_size_bytes) const {
  return gao_tile_bytes(plan, element_size_bytes);
}

std::vector<MemoryPart> GaoModel::memory_parts(const Plan& plan, const TileBytes& t) const {
  std::vector<MemoryPart> out = {{"tile of A", t.A, false}, {"tile of B", t.B, false}, {"tile of C", t.C, false}};
  if (gao(plan).overlap)  // the I/O thread's buffers (runtime gao_spec.h method_buffers())
    out.insert(out.end(),
               {{"second tile of A", t.A, false}, {"second tile of B", t.B, false}, {"second tile of C", t.C, false}});
  return out;
}

double GaoModel::rank_flops(const Plan& plan, std::int64_t rank) const {
  // Its C part times the K it sums over: all of K (rotation cycles it in, replication gathers
  // it), or its K part (accumulation).
  const GridParts parts = grid_parts(plan);
  const RankParts rp = rank_parts(plan, rank);
  const double K = algorithm_ == Algorithm::Accumulation ? static_cast<double>(share(plan.K, plan.processors, rank))
                                                         : static_cast<double>(plan.K.extent());
  return 2.0 * static_cast<double>(share(plan.I, parts.C.rows, rp.C_rows)) *
         static_cast<double>(share(plan.J, parts.C.cols, rp.C_cols)) * K;
}

double GaoModel::kernel_efficiency(const Plan& plan, const Machine& machine, std::int64_t rank) const {
  // The runtime's local_gemm: one call per finest tile of the rank's C part and K tile, of
  // the K a call sums: a grid part's (rotation, Cannon's steps), a rank's piece (replication:
  // one call per piece of the broadcast operand), or its own part (accumulation). Mean sizes.
  const GridParts parts = grid_parts(plan);
  const RankParts rp = rank_parts(plan, rank);
  const double K = algorithm_ == Algorithm::Accumulation ? static_cast<double>(share(plan.K, plan.processors, rank))
                   : algorithm_ == Algorithm::Rotation
                       ? static_cast<double>(plan.K.extent()) / static_cast<double>(parts.grid_cols)
                       : static_cast<double>(plan.K.extent()) / static_cast<double>(plan.processors);
  const auto tiles = [](const GroupTiling& g) { return static_cast<double>(g.t1() * g.t2()); };
  return gemm_efficiency(static_cast<double>(share(plan.I, parts.C.rows, rp.C_rows)) / tiles(plan.I),
                         static_cast<double>(share(plan.J, parts.C.cols, rp.C_cols)) / tiles(plan.J), K / tiles(plan.K),
                         machine);
}

int GaoModel::buffer_sets(const Plan& plan) const { return gao(plan).overlap ? 2 : 1; }

bool GaoModel::reads_operands_directly(const Plan&) const { return comm_ == Communication::Inside; }

bool GaoModel::writes_result_directly(const Plan&) const {
  return !(comm_ == Communication::Outside && algorithm_ == Algorithm::Accumulation);
}

std::vector<std::uint64_t> GaoModel::stage_requests(const Plan& plan, const StageAccess& access) const {
  return gao_stage_requests(plan, access, reads_operands_directly(plan));
}

StageElements GaoModel::stage_elements(const Plan& plan, std::int64_t rank) const {
  StageElements out;
  const GridParts parts = grid_parts(plan);
  const RankParts rp = rank_parts(plan, rank);
  if (!reads_operands_directly(plan)) {  // tiled copies of A and B (stage 1)
    out.A = share(plan.I, parts.A.rows, rp.A_rows) * share(plan.K, parts.A.cols, rp.A_cols);
    out.B = share(plan.J, parts.B.rows, rp.B_rows) * share(plan.K, parts.B.cols, rp.B_cols);
  }
  out.owns_C = algorithm_ != Algorithm::Accumulation || rank == 0;  // accumulation: C whole on rank 0
  out.C = out.owns_C ? share(plan.I, parts.C.rows, rp.C_rows) * share(plan.J, parts.C.cols, rp.C_cols) : 0;
  return out;
}

}  // namespace tcec::costmodel
