// costmodel/methods/gao/gao_plan.cpp — a Gao plan's grid layout, tile buffers, validity and
// text form (gao.h).
#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/gao/volumes.h"
#include "costmodel/partition.h"
#include "costmodel/reasons.h"
#include "costmodel/schedules.h"

namespace tcec::costmodel {

std::string method_name(Communication comm, Algorithm algorithm) {
  return fmt::format("{}-{}", to_string(comm), to_string(algorithm));
}

namespace {

std::string group_text(const GroupTiling& g) {
  if (g.indices.empty()) return "-";
  std::string out;
  for (const IndexTiles& x : g.indices) out += fmt::format("{}{}:{}x{}", out.empty() ? "" : ",", x.name, x.t1, x.t2);
  return out;
}

std::string dist_name(const GroupTiling& g) { return g.dist < 0 ? "-" : g.indices[g.dist].name; }

}  // namespace

std::string gao_plan_text(const Plan& plan) {
  const auto& [comm, algorithm, replicated, order, overlap] = gao(plan);
  const auto& [I, J, K] = std::tie(plan.I, plan.J, plan.K);
  std::string out =
      fmt::format("{} order={} P={}", method_name(comm, algorithm), costmodel::to_string(order), plan.processors);
  if (algorithm == Algorithm::Replication) out += fmt::format(" bcast={}", costmodel::to_string(replicated));
  out += fmt::format(" I={} J={} K={} dist={},{},{} split={}", group_text(I), group_text(J), group_text(K),
                     dist_name(I), dist_name(J), dist_name(K), split_name(plan.split));
  if (overlap) out += " overlap=yes";
  return out;
}

GridParts grid_parts(const Plan& plan) {
  GridParts parts;
  const std::int64_t P = plan.processors;
  parts.grid_rows = P;
  switch (gao(plan).algorithm) {
    case Algorithm::Rotation: {
      const auto g = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(P))));
      parts.grid_rows = parts.grid_cols = g;
      parts.A = {g, g};
      parts.B = {g, g};
      parts.C = {g, g};
      break;
    }
    case Algorithm::Replication:
      if (gao(plan).replicated == Operand::A) {
        parts.A = {1, P};
        parts.B = {P, 1};
        parts.C = {1, P};
      } else {
        parts.B = {1, P};
        parts.A = {P, 1};
        parts.C = {P, 1};
      }
      break;
    case Algorithm::Accumulation:
      parts.A = {1, P};
      parts.B = {1, P};
      break;
  }
  return parts;
}

RankParts rank_parts(const Plan& plan, std::int64_t rank) {
  RankParts rp;
  switch (gao(plan).algorithm) {
    case Algorithm::Rotation: {
      const std::int64_t g = grid_parts(plan).grid_cols, r = rank / g, c = rank % g;
      rp = {r, (r + c) % g, c, (r + c) % g, r, c};  // A and B pre-skewed (Cannon)
      break;
    }
    case Algorithm::Replication:
      if (gao(plan).replicated == Operand::A)
        rp = {-1, rank, rank, -1, -1, rank};
      else
        rp = {rank, -1, -1, rank, rank, -1};
      break;
    case Algorithm::Accumulation: rp = {-1, rank, -1, rank, -1, -1}; break;
  }
  return rp;
}

/// The level (1: level-1 tile, 2: finest tile) of the row and column group of
/// each array's in-memory tile, by order (the loop nests of plan.h / Fig. 3(b)).
struct TileLevels {
  int A_rows, A_cols, B_rows, B_cols, C_rows, C_cols;
};
static TileLevels tile_levels(PlacementOrder order) {
  switch (order) {
    case PlacementOrder::ABC: return {1, 1, 1, 1, 2, 1};
    case PlacementOrder::ACB: return {1, 1, 1, 2, 2, 1};
    case PlacementOrder::BAC: return {1, 1, 1, 1, 1, 2};
    case PlacementOrder::BCA: return {1, 2, 1, 1, 1, 2};
    case PlacementOrder::CAB: return {1, 1, 2, 1, 1, 1};
    case PlacementOrder::CBA: return {2, 1, 1, 1, 1, 1};
  }
  return {1, 1, 1, 1, 1, 1};
}

TileBytes gao_tile_bytes(const Plan& plan, double element_size_bytes) {
  GridParts parts = grid_parts(plan);
  // The broadcast operand is whole in memory (gathered); its pieces are a disk layout only.
  if (gao(plan).algorithm == Algorithm::Replication) {
    if (gao(plan).replicated == Operand::A)
      parts.A = {1, 1};
    else
      parts.B = {1, 1};
  }
  const TileLevels lv = tile_levels(gao(plan).order);
  const auto e = static_cast<std::uint64_t>(element_size_bytes);
  auto bytes = [&](const GroupTiling& rows, std::int64_t rp, int rl, const GroupTiling& cols, std::int64_t cp, int cl) {
    return e * static_cast<std::uint64_t>(group_tile_max(rows, rp, rl)) *
           static_cast<std::uint64_t>(group_tile_max(cols, cp, cl));
  };
  return {bytes(plan.I, parts.A.rows, lv.A_rows, plan.K, parts.A.cols, lv.A_cols),
          bytes(plan.J, parts.B.rows, lv.B_rows, plan.K, parts.B.cols, lv.B_cols),
          bytes(plan.I, parts.C.rows, lv.C_rows, plan.J, parts.C.cols, lv.C_cols)};
}

namespace {

bool check_group(const char* name, const GroupTiling& g, std::int64_t parts, std::string* reason) {
  for (const IndexTiles& x : g.indices) {
    if (x.t1 >= 1 && x.t1 <= x.extent && x.t2 >= 1 && x.t2 <= x.extent / x.t1) continue;
    *reason = reason_text(ReasonId::index_tile_counts, x.name, name, x.extent, x.t1, x.t2, x.extent);
    return false;
  }
  if (parts == 1) return true;
  if (g.dist < 0 || g.dist >= static_cast<int>(g.indices.size())) {
    *reason = reason_text(ReasonId::no_distribution_index, name, parts);
    return false;
  }
  if (min_dist_part(g) >= parts) return true;
  *reason = reason_text(ReasonId::distribution_part_too_small, g.indices[g.dist].name, name, min_dist_part(g), parts);
  return false;
}

/// check_valid() without building messages (the plan search calls it often).
bool check_valid_fast(const Plan& plan, const Machine& machine) {
  const GaoPlan& m = gao(plan);
  if (m.algorithm == Algorithm::Rotation && !is_perfect_square(plan.processors)) return false;
  const auto second = second_levels(m.order);
  const GridParts parts = grid_parts(plan);
  const GroupTiling* groups[] = {&plan.I, &plan.J, &plan.K};
  const std::int64_t split[] = {std::max(parts.A.rows, parts.C.rows), std::max(parts.B.rows, parts.C.cols),
                                std::max(parts.A.cols, parts.B.cols)};
  for (int g = 0; g < 3; ++g) {
    if (!second[g] && groups[g]->t2() != 1) return false;
    for (const IndexTiles& x : groups[g]->indices)
      if (x.t1 < 1 || x.t1 > x.extent || x.t2 < 1 || x.t2 > x.extent / x.t1) return false;
    if (split[g] > 1 && (groups[g]->dist < 0 || min_dist_part(*groups[g]) < split[g])) return false;
  }
  return fits_memory_exact(plan, machine, nullptr);
}

}  // namespace

bool gao_check_valid(const Plan& plan, const Machine& machine, std::string* reason) {
  if (!reason) return check_valid_fast(plan, machine);
  const GaoPlan& m = gao(plan);
  if (m.algorithm == Algorithm::Rotation && !is_perfect_square(plan.processors)) {
    *reason = reason_text(ReasonId::p_not_square, plan.processors);
    return false;
  }
  const auto second = second_levels(m.order);
  const GroupTiling* groups[] = {&plan.I, &plan.J, &plan.K};
  for (int g = 0; g < 3; ++g) {
    if (second[g] || groups[g]->t2() == 1) continue;
    *reason = reason_text(ReasonId::order_no_second_level, to_string(m.order), "IJK"[g], "IJK"[g], groups[g] -> t2());
    return false;
  }
  const GridParts parts = grid_parts(plan);
  const std::int64_t split_I = std::max({parts.A.rows, parts.C.rows});
  const std::int64_t split_J = std::max({parts.B.rows, parts.C.cols});
  const std::int64_t split_K = std::max({parts.A.cols, parts.B.cols});
  if (!check_group("I", plan.I, split_I, reason) || !check_group("J", plan.J, split_J, reason) ||
      !check_group("K", plan.K, split_K, reason))
    return false;
  return fits_memory_exact(plan, machine, reason);
}

}  // namespace tcec::costmodel
