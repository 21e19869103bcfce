// sfc (Georganas et al., seed 002) in the cost model: the generalized Hilbert curve visits every
// tile once through neighbours, segments are contiguous and balanced for any P, the walk's
// bytes equal a plain replay of its LRU cache, and its requests a replay of every element.
#include <cstdlib>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/methods/sfc/curve.h"
#include "costmodel/methods/sfc/sfc_walk.h"
#include "frontend/frontend.h"
#include "tests/costmodel/fixtures.h"

namespace tcec::costmodel {
namespace {

using i64 = std::int64_t;

TEST(SfcCurve, VisitsEveryCellOnceThroughNeighbours) {
  for (i64 w = 1; w <= 24; ++w)
    for (i64 h = 1; h <= 24; ++h) {
      const auto cells = generalized_hilbert(w, h);
      ASSERT_EQ(static_cast<i64>(cells.size()), w * h);
      const std::set<std::pair<i64, i64>> distinct(cells.begin(), cells.end());
      EXPECT_EQ(distinct.size(), cells.size());
      EXPECT_EQ(cells.front(), std::make_pair(i64{0}, i64{0}));
      for (std::size_t i = 1; i < cells.size(); ++i) {
        const i64 dx = std::abs(cells[i].first - cells[i - 1].first),
                  dy = std::abs(cells[i].second - cells[i - 1].second);
        ASSERT_TRUE(dx <= 1 && dy <= 1 && dx + dy >= 1) << w << "x" << h << " at " << i;
      }
    }
  // The curve runs from one corner to the next along the longer side: (0,0) to (w−1, 0).
  for (auto [w, h] : {std::pair<i64, i64>{4, 4}, {8, 4}, {13, 7}, {16, 16}})
    EXPECT_EQ(generalized_hilbert(w, h).back(), std::make_pair(w - 1, i64{0})) << w << "x" << h;
}

/// C[i,j] += A[i,k] * B[j,k] with |i| = m, |j| = n, |k| = k on P ranks of `memory`.
ir::Program product(i64 m, i64 n, i64 k, i64 P, const std::string& memory) {
  return fixtures::parse_program(
      fmt::format("range M = {};\nrange N = {};\nrange K = {};\nindex i : M;\nindex j : N;\nindex k : K;\n"
                  "tensor A[M,K] input;\ntensor B[N,K] input;\ntensor C[M,N] output;\n"
                  "C[i,j] = A[i,k] * B[j,k];\n"
                  "machine m {{ processors {}; memory {}; network 1 GB/s; disk 500 MB/s; }}\n",
                  m, n, k, P, memory));
}

TEST(Sfc, SegmentsAreContiguousAndBalancedForAnyP) {
  for (i64 P : {1, 5, 7, 11, 13}) {
    const ir::Program p = product(600, 500, 300, P, "400 KB");
    const Machine m = machine_from(*p.machine);
    const ContractionAnalysis a = fixtures::analyze_forced(p, 0, m, "sfc");
    ASSERT_TRUE(a.plan.feasible) << a.plan.reason;
    const SfcSchedule s = sfc_schedule(a.plan.plan);
    ASSERT_EQ(s.segment.size(), static_cast<std::size_t>(P + 1));
    EXPECT_EQ(s.segment.front(), 0);
    EXPECT_EQ(s.segment.back(), static_cast<i64>(s.order.size()));
    std::vector<i64> sorted = s.order;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<i64>(i));
    for (i64 q = 0; q < P; ++q) EXPECT_GT(s.segment[q + 1], s.segment[q]) << "P = " << P << ": rank " << q << " idle";
    const PlanVolumes replayed = simulate(a.plan.plan, m);
    EXPECT_EQ(replayed.disk_read_bytes, a.plan.volumes.disk_read_bytes) << P;
    EXPECT_EQ(replayed.disk_write_bytes, a.plan.volumes.disk_write_bytes) << P;
    std::uint64_t written = 0;
    for (std::uint64_t w : a.plan.volumes.disk_write_bytes) written += w;
    EXPECT_EQ(written, 600u * 500u * 8u);  // every tile once
  }
}

TEST(Sfc, TheCacheKeepsPanelsFromOneTileToTheNext) {
  // 3000 x 50 tiles of 250 rows (12 x 1), K = 400 in 4 chunks: consecutive tiles share B's
  // panels; walking K back and forth keeps the last ones in the 8 slots.
  const ir::Program p = product(3000, 50, 400, 1, "2 MB");
  const Machine m = machine_from(*p.machine);
  const Groups g = groups_from(p, ir::macro_index_gemm(p, p.statements[0]));
  std::string error;
  const std::optional<Plan> plan =
      parse_plan("sfc tiles=12x1 chunk=100 slots=8 P=1 split=optimal", g.I, g.J, g.K, &error);
  ASSERT_TRUE(plan) << error;
  ASSERT_TRUE(check_valid(*plan, m, &error)) << error;
  const SfcRankWalk w = sfc_walk(*plan, nullptr)[0];
  EXPECT_EQ(w.misses + w.hits, 12 * 4 * 2);
  EXPECT_GE(w.hits, 11 * 2);  // at least the two B panels at the turn of every tile after the first
  EXPECT_LT(w.read, 3000u * 400u + 12u * 50u * 400u);  // less than B once per tile
  EXPECT_EQ(simulate(*plan, m).disk_read_bytes, plan_volumes(*plan, m).disk_read_bytes);
}

TEST(Sfc, RequestsEqualAReplayOfEveryElementAndTheTextRoundTrips) {
  // C[i,j] += X[k,i] * Y[j,k] (A stored transposed), adding to an earlier C.
  const ir::Program p = fixtures::parse_program(
      "range M = 37;\nrange N = 29;\nrange K = 23;\nindex i : M;\nindex j : N;\nindex k : K;\n"
      "tensor X[K,M] input;\ntensor Y[N,K] input;\ntensor C[M,N] output;\n"
      "C[i,j] = X[k,i] * Y[j,k];\nC[i,j] += X[k,i] * Y[j,k];\n"
      "machine m { processors 3; memory 8 KB; network 1 GB/s; disk 500 MB/s; }\n");
  const Machine m = machine_from(*p.machine);
  const ContractionAnalysis a = fixtures::analyze_forced(p, 1, m, "sfc");
  ASSERT_TRUE(a.plan.feasible) << a.plan.reason;
  ASSERT_TRUE(a.accumulate);
  const Plan& plan = a.plan.plan;
  const SfcPlan& s = sfc_plan(plan);
  const SfcSchedule sched = sfc_schedule(plan);
  auto piece = [](i64 n, i64 g, i64 q) { return n / g + (q < n % g ? 1 : 0); };
  auto start = [](i64 n, i64 g, i64 q) { return q * (n / g) + std::min(q, n % g); };
  auto runs = [](const std::vector<i64>& offsets) {
    std::uint64_t r = 0;
    for (std::size_t i = 0; i < offsets.size(); ++i) r += i == 0 || offsets[i] != offsets[i - 1] + 1;
    return r;
  };
  const i64 chunks = (23 + s.chunk - 1) / s.chunk;
  std::vector<std::uint64_t> want(3, 0);
  for (i64 q = 0; q < 3; ++q) {
    std::vector<std::tuple<int, i64, i64>> lru;  // most recent last
    for (i64 at = sched.segment[q], w = 0; at < sched.segment[q + 1]; ++at, ++w) {
      const i64 t = sched.order[at], ti = t / s.tiles_J, tj = t % s.tiles_J;
      std::vector<i64> tile;
      for (i64 r = start(37, s.tiles_I, ti); r < start(37, s.tiles_I, ti) + piece(37, s.tiles_I, ti); ++r)
        for (i64 c = start(29, s.tiles_J, tj); c < start(29, s.tiles_J, tj) + piece(29, s.tiles_J, tj); ++c)
          tile.push_back(r * 29 + c);
      want[q] += 2 * runs(tile);  // C's current tile read, the tile written
      for (i64 step = 0; step < chunks; ++step) {
        const i64 c = w % 2 == 0 ? step : chunks - 1 - step;
        const i64 k0 = c * s.chunk, kc = std::min(s.chunk, 23 - k0);
        for (int operand = 0; operand < 2; ++operand) {
          const i64 tt = operand == 0 ? ti : tj;
          const auto key = std::make_tuple(operand, tt, c);
          const auto hit = std::find(lru.begin(), lru.end(), key);
          if (hit != lru.end()) {
            lru.erase(hit), lru.push_back(key);
            continue;
          }
          if (static_cast<i64>(lru.size()) == s.slots) lru.erase(lru.begin());
          lru.push_back(key);
          std::vector<i64> panel;
          const i64 n = operand == 0 ? 37 : 29, g = operand == 0 ? s.tiles_I : s.tiles_J;
          for (i64 r = start(n, g, tt); r < start(n, g, tt) + piece(n, g, tt); ++r)
            for (i64 k = k0; k < k0 + kc; ++k) panel.push_back(operand == 0 ? k * 37 + r : r * 23 + k);
          want[q] += runs(panel);
        }
      }
    }
  }
  EXPECT_EQ(a.plan.volumes.disk_requests, want);
  std::string error;
  const std::optional<Plan> back = parse_plan(plan.to_string(), plan.I, plan.J, plan.K, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, plan);
}

}  // namespace
}  // namespace tcec::costmodel
