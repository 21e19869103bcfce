// costmodel/plan.cpp — the Plan value type: text form, grid layout, memory and validity.
#include "costmodel/plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "costmodel/loop_nest.h"
#include "costmodel/partition.h"
#include "costmodel/volumes.h"

namespace tcec::costmodel {

std::int64_t GroupTiling::extent() const {
  std::int64_t n = 1;
  for (const IndexTiles& x : indices) n *= x.extent;
  return n;
}
std::int64_t GroupTiling::t1() const {
  std::int64_t n = 1;
  for (const IndexTiles& x : indices) n *= x.t1;
  return n;
}
std::int64_t GroupTiling::t2() const {
  std::int64_t n = 1;
  for (const IndexTiles& x : indices) n *= x.t2;
  return n;
}

TileCounts Plan::tile_counts() const {
  auto d = [](std::int64_t v) { return static_cast<double>(v); };
  return {d(I.t1()), d(I.t2()), d(J.t1()), d(J.t2()), d(K.t1()), d(K.t2())};
}

std::string method_name(CommMethod comm, Algorithm algorithm) {
  if (algorithm == Algorithm::Cosma) return "cosma";
  return fmt::format("{}-{}", to_string(comm), to_string(algorithm));
}

namespace {

std::string group_text(const GroupTiling& g) {
  if (g.indices.empty()) return "-";
  std::string out;
  for (const IndexTiles& x : g.indices)
    out += fmt::format("{}{}:{}x{}", out.empty() ? "" : ",", x.name, x.t1, x.t2);
  return out;
}

std::string dist_name(const GroupTiling& g) { return g.dist < 0 ? "-" : g.indices[g.dist].name; }

}  // namespace

std::string Plan::to_string() const {
  if (algorithm == Algorithm::Cosma)
    return fmt::format("cosma grid={}x{}x{} rounds={} P={} split={}", cosma.pm, cosma.pn, cosma.pk, cosma.rounds,
                       processors, split == MemorySplit::Thirds ? "thirds" : "optimal");
  std::string out = fmt::format("{} order={} P={}", method_name(comm, algorithm),
                                costmodel::to_string(order), processors);
  if (algorithm == Algorithm::Replication)
    out += fmt::format(" bcast={}", costmodel::to_string(replicated));
  out += fmt::format(" I={} J={} K={} dist={},{},{} split={}", group_text(I), group_text(J),
                     group_text(K), dist_name(I), dist_name(J), dist_name(K),
                     split == MemorySplit::Thirds ? "thirds" : "optimal");
  return out;
}

GridParts grid_parts(const Plan& plan) {
  GridParts parts;
  const std::int64_t P = plan.processors;
  parts.grid_rows = P;
  switch (plan.algorithm) {
    case Algorithm::Rotation: {
      const auto g = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(P))));
      parts.grid_rows = parts.grid_cols = g;
      parts.A = {g, g};
      parts.B = {g, g};
      parts.C = {g, g};
      break;
    }
    case Algorithm::Replication:
      if (plan.replicated == ReplicatedOperand::A) {
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
    case Algorithm::Cosma:
      parts.A = {plan.cosma.pm, plan.cosma.pk};
      parts.B = {plan.cosma.pn, plan.cosma.pk};
      parts.C = {plan.cosma.pm, plan.cosma.pn};
      break;
  }
  return parts;
}

RankParts rank_parts(const Plan& plan, std::int64_t rank) {
  RankParts rp;
  switch (plan.algorithm) {
    case Algorithm::Rotation: {
      const std::int64_t g = grid_parts(plan).grid_cols, r = rank / g, c = rank % g;
      rp = {r, (r + c) % g, c, (r + c) % g, r, c};  // A and B pre-skewed (Cannon)
      break;
    }
    case Algorithm::Replication:
      if (plan.replicated == ReplicatedOperand::A)
        rp = {-1, rank, rank, -1, -1, rank};
      else
        rp = {rank, -1, -1, rank, rank, -1};
      break;
    case Algorithm::Accumulation:
      rp = {-1, rank, -1, rank, -1, -1};
      break;
    case Algorithm::Cosma: {
      const CosmaGrid& g = plan.cosma;
      if (rank >= g.used()) break;  // idle: holds nothing
      const std::int64_t x = rank / (g.pn * g.pk), y = rank / g.pk % g.pn, z = rank % g.pk;
      rp = {x, z, y, z, x, y};
      break;
    }
  }
  return rp;
}

/// The level (1: level-1 tile, 2: finest tile) of the row and column group of
/// each array's in-memory tile, by order (the loop nests of plan.h / Fig. 3(b)).
struct TileLevels {
  int A_rows, A_cols, B_rows, B_cols, C_rows, C_cols;
};
static TileLevels tile_levels(DiskPlacementOrder order) {
  switch (order) {
    case DiskPlacementOrder::ABC: return {1, 1, 1, 1, 2, 1};
    case DiskPlacementOrder::ACB: return {1, 1, 1, 2, 2, 1};
    case DiskPlacementOrder::BAC: return {1, 1, 1, 1, 1, 2};
    case DiskPlacementOrder::BCA: return {1, 2, 1, 1, 1, 2};
    case DiskPlacementOrder::CAB: return {1, 1, 2, 1, 1, 1};
    case DiskPlacementOrder::CBA: return {2, 1, 1, 1, 1, 1};
  }
  return {1, 1, 1, 1, 1, 1};
}

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Cosma: rank 0's A slice, B slice and C block (cosma.h "Memory per rank").
TileBytes cosma_buffers(const Plan& plan, double element_size_bytes) {
  const CosmaGrid& g = plan.cosma;
  const auto e = static_cast<std::uint64_t>(element_size_bytes);
  const auto bm = static_cast<std::uint64_t>(ceil_div(plan.I.extent(), g.pm));
  const auto bn = static_cast<std::uint64_t>(ceil_div(plan.J.extent(), g.pn));
  const auto slice = static_cast<std::uint64_t>(ceil_div(ceil_div(plan.K.extent(), g.pk), g.rounds));
  const std::uint64_t buffers = g.rounds > 1 ? 2 : 1;   // double-buffered slices over rounds (§7.3)
  return {buffers * e * bm * slice, buffers * e * bn * slice, e * bm * bn};
}

}  // namespace

TileBytes tile_bytes(const Plan& plan, double element_size_bytes) {
  if (plan.algorithm == Algorithm::Cosma) return cosma_buffers(plan, element_size_bytes);
  GridParts parts = grid_parts(plan);
  // The broadcast operand is whole in memory (gathered); its pieces are a disk layout only.
  if (plan.algorithm == Algorithm::Replication) {
    if (plan.replicated == ReplicatedOperand::A) parts.A = {1, 1};
    else parts.B = {1, 1};
  }
  const TileLevels lv = tile_levels(plan.order);
  const auto e = static_cast<std::uint64_t>(element_size_bytes);
  auto bytes = [&](const GroupTiling& rows, std::int64_t rp, int rl, const GroupTiling& cols,
                   std::int64_t cp, int cl) {
    return e * static_cast<std::uint64_t>(group_tile_max(rows, rp, rl)) *
           static_cast<std::uint64_t>(group_tile_max(cols, cp, cl));
  };
  return {bytes(plan.I, parts.A.rows, lv.A_rows, plan.K, parts.A.cols, lv.A_cols),
          bytes(plan.J, parts.B.rows, lv.B_rows, plan.K, parts.B.cols, lv.B_cols),
          bytes(plan.I, parts.C.rows, lv.C_rows, plan.J, parts.C.cols, lv.C_cols)};
}

bool fits_memory_exact(const Plan& plan, const Machine& machine, std::string* reason) {
  const TileBytes t = tile_bytes(plan, machine.element_size_bytes);
  const double total = static_cast<double>(t.A + t.B + t.C);
  if (plan.split == MemorySplit::Optimal) {
    if (total <= machine.memory_bytes) return true;
    if (reason)
      *reason = fmt::format("tiles of A, B and C need {} + {} + {} = {} bytes per rank but the memory is {} bytes",
                            t.A, t.B, t.C, total, machine.memory_bytes);
    return false;
  }
  const double M = machine.array_memory_bytes();
  const std::uint64_t bytes[] = {t.A, t.B, t.C};
  for (int i = 0; i < 3; ++i) {
    if (static_cast<double>(bytes[i]) <= M) continue;
    if (reason)
      *reason = fmt::format("the tile of {} needs {} bytes per rank but M = {} bytes (a third of the memory)",
                            "ABC"[i], bytes[i], M);
    return false;
  }
  return true;
}

namespace {

bool check_group(const char* name, const GroupTiling& g, std::int64_t parts, std::string* reason) {
  for (const IndexTiles& x : g.indices) {
    if (x.t1 >= 1 && x.t1 <= x.extent && x.t2 >= 1 && x.t2 <= x.extent / x.t1) continue;
    *reason = fmt::format("index {} of {} (extent {}) has tile counts {}x{}; need 1 <= t1 <= {} and 1 <= t2 <= extent/t1",
                          x.name, name, x.extent, x.t1, x.t2, x.extent);
    return false;
  }
  if (parts == 1) return true;
  if (g.dist < 0 || g.dist >= static_cast<int>(g.indices.size())) {
    *reason = fmt::format("{} is split over {} grid parts but has no distribution index", name, parts);
    return false;
  }
  if (min_dist_part(g) >= parts) return true;
  *reason = fmt::format("distribution index {} of {} has a tile part of {} elements, fewer than the {} grid parts",
                        g.indices[g.dist].name, name, min_dist_part(g), parts);
  return false;
}

/// Cosma's grid and rounds (plan.h check_valid()); memory is checked by the caller.
bool check_cosma(const Plan& plan, std::string* reason) {
  const CosmaGrid& g = plan.cosma;
  const std::int64_t extents[] = {plan.I.extent(), plan.J.extent(), plan.K.extent()};
  const std::int64_t parts[] = {g.pm, g.pn, g.pk};
  const char* names[] = {"pm", "pn", "pk"};
  for (int i = 0; i < 3; ++i) {
    if (parts[i] >= 1 && parts[i] <= extents[i]) continue;
    if (reason)
      *reason = fmt::format("the grid has {} = {} ranks along {} of extent {}; need 1 <= {} <= {}", names[i], parts[i],
                            "IJK"[i], extents[i], names[i], extents[i]);
    return false;
  }
  if (g.used() > plan.processors) {
    if (reason)
      *reason = fmt::format("the grid {}x{}x{} needs {} ranks but P = {}", g.pm, g.pn, g.pk, g.used(),
                            plan.processors);
    return false;
  }
  const std::int64_t fewest_k = extents[2] / g.pk;   // the fewest K columns a rank of the grid holds
  if (g.rounds < 1 || g.rounds > fewest_k) {
    if (reason) *reason = fmt::format("cosma has {} rounds; need 1 <= rounds <= {} (the fewest K columns of a rank)", g.rounds, fewest_k);
    return false;
  }
  return true;
}

/// check_valid() without building messages (the plan search calls it often).
bool check_valid_fast(const Plan& plan, const Machine& machine) {
  if (plan.algorithm == Algorithm::Cosma)
    return plan.processors == machine.processors && check_cosma(plan, nullptr) && fits_memory_exact(plan, machine, nullptr);
  if (plan.processors != machine.processors) return false;
  if (plan.algorithm == Algorithm::Rotation && !is_perfect_square(plan.processors)) return false;
  const auto second = second_levels(plan.order);
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

bool check_valid(const Plan& plan, const Machine& machine, std::string* reason) {
  if (!reason) return check_valid_fast(plan, machine);
  if (plan.processors != machine.processors) {
    *reason = fmt::format("the plan is for P = {} but the machine has P = {}", plan.processors, machine.processors);
    return false;
  }
  if (plan.algorithm == Algorithm::Rotation && !is_perfect_square(plan.processors)) {
    *reason = fmt::format("P = {} is not a perfect square", plan.processors);
    return false;
  }
  if (plan.algorithm == Algorithm::Cosma) return check_cosma(plan, reason) && fits_memory_exact(plan, machine, reason);
  const auto second = second_levels(plan.order);
  const GroupTiling* groups[] = {&plan.I, &plan.J, &plan.K};
  for (int g = 0; g < 3; ++g) {
    if (second[g] || groups[g]->t2() == 1) continue;
    *reason = fmt::format("order {} does not tile {} at a second level, but {}t2 = {}",
                          to_string(plan.order), "IJK"[g], "IJK"[g], groups[g]->t2());
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
