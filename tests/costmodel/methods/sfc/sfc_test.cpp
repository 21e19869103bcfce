// sfc (Georganas et al., seed 002) in the cost model: the generalized Hilbert curve visits every
// tile once through neighbours, segments are contiguous and balanced for any P, the walk's
// bytes equal a plain replay of its LRU cache, and its requests a replay of every element.
#include <cstdlib>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/method_model.h"
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
    ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
    const SfcSchedule s = sfc_schedule(a.plan().plan);
    ASSERT_EQ(s.segment.size(), static_cast<std::size_t>(P + 1));
    EXPECT_EQ(s.segment.front(), 0);
    EXPECT_EQ(s.segment.back(), static_cast<i64>(s.order.size()));
    std::vector<i64> sorted = s.order;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<i64>(i));
    for (i64 q = 0; q < P; ++q) EXPECT_GT(s.segment[q + 1], s.segment[q]) << "P = " << P << ": rank " << q << " idle";
    const PlanVolumes replayed = simulate(a.plan().plan, m);
    EXPECT_EQ(replayed.disk_read_bytes, a.plan().volumes.disk_read_bytes) << P;
    EXPECT_EQ(replayed.disk_write_bytes, a.plan().volumes.disk_write_bytes) << P;
    std::uint64_t written = 0;
    for (std::uint64_t w : a.plan().volumes.disk_write_bytes) written += w;
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
  // C[i,j] += X[k,i] * Y[j,k] (A stored transposed), adding to an earlier C: the chosen plan, and
  // the same grid with replication c = 3 along K (layers of one rank over K = 8, 8, 7 columns).
  const ir::Program p = fixtures::parse_program(
      "range M = 37;\nrange N = 29;\nrange K = 23;\nindex i : M;\nindex j : N;\nindex k : K;\n"
      "tensor X[K,M] input;\ntensor Y[N,K] input;\ntensor C[M,N] output;\n"
      "C[i,j] = X[k,i] * Y[j,k];\nC[i,j] += X[k,i] * Y[j,k];\n"
      "machine m { processors 3; memory 8 KB; network 1 GB/s; disk 500 MB/s; }\n");
  const Machine m = machine_from(*p.machine);
  const ContractionAnalysis a = fixtures::analyze_forced(p, 1, m, "sfc");
  ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
  ASSERT_TRUE(a.accumulate);
  const SfcPlan& chosen = sfc_plan(a.plan().plan);
  std::string error;
  const std::optional<Plan> layered = parse_plan(
      fmt::format("sfc tiles={}x{} chunk=3 slots=4 c=3 P=3 split=optimal C0=current", chosen.tiles_I, chosen.tiles_J),
      a.plan().plan.I, a.plan().plan.J, a.plan().plan.K, &error);
  ASSERT_TRUE(layered) << error;
  ASSERT_TRUE(check_valid(*layered, m, &error)) << error;
  auto piece = [](i64 n, i64 g, i64 q) { return n / g + (q < n % g ? 1 : 0); };
  auto start = [](i64 n, i64 g, i64 q) { return q * (n / g) + std::min(q, n % g); };
  auto runs = [](const std::vector<i64>& offsets) {
    std::uint64_t r = 0;
    for (std::size_t i = 0; i < offsets.size(); ++i) r += i == 0 || offsets[i] != offsets[i - 1] + 1;
    return r;
  };
  for (const Plan& plan : {a.plan().plan, *layered}) {
    const SfcPlan& s = sfc_plan(plan);
    const SfcSchedule sched = sfc_schedule(plan);
    const i64 g = 3 / s.layers;
    std::vector<std::uint64_t> want(3, 0), sent(3, 0), received(3, 0);
    for (i64 r = 0; r < 3; ++r) {
      const i64 x = r / g, q = r % g, k0 = start(23, s.layers, x), kx = piece(23, s.layers, x);
      const i64 chunks = (kx + s.chunk - 1) / s.chunk;
      std::vector<std::tuple<int, i64, i64>> lru;  // most recent last
      for (i64 at = sched.segment[q], w = 0; at < sched.segment[q + 1]; ++at, ++w) {
        const i64 t = sched.order[at], ti = t / s.tiles_J, tj = t % s.tiles_J;
        const i64 h = piece(37, s.tiles_I, ti), wd = piece(29, s.tiles_J, tj);
        const i64 first = start(37, s.tiles_I, ti) + start(h, s.layers, x), rows = piece(h, s.layers, x);
        std::vector<i64> mine;  // the rank's rows of the tile
        for (i64 row = first; row < first + rows; ++row)
          for (i64 c = start(29, s.tiles_J, tj); c < start(29, s.tiles_J, tj) + wd; ++c) mine.push_back(row * 29 + c);
        want[r] += 2 * runs(mine);  // C's current values read, the rows written
        if (s.layers > 1) {         // the ring reduce-scatter: all but the own rows out, all but x − 1's in
          sent[r] += 8 * static_cast<std::uint64_t>((h - rows) * wd);
          received[r] += 8 * static_cast<std::uint64_t>((h - piece(h, s.layers, (x + s.layers - 1) % s.layers)) * wd);
        }
        for (i64 step = 0; step < chunks; ++step) {
          const i64 c = w % 2 == 0 ? step : chunks - 1 - step;
          const i64 kc0 = k0 + c * s.chunk, kc = std::min(s.chunk, k0 + kx - kc0);
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
            const i64 n = operand == 0 ? 37 : 29, gr = operand == 0 ? s.tiles_I : s.tiles_J;
            const i64 r0 = start(n, gr, tt), r1 = r0 + piece(n, gr, tt);
            if (operand == 0) {  // A's rows are its innermost stored dimension: column by column (37 < 256 rows)
              for (i64 k = kc0; k < kc0 + kc; ++k)
                for (i64 row = r0; row < r1; ++row) panel.push_back(k * 37 + row);
            } else {
              for (i64 row = r0; row < r1; ++row)
                for (i64 k = kc0; k < kc0 + kc; ++k) panel.push_back(row * 23 + k);
            }
            want[r] += runs(panel);
          }
        }
      }
    }
    PlanVolumes v = plan_volumes(plan, m);
    plan_requests(plan, m, {true, true, true, a.gemm.perm_A, a.gemm.perm_B, a.gemm.perm_C}, v);
    EXPECT_EQ(v.disk_requests, want) << plan.to_string();
    EXPECT_EQ(v.comm_sent_bytes, sent) << plan.to_string();
    EXPECT_EQ(v.comm_recv_bytes, received) << plan.to_string();
    const PlanVolumes replayed = simulate(plan, m);
    EXPECT_EQ(replayed.disk_read_bytes, v.disk_read_bytes) << plan.to_string();
    EXPECT_EQ(replayed.comm_recv_bytes, v.comm_recv_bytes) << plan.to_string();
    const std::optional<Plan> back = parse_plan(plan.to_string(), plan.I, plan.J, plan.K, &error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(*back, plan);
  }
}

TEST(Sfc, LayersAlongKMoveExactlyTheirShareAndTheReduction) {
  // 40 x 40 x 100 on 4 ranks, c = 4, one tile, one chunk per layer: every rank reads its 25
  // columns of A and B once (2 · 40 · 25), reduces the 1600-element tile (sends the 3 other
  // layers' 10 rows, receives 3 · 10 rows of its own) and writes its 10 rows.
  const ir::Program p = product(40, 40, 100, 4, "64 KB");
  const Machine m = machine_from(*p.machine);
  const Groups g = groups_from(p, ir::macro_index_gemm(p, p.statements[0]));
  std::string error;
  const std::optional<Plan> plan =
      parse_plan("sfc tiles=1x1 chunk=25 slots=2 c=4 P=4 split=optimal", g.I, g.J, g.K, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->to_string(), "sfc tiles=1x1 chunk=25 slots=2 c=4 P=4 split=optimal");
  ASSERT_TRUE(check_valid(*plan, m, &error)) << error;
  const PlanVolumes v = plan_volumes(*plan, m);
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(v.disk_read_bytes[r], 8u * 2 * 40 * 25) << r;
    EXPECT_EQ(v.disk_write_bytes[r], 8u * 10 * 40) << r;
    EXPECT_EQ(v.comm_sent_bytes[r], 8u * 30 * 40) << r;
    EXPECT_EQ(v.comm_recv_bytes[r], 8u * 30 * 40) << r;
    EXPECT_EQ(model_of(*plan).rank_flops(*plan, static_cast<i64>(r)), 2.0 * 1600 * 25) << r;
  }
  // Memory: the tile, 2 slots and the scratch of 40 · 25 each.
  const TileBytes t = tile_bytes(*plan, 8);
  EXPECT_EQ(t.C, 8u * 1600);
  EXPECT_EQ(t.A, 8u * 2 * 1000);
  EXPECT_EQ(t.B, 8u * 1000);
  // c must divide P, and chunks stay within a layer's share of K.
  for (const char* bad : {"sfc tiles=1x1 chunk=25 slots=2 c=3 P=4 split=optimal",
                          "sfc tiles=1x1 chunk=26 slots=2 c=4 P=4 split=optimal"}) {
    const std::optional<Plan> b = parse_plan(bad, g.I, g.J, g.K, &error);
    ASSERT_TRUE(b) << error;
    EXPECT_FALSE(check_valid(*b, m, &error)) << bad;
  }
}

TEST(Sfc, AMemoryStreamSteersAwayFromChunksOfAFewColumns) {
  // 1200 x 1200 x 12000 at P = 4 with 12 MB: without a memory bandwidth the plan holds all of C in
  // one tile and takes K in chunks of 8 (bytes alone decide); each call then streams the 11.5 MB
  // tile in and out for 23 MFLOP. With 14 GB/s per rank, the memory stream of the calls is
  // counted and the plan takes smaller tiles with chunks four times as long (1200 x 600 x 32,
  // replicated along K over two layers), whose kernel takes half the time.
  const ir::Program p = product(1200, 1200, 12000, 4, "12 MB");
  Machine m = machine_from(*p.machine);
  m.flops_per_s = 36e9;
  const ContractionAnalysis bytes_only = fixtures::analyze_forced(p, 0, m, "sfc");
  ASSERT_TRUE(bytes_only.plan().feasible) << bytes_only.plan().reason;
  EXPECT_EQ(sfc_plan(bytes_only.plan().plan).chunk, 8) << bytes_only.plan().plan.to_string();
  m.memory_bytes_per_s = 14e9;
  const ContractionAnalysis streamed = fixtures::analyze_forced(p, 0, m, "sfc");
  ASSERT_TRUE(streamed.plan().feasible) << streamed.plan().reason;
  const SfcPlan& s = sfc_plan(streamed.plan().plan);
  EXPECT_GE(s.chunk, 32) << streamed.plan().plan.to_string();
  EXPECT_GT(s.tiles_I * s.tiles_J, 1) << streamed.plan().plan.to_string();
  // The first plan on the streaming machine: its kernel is bound by memory, over 2x slower.
  PlanVolumes old = bytes_only.plan().volumes;
  plan_wall(bytes_only.plan().plan, m, old);
  EXPECT_GT(old.kernel_s, 2.0 * streamed.plan().volumes.kernel_s);
  EXPECT_LT(streamed.plan().volumes.wall_s, old.wall_s);
}

TEST(Sfc, PageFaultsSteerAwayFromShortPanelsOfWideRows) {
  // 1200 x 1200 x 12000 at P = 4 with 12 MB: A's and B's rows are 96 KB apart in their files, so
  // every row of a panel read straight from them starts a new 64 KiB window and faults. Without a
  // fault cost the plan reads panels of 128 columns (85200 runs per rank, as many faults); with
  // 12.5 us per fault it takes chunks of 512 (27600 runs of 4 KB, a few of them across two
  // windows), over 4 layers along K, and the first plan on that machine would take 0.68 s more.
  const ir::Program p = product(1200, 1200, 12000, 4, "12 MB");
  Machine m = machine_from(*p.machine);
  m.flops_per_s = 27e9, m.memory_bytes_per_s = 10e9, m.disk_latency_s = 0.06e-6;
  const ContractionAnalysis plain = fixtures::analyze_forced(p, 0, m, "sfc");
  ASSERT_TRUE(plain.plan().feasible) << plain.plan().reason;
  EXPECT_TRUE(plain.plan().volumes.page_faults.empty());  // not modelled: nothing counted
  EXPECT_EQ(sfc_plan(plain.plan().plan).chunk, 128) << plain.plan().plan.to_string();
  m.page_fault_s = 12.5e-6;
  const ContractionAnalysis faulting = fixtures::analyze_forced(p, 0, m, "sfc");
  ASSERT_TRUE(faulting.plan().feasible) << faulting.plan().reason;
  const PlanVolumes& v = faulting.plan().volumes;
  EXPECT_EQ(sfc_plan(faulting.plan().plan).chunk, 512) << faulting.plan().plan.to_string();
  EXPECT_EQ(v.disk_requests, std::vector<std::uint64_t>(4, 27600));
  EXPECT_EQ(v.page_faults, std::vector<std::uint64_t>(4, 28635));
  // The first plan on the faulting machine: a fault per run.
  PlanVolumes old = plain.plan().volumes;
  const ArrayAccess access{true, true, true, {}, {}, {}};
  plan_requests(plain.plan().plan, m, access, old);
  ASSERT_EQ(old.page_faults.size(), 4u);
  EXPECT_GE(old.page_faults[0], old.disk_requests[0]);
  EXPECT_GT(old.wall_s, v.wall_s + 0.6);
}

TEST(Sfc, PrimeRankCountsAndLargeKStayNearTheBound) {
  // bench/sfc_bench.sh's rows (8 MB per rank): the fullest rank moves at most 1.3x the I/O lower
  // bound on the square product at P = 7, 11, 13 (balanced tile counts), and the large-K product
  // at P = 5 is replicated along K (c = P) and moves at most 1.55x (it is bound by the tile: all of
  // C is one memory, so two tiles read one operand twice, 1.5x).
  for (i64 P : {7, 11, 13}) {
    const ir::Program p = product(4000, 4000, 4000, P, "8 MB");
    const Machine m = machine_from(*p.machine);
    const ContractionAnalysis a = fixtures::analyze_forced(p, 0, m, "sfc");
    ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
    EXPECT_LE(moved_bytes(a.plan().plan, a.plan().volumes, m), 1.3 * a.lower_bound_bytes_per_rank) << P;
  }
  const ir::Program p = product(1000, 1000, 100000, 5, "8 MB");
  const Machine m = machine_from(*p.machine);
  const ContractionAnalysis a = fixtures::analyze_forced(p, 0, m, "sfc");
  ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
  EXPECT_EQ(sfc_plan(a.plan().plan).layers, 5);
  EXPECT_LE(moved_bytes(a.plan().plan, a.plan().volumes, m), 1.55 * a.lower_bound_bytes_per_rank);
}

}  // namespace
}  // namespace tcec::costmodel
