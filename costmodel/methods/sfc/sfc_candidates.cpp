// costmodel/methods/sfc/sfc_candidates.cpp — sfc_candidates() (sfc_candidates.h).
#include "costmodel/methods/sfc/sfc_candidates.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "costmodel/methods/pass_runs.h"
#include "costmodel/plan.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;
using Grid = std::pair<i64, i64>;  // tiles_I, tiles_J

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

/// Shares of the memory a C tile may take (the panel slots get the rest), tiles per rank the
/// grid should at least give (more: better balance, less reuse), tiles per rank tried above the
/// fewest that fit, and K chunks tried (all of a layer's K too); a walk has at most kMostChunks
/// chunks per tile and kMostSteps panel uses, which bounds the planning time.
constexpr double kTileShares[] = {0.1, 0.2, 0.35, 0.5, 0.7, 0.85};
constexpr i64 kTilesPerRank[] = {1, 2, 4};
constexpr i64 kMoreTilesPerRank = 8;
constexpr i64 kDenseTiles = 64;  // tiles_I tried one by one up to here, then in steps of ~1/64
constexpr i64 kChunks[] = {1, 2, 8, 32, 128, 512, 2048};
constexpr i64 kMostChunks = 4096;
constexpr double kMostSteps = 1e6;

/// The tile grid for C tiles of about `area` elements of an m × n result: square tiles, or as
/// wide as C when C is narrower than a square tile; then split further until there are at
/// least `tiles` of them.
Grid grid_for(i64 m, i64 n, double area, i64 tiles) {
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

/// The grids tried for g ranks per layer and S elements of memory (sfc_candidates.h).
std::vector<Grid> grids_for(i64 m, i64 n, i64 S, i64 g) {
  std::vector<Grid> grids;
  for (double share : kTileShares)
    for (i64 per_rank : kTilesPerRank) grids.push_back(grid_for(m, n, share * static_cast<double>(S), per_rank * g));
  // The fewest tiles per rank whose tiles can fit: m·n/(g·t) <= S.
  const i64 t0 = std::max<i64>(1, ceil_div(ceil_div(m * n, S), g));
  for (i64 t = t0; t <= t0 + kMoreTilesPerRank; ++t)
    for (i64 Ti = 1; Ti <= std::min(m, t * g); Ti += std::max<i64>(1, Ti / kDenseTiles)) {
      const i64 Tj = std::min(n, t * g / Ti);
      // At least one tile per rank (no idle rank), and tiles that fit.
      if (Tj >= 1 && Ti * Tj >= g && ceil_div(m, Ti) * ceil_div(n, Tj) <= S) grids.emplace_back(Ti, Tj);
    }
  std::sort(grids.begin(), grids.end());
  grids.erase(std::unique(grids.begin(), grids.end()), grids.end());
  return grids;
}

}  // namespace

std::vector<SfcCandidate> sfc_candidates(i64 m, i64 n, i64 k, bool accumulate, const Machine& machine, bool* too_long) {
  const auto S = static_cast<i64>(machine.memory_bytes / machine.element_size_bytes);
  const i64 P = machine.processors;
  const double e = machine.element_size_bytes;
  std::vector<SfcCandidate> out;
  for (i64 c = 1; c <= std::min(P, k); ++c) {
    if (P % c != 0) continue;
    const i64 g = P / c, kx = ceil_div(k, c);  // ranks per layer, the largest layer's share of K
    std::vector<i64> chunks = {kx};            // the longest first: on equal time the kernel runs best on long chunks
    for (auto ch = std::rbegin(kChunks); ch != std::rend(kChunks); ++ch)
      if (*ch < kx && ceil_div(kx, *ch) <= kMostChunks) chunks.push_back(*ch);
    for (const auto& [Ti, Tj] : grids_for(m, n, S, g))
      for (i64 chunk : chunks) {
        const i64 rows = ceil_div(m, Ti), cols = ceil_div(n, Tj), tile = rows * cols,
                  slot = std::max(rows, cols) * chunk;
        const i64 slots = (S - tile) / slot - (c > 1 ? 1 : 0);  // c > 1: one slot's scratch for the reduction
        if (tile > S || slots < 2) continue;
        if (2.0 * static_cast<double>(Ti * Tj) * static_cast<double>(ceil_div(kx, chunk) * c) > kMostSteps) {
          *too_long = true;  // it fits, but walking it would take too long
          continue;
        }
        // The fullest rank of a layer, without the cache (sfc_candidates.h).
        const auto t = static_cast<double>(ceil_div(Ti * Tj, g));
        const double piece = static_cast<double>(ceil_div(rows, c) * cols);  // rows of a tile it ends
        // At each of the t − 1 turns from one tile to the next along the curve, the panel both
        // tiles share (B's when the grid is one tile wide, A's when one tile high, else either:
        // their mean) is still cached for its last ⌊slots/2⌋ chunks (the LRU holds the last
        // panels of A and B alike; the next tile walks K back from there).
        const double shared = Tj == 1   ? static_cast<double>(cols)
                              : Ti == 1 ? static_cast<double>(rows)
                                        : 0.5 * static_cast<double>(rows + cols);
        const double reused = std::max(0.0, t - 1) * shared *
                              static_cast<double>(std::min(kx, chunk * std::min(ceil_div(kx, chunk), slots / 2)));
        const double read = t * (static_cast<double>((rows + cols) * kx) + (accumulate ? piece : 0.0)) - reused;
        const double write = t * piece;
        const double received = c > 1 ? t * static_cast<double>(tile - rows / c * cols) : 0.0;
        // The kernel at the raw rate, slowed only where its calls stream from memory (the shape's
        // efficiency is left to the walk of the best two, as the bytes decide among candidates;
        // the stream decides between one large tile with chunks of a few columns and smaller
        // tiles with longer ones).
        const auto [R, C, K] =
            std::tuple{static_cast<double>(rows), static_cast<double>(cols), static_cast<double>(chunk)};
        const double stream = gemm_efficiency(R, C, K, machine) / gemm_efficiency(R, C, K);
        // Page faults: the panels' rows, `chunk` of A's and B's k stored columns (pass_runs.h).
        const double faults = machine.page_fault_s > 0
                                  ? capped_faults(read / static_cast<double>(chunk) *
                                                      run_faults(static_cast<double>(chunk), static_cast<double>(k)),
                                                  static_cast<double>((m + n) * k))
                                  : 0.0;
        const double time = read * e / machine.disk_read_bytes_per_s + write * e / machine.disk_write_bytes_per_s +
                            received * e / machine.network_bytes_per_s + faults * machine.page_fault_s +
                            2.0 * t * static_cast<double>(tile * kx) / (machine.flops_per_s * stream);
        out.push_back({time, SfcPlan{Ti, Tj, chunk, slots, c}});
      }
  }
  return out;
}

}  // namespace tcec::costmodel
