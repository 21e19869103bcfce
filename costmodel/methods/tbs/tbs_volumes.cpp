// costmodel/methods/tbs/tbs_volumes.cpp — a tbs plan's exact per-rank volumes, disk requests and
// flops, counted from its blocks as the runtime runs them (runtime/spec/tbs_spec.h THE SCHEDULE), an
// independent walk of the same schedule for the tests, and the SYRK lower bound.
#include <algorithm>
#include <cmath>

#include "costmodel/methods/pass_runs.h"
#include "costmodel/methods/tbs/tbs_method.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

}  // namespace

std::vector<TbsRankWork> tbs_rank_work(const Plan& plan, const TbsSchedule& s) {
  std::vector<TbsRankWork> out(static_cast<std::size_t>(plan.processors));
  const auto m = static_cast<u64>(plan.K.extent());
  for (const TbsBlock& b : s.blocks) {
    TbsRankWork& w = out[static_cast<std::size_t>(b.rank)];
    w.read += static_cast<u64>(b.rows()) * m;
    w.written += static_cast<u64>(b.written());
    w.multiply_adds += static_cast<double>(b.pairs()) * static_cast<double>(m);
    ++w.blocks;
  }
  return out;
}

std::vector<u64> tbs_requests(const Plan& plan, const TbsSchedule& s, const std::vector<int>& perm_A,
                              const std::vector<int>& perm_C, std::vector<u64>* faults) {
  const std::size_t ni = plan.I.indices.size(), nk = plan.K.indices.size();
  const std::vector<i64> eA = group_extents(plan.I, plan.K), eC = group_extents(plan.I, plan.J);
  PanelRuns panel(eA, perm_A, ni, nk);
  PassRuns tile(eC, perm_C, 0, ni, ni, ni);
  const i64 m = plan.K.extent(), chunk = tbs_plan(plan).chunk;
  std::vector<u64> out(static_cast<std::size_t>(plan.processors), 0);
  if (faults) faults->assign(out.size(), 0);
  for (const TbsBlock& b : s.blocks) {
    u64& mine = out[static_cast<std::size_t>(b.rank)];
    auto panel_pass = [&] {  // A's panel
      mine += panel.runs();
      if (faults) (*faults)[static_cast<std::size_t>(b.rank)] += panel.faults();
    };
    auto pass = [&](std::size_t rows, std::size_t cols) {  // C[R_rows, R_cols]
      tile.start(b.starts[cols], b.lengths[cols]);
      tile.rows(b.starts[rows], b.lengths[rows]);
      mine += tile.runs();
    };
    if (b.stream) {  // R_0 whole, then each R_u whole, its tile and the mirror
      for (std::size_t u = 0; u < b.starts.size(); ++u) {
        panel.pass(b.starts[u], b.lengths[u], 0, m);
        panel_pass();
        if (u > 0) pass(u, 0), pass(0, u);
      }
      continue;
    }
    std::vector<PanelRows> rows;
    for (std::size_t u = 0; u < b.starts.size(); ++u) rows.emplace_back(b.starts[u], b.lengths[u]);
    for (i64 k0 = 0; k0 < m; k0 += chunk) {  // one pass per A panel
      panel.pass(rows, k0, std::min(chunk, m - k0));
      panel_pass();
    }
    for (std::size_t u = 0; u < b.starts.size(); ++u)
      for (std::size_t v = 0; v < u; ++v) pass(u, v), pass(v, u);  // the tile, then its mirror
    if (b.diagonal)
      for (std::size_t u = 0; u < b.starts.size(); ++u) pass(u, u);
  }
  return out;
}

PlanVolumes TbsModel::volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                              std::int64_t end_rank) const {
  const std::vector<TbsRankWork> work = tbs_rank_work(plan, tbs_schedule(plan));
  PlanVolumes v;
  for (i64 r = first_rank; r < end_rank; ++r) {
    const TbsRankWork& w = work[static_cast<std::size_t>(r)];
    append_rank(v, 1.0, machine, w.read, w.written, 0, 0);  // no network: every rank reads its rows
  }
  return v;
}

PlanVolumes TbsModel::walk(const Plan& plan, const Machine& machine) const {
  // Block by block, panel by panel and tile by tile, as the runtime moves them.
  const TbsSchedule s = tbs_schedule(plan);
  const i64 m = plan.K.extent(), chunk = tbs_plan(plan).chunk;
  std::vector<u64> read(static_cast<std::size_t>(plan.processors), 0), written(read);
  for (const TbsBlock& b : s.blocks) {
    const auto q = static_cast<std::size_t>(b.rank);
    if (b.stream) {  // every range once, all K; each tile C[R_u, R_0] and its mirror
      for (std::size_t u = 0; u < b.lengths.size(); ++u) {
        read[q] += static_cast<u64>(b.lengths[u] * m);
        if (u > 0) written[q] += 2 * static_cast<u64>(b.lengths[u] * b.lengths[0]);
      }
      continue;
    }
    for (i64 k0 = 0; k0 < m; k0 += chunk)
      for (i64 length : b.lengths) read[q] += static_cast<u64>(length * std::min(chunk, m - k0));
    for (std::size_t u = 0; u < b.lengths.size(); ++u) {
      for (std::size_t v = 0; v < u; ++v) written[q] += 2 * static_cast<u64>(b.lengths[u] * b.lengths[v]);
      if (b.diagonal) written[q] += static_cast<u64>(b.lengths[u] * b.lengths[u]);
    }
  }
  PlanVolumes v;
  for (std::size_t q = 0; q < read.size(); ++q) append_rank(v, 1.0, machine, read[q], written[q], 0, 0);
  return v;
}

std::vector<std::uint64_t> TbsModel::disk_requests(const Plan& plan, const ArrayAccess& access) const {
  return tbs_requests(plan, tbs_schedule(plan), access.perm_A, access.perm_C);
}

std::vector<std::uint64_t> TbsModel::page_faults(const Plan& plan, const ArrayAccess& access) const {
  std::vector<u64> faults;
  tbs_requests(plan, tbs_schedule(plan), access.perm_A, access.perm_C, &faults);
  const double elements = static_cast<double>(plan.I.extent()) * static_cast<double>(plan.K.extent());  // A
  for (u64& f : faults) f = static_cast<u64>(capped_faults(static_cast<double>(f), elements));
  return faults;
}

double TbsModel::rank_flops(const Plan& plan, std::int64_t rank) const {
  return 2.0 * tbs_rank_work(plan, tbs_schedule(plan))[static_cast<std::size_t>(rank)].multiply_adds;
}

}  // namespace tcec::costmodel
