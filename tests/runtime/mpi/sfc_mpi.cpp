// tests/runtime/mpi/sfc_mpi.cpp — SfcGemm on P ranks (P = the MPI world size): C(a,b,c) (+)=
// alpha·Σ_pq A(q,a,p,b)·B(p,c,q), i.e. C(I,J) += alpha·A(I,K)·B(J,K)ᵀ with I = (a,b), J = (c),
// K = (p,q), every tensor stored with permuted dimensions; a 3 x 4 tile grid with uneven tiles,
// chunks not dividing |K|, 2, 3 and 8 panel slots, the tiles walked in a boustrophedon or in a
// shuffled order, cut into uneven segments (some empty); each case once from zero and once
// adding to the result just written; and with replication c along K (every c dividing P: layers
// over K's shares, tiles reduced over the layers, pieces of tiles with fewer rows than c empty).
// The result file equals C₀ + alpha·A·Bᵀ from a plain loop; each rank's compute-phase bytes
// (disk, sent, received) and disk requests equal a replay of sfc_spec.h's THE SCHEDULE written
// here (its own LRU cache); the peak memory is method_buffers; run_tile refuses tiles out of
// order; and check_method refuses bad orders, bad segments, too few slots, bad layers and
// take/keep. Also the panel reads the executors share (runtime/methods/panel_read.h): the same values
// row by row and column by column, and the runs of each order.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <list>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/base/error.h"
#include "runtime/methods/panel_read.h"
#include "runtime/methods/sfc/sfc.h"
#include "runtime/program/run.h"
#include "runtime/spec/spec_check.h"
#include "runtime/storage/disk.h"
#include "runtime/storage/element_file.h"
#include "runtime/storage/npy.h"
#include "tests/runtime/mpi/test_run.h"
#include "tests/runtime/temp_dir.h"

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

constexpr i64 kA = 4, kB = 5, kC = 13, kP = 3, kQ = 5;  // |I| = 20, |J| = 13, |K| = 15
constexpr i64 kM = kA * kB, kN = kC, kK = kP * kQ;
constexpr i64 kTilesI = 3, kTilesJ = 4, kTiles = kTilesI * kTilesJ;  // rows 7, 7, 6; columns 4, 3, 3, 3
constexpr double kAlpha = -0.75;

/// A stored [q, a, p, b]: element (flat row i = a·kB + b, flat column k = p·kQ + q).
u64 linear_A(i64 i, i64 k) { return static_cast<u64>(((k % kQ * kA + i / kB) * kP + k / kQ) * kB + i % kB); }
/// B stored [p, c, q]: element (flat row j = c, flat column k).
u64 linear_B(i64 j, i64 k) { return static_cast<u64>((k / kQ * kC + j) * kQ + k % kQ); }
/// C stored [c, a, b]: element (flat row i, flat column j).
u64 linear_C(i64 i, i64 j) { return static_cast<u64>((j * kA + i / kB) * kB + i % kB); }

/// Rows [from, from + length) of a balanced split of n into g parts, part p (the first n mod g
/// parts one longer), written out here.
std::pair<i64, i64> range_of(i64 n, i64 g, i64 p) {
  i64 from = 0;
  for (i64 x = 0; x < p; ++x) from += n / g + (x < n % g ? 1 : 0);
  return {from, n / g + (p < n % g ? 1 : 0)};
}

/// The tiles row by row, every other row backward.
std::vector<i64> boustrophedon() {
  std::vector<i64> out;
  for (i64 ti = 0; ti < kTilesI; ++ti)
    for (i64 x = 0; x < kTilesJ; ++x) out.push_back(ti * kTilesJ + (ti % 2 == 0 ? x : kTilesJ - 1 - x));
  return out;
}

/// The tiles in a fixed pseudo-random order (the same on every rank).
std::vector<i64> shuffled() {
  std::vector<i64> out(kTiles);
  std::iota(out.begin(), out.end(), 0);
  std::mt19937 gen(2024);
  std::shuffle(out.begin(), out.end(), gen);
  return out;
}

/// Segment bounds for P ranks (of a layer) over `tiles` tiles: rank q's share grows with q + 1,
/// rank 1 gets none (and with rounding others may get none either).
std::vector<i64> segments(i64 P, i64 tiles = kTiles) {
  std::vector<i64> weight(static_cast<std::size_t>(P));
  for (i64 q = 0; q < P; ++q) weight[static_cast<std::size_t>(q)] = q == 1 ? 0 : q + 1;
  const i64 total = std::accumulate(weight.begin(), weight.end(), i64{0});
  std::vector<i64> out = {0};
  i64 sum = 0;
  for (const i64 w : weight) sum += w, out.push_back(tiles * sum / total);
  return out;
}

tcert::GemmSpec spec_of(std::vector<i64> order, std::vector<i64> segment, i64 chunk, i64 slots, bool accumulate,
                        i64 layers = 1, i64 tiles_I = kTilesI, i64 tiles_J = kTilesJ) {
  tcert::GemmSpec spec;
  spec.statement = "sfc C += A B^T";
  spec.plan = "sfc";
  tcert::SfcSpec& sfc = spec.method.emplace<tcert::SfcSpec>();
  sfc.tiles_I = tiles_I, sfc.tiles_J = tiles_J, sfc.chunk = chunk, sfc.slots = slots, sfc.layers = layers;
  sfc.order = std::move(order), sfc.segment = std::move(segment);
  spec.I = {{{kA, 1, 1}, {kB, 1, 1}}, -1};
  spec.J = {{{kC, 1, 1}}, -1};
  spec.K = {{{kP, 1, 1}, {kQ, 1, 1}}, -1};
  spec.A = {{"A", {kQ, kA, kP, kB}}, {1, 3, 2, 0}};
  spec.B = {{"B", {kP, kC, kQ}}, {1, 0, 2}};
  spec.C = {{"C", {kC, kA, kB}}, {1, 2, 0}};
  spec.alpha = kAlpha;
  spec.accumulate = accumulate;
  spec.direct_C = true;
  return spec;
}

/// Rank r's compute-phase volumes by THE SCHEDULE on P ranks: disk read, disk write, sent and
/// received (bytes), requests; and the cache's hits and evictions.
struct Replay {
  u64 read = 0, write = 0, sent = 0, received = 0, requests = 0, hits = 0, evictions = 0;
};

Replay replay(const tcert::SfcSpec& s, bool accumulate, i64 r, i64 P) {
  using Key = std::tuple<int, i64, i64>;                    // (operand 0 = A / 1 = B, tile, chunk)
  const i64 c = s.layers, g = P / c, x = r / g, q = r % g;  // layer x, position q
  const auto [k0, kx] = range_of(kK, c, x);                 // the layer's K columns
  Replay out;
  std::vector<Key> slot(static_cast<std::size_t>(s.slots));
  std::vector<bool> full(static_cast<std::size_t>(s.slots), false);
  std::list<std::size_t> recent;  // slots in use, most recently used first
  auto use = [&](const Key& key) {
    for (auto it = recent.begin(); it != recent.end(); ++it)
      if (slot[*it] == key) {  // a hit: to the front
        ++out.hits;
        recent.splice(recent.begin(), recent, it);
        return;
      }
    std::size_t to = 0;  // a miss: the lowest free slot, else the least recently used
    while (to < full.size() && full[to]) ++to;
    if (to == full.size()) to = recent.back(), recent.pop_back(), ++out.evictions;
    full[to] = true, slot[to] = key, recent.push_front(to);
    const auto [operand, tile, chunk] = key;
    const auto [r0, rows] = range_of(operand == 0 ? kM : kN, operand == 0 ? s.tiles_I : s.tiles_J, tile);
    const i64 c0 = k0 + chunk * s.chunk, width = std::min(k0 + kx, c0 + s.chunk) - c0;
    // A's innermost stored dimension is a row index (b), B's a column index (q).
    out.requests += operand == 0 ? tcert_test::panel_runs({{r0, rows}}, c0, width, true, linear_A, out.read)
                                 : tcert_test::panel_runs({{r0, rows}}, c0, width, false, linear_B, out.read);
  };
  const i64 chunks = (kx + s.chunk - 1) / s.chunk;
  const auto first = s.segment[static_cast<std::size_t>(q)];
  for (i64 w = 0; w < s.segment[static_cast<std::size_t>(q + 1)] - first; ++w) {
    const i64 t = s.order[static_cast<std::size_t>(first + w)];
    const auto [i0, rows] = range_of(kM, s.tiles_I, t / s.tiles_J);
    const auto [j0, cols] = range_of(kN, s.tiles_J, t % s.tiles_J);
    for (i64 step = 0; step < chunks; ++step) {
      const i64 chunk = w % 2 == 0 ? step : chunks - 1 - step;
      use({0, t / s.tiles_J, chunk});
      use({1, t % s.tiles_J, chunk});
    }
    // The ring reduce-scatter over the layers (its pieces: the layers' rows), then this rank's rows.
    const auto [p0, mine] = range_of(rows, c, x);
    if (c > 1) {
      out.sent += 8 * static_cast<u64>((rows - mine) * cols);
      out.received += 8 * static_cast<u64>((rows - range_of(rows, c, (x + c - 1) % c).second) * cols);
    }
    auto piece_pass = [&](u64& bytes) {
      if (mine == 0) return;
      tcert_test::Runs runs;
      for (i64 i = i0 + p0; i < i0 + p0 + mine; ++i)
        for (i64 j = j0; j < j0 + cols; ++j) runs.at(linear_C(i, j)), bytes += 8;
      out.requests += runs.runs;
    };
    if (accumulate) piece_pass(out.read);
    piece_pass(out.write);
  }
  return out;
}

/// All elements of the current version of C (every rank reads it).
std::vector<double> read_C(tcert::Run& run) {
  if (run.store().latest("C").empty()) return std::vector<double>(static_cast<std::size_t>(kM * kN), 0.0);
  run.held().write_out(run.store().latest("C"));  // one rank: held in memory, unwritten
  const tcert::NpyReader file(run.store().latest("C"));
  return {file.data(), file.data() + kM * kN};
}

/// (a) The latest version of C against C₀ + alpha·A·Bᵀ, element by element (`where` names the case).
void expect_result(tcert::Run& run, const std::vector<double>& c0, const tcert::ElementSource& a,
                   const tcert::ElementSource& b, const std::string& where) {
  run.held().write_out(run.store().latest("C"));  // one rank: held in memory, unwritten
  const tcert::NpyReader result(run.store().latest("C"));
  for (i64 i = 0; i < kM; ++i)
    for (i64 j = 0; j < kN; ++j) {
      const double before = c0[linear_C(i, j)];
      double sum = 0, scale = std::fabs(before);
      for (i64 k = 0; k < kK; ++k) {
        const double term = kAlpha * a(linear_A(i, k)) * b(linear_B(j, k));
        sum += term, scale += std::fabs(term);
      }
      ASSERT_NEAR(result.data()[linear_C(i, j)], before + sum, 1e-12 * scale)
          << "C(" << i << ", " << j << ") " << where;
    }
}

TEST(PanelRead, ColumnByColumnWhereTheRowsHoldTheInnermostDimensionSameValuesFewerRuns) {
  // Rows (a, b) 6 x 70, columns (p, q) 5 x 9 of a tensor stored [p, a, q, b] (b innermost: read
  // column by column) and [a, b, p, q] (row by row); several ranges of rows, one past a block of
  // 256. The panel holds each element at row i, column c of the panel (row-major, stride kc),
  // and the pass counts the runs of the runtime's order (tcert_test::panel_runs()), from memory
  // and from a file read with explicit requests.
  tcert::Context ctx = tcert::Context::world();
  const std::unique_ptr<tcert::Run> test_run = tcert_test::make_test_run(ctx, "panel_read_mpi", 3);
  const std::vector<std::pair<i64, i64>> rows = {{3, 40}, {60, 300}, {361, 2}, {380, 1}};
  for (const std::vector<int>& perm : {std::vector<int>{1, 3, 0, 2}, std::vector<int>{0, 1, 2, 3}}) {
    const std::vector<i64> extents = {6, 70, 5, 9};
    std::vector<i64> stored(4), stride(4, 1);
    for (std::size_t p = 0; p < 4; ++p) stored[static_cast<std::size_t>(perm[p])] = extents[p];
    for (std::size_t d = 3; d-- > 0;) stride[d] = stride[d + 1] * stored[d + 1];
    const auto linear = [&](i64 r, i64 c) {
      const i64 v[4] = {r / 70, r % 70, c / 9, c % 9};
      u64 at = 0;
      for (std::size_t p = 0; p < 4; ++p) at += static_cast<u64>(v[p] * stride[static_cast<std::size_t>(perm[p])]);
      return at;
    };
    std::vector<double> file(6 * 70 * 5 * 9);
    for (std::size_t e = 0; e < file.size(); ++e) file[e] = 0.5 + static_cast<double>(e);
    // The same elements in memory and in a file read with explicit requests (element_file.h).
    const tcert_test::TempDir dir;
    const std::string path = dir.file("x.bin");
    tcert::DiskFile(path).write(file.data(), 0, file.size());
    const tcert::ElementSource sources[2] = {
        tcert::ElementSource(file.data()),
        tcert::ElementSource(std::make_shared<const tcert::ElementFile>(path, 0, false), nullptr)};
    tcert::SplitMap map({{"X", stored}, perm}, {6, 70}, {5, 9});
    for (const tcert::ElementSource& source : sources)
      for (const auto& [k0, kc] : {std::pair<i64, i64>{0, 45}, {7, 13}, {44, 1}}) {
        std::vector<double> panel(343 * static_cast<std::size_t>(kc), -1.0);
        tcert::counters().reset();
        const i64 copied = tcert::read_panel_rows(*test_run, map, source, rows, k0, kc, panel.data());
        EXPECT_EQ(copied, 343 * kc);
        u64 read = 0;
        const u64 want = tcert_test::panel_runs(rows, k0, kc, perm[1] == 3, linear, read);
        EXPECT_EQ(tcert::counters().total().disk_requests, want) << perm[1] << " " << k0 << "+" << kc;
        EXPECT_EQ(tcert::counters().total().disk_read_bytes, read);
        i64 i = 0;
        for (const auto& [first, count] : rows)
          for (i64 r = first; r < first + count; ++r, ++i)
            for (i64 c = 0; c < kc; ++c)
              ASSERT_EQ(panel[static_cast<std::size_t>(i * kc + c)], file[linear(r, k0 + c)])
                  << "row " << r << " column " << k0 + c;
      }
  }
  tcert::counters().reset();
}

TEST(SfcGemm, CurvesSegmentsAndCachesGiveC0PlusAlphaABtAndMeasureTheSchedule) {
  tcert::Context ctx = tcert::Context::world();
  const i64 P = ctx.size();
  const std::unique_ptr<tcert::Run> test_run = tcert_test::make_test_run(ctx, "sfc_mpi", 7, true);
  tcert::Run& run = *test_run;
  const tcert::ElementSource a = run.input({"A", {kQ, kA, kP, kB}}), b = run.input({"B", {kP, kC, kQ}});
  u64 hits = 0, evictions = 0;
  for (const auto& [name, order] : {std::pair{"boustrophedon", boustrophedon()}, std::pair{"shuffled", shuffled()}})
    for (const i64 chunk : {i64{4}, i64{6}})
      for (const i64 slots : {i64{2}, i64{3}, i64{8}})
        for (const bool accumulate : {false, true}) {
          tcert::GemmSpec spec = spec_of(order, segments(P), chunk, slots, accumulate);
          const tcert::SfcSpec part = std::get<tcert::SfcSpec>(spec.method);
          const u64 buffers = tcert::step_memory(spec, 0).peak_bytes;
          const u64 checked_before = run.records().verify_result().checked;
          const std::vector<double> c0 = accumulate ? read_C(run) : std::vector<double>(kM * kN, 0.0);
          ctx.barrier();  // every rank has read C₀ before a new version appears
          tcert::SfcGemm sfc(run, std::move(spec));
          EXPECT_THROW(sfc.run_tile(sfc.tiles() > 0 ? 1 : 0), tcert::Error);  // not the first tile
          sfc.compute([&] {
            for (i64 w = 0; w < sfc.tiles(); ++w) sfc.run_tile(w);
          });
          EXPECT_THROW(sfc.run_tile(sfc.tiles()), tcert::Error);  // past the last
          if (sfc.tiles() > 0) {
            EXPECT_THROW(sfc.run_tile(0), tcert::Error);  // again
          }
          sfc.finish();
          const std::string where = std::string(name) + " chunk " + std::to_string(chunk) + " slots " +
                                    std::to_string(slots) + (accumulate ? " accumulate" : "");
          expect_result(run, c0, a, b, where);  // (a)
          EXPECT_EQ(run.records().verify_result().checked - checked_before, static_cast<u64>(kM * kN)) << where;
          EXPECT_LE(run.records().verify_result().max_rel_error, 1e-12) << where;
          // (b) each rank's compute-phase volumes; (c) its peak memory
          const tcert::ContractionRecord& rec = run.records().contractions().back();
          for (i64 q = 0; q < P; ++q) {
            const auto r = static_cast<std::size_t>(q);
            const Replay want = replay(part, accumulate, q, P);
            hits += want.hits, evictions += want.evictions;
            const bool active = part.segment[r + 1] > part.segment[r];
            tcert_test::expect_direct_volumes(rec, q, want.read, want.write, want.requests, active ? buffers : 0u,
                                              where);
          }
          EXPECT_EQ(rec.algorithm, "sfc") << where;
          ctx.barrier();  // every rank has read the result before the next version
        }
  EXPECT_GT(hits, 0u);       // the cache served panels …
  EXPECT_GT(evictions, 0u);  // … and evicted some
}

TEST(SfcGemm, LayersAlongKReduceTheirPartialTilesAndMeasureTheSchedule) {
  tcert::Context ctx = tcert::Context::world();
  const i64 P = ctx.size();
  const std::unique_ptr<tcert::Run> test_run = tcert_test::make_test_run(ctx, "sfc_layers_mpi", 11);
  tcert::Run& run = *test_run;
  const tcert::ElementSource a = run.input({"A", {kQ, kA, kP, kB}}), b = run.input({"B", {kP, kC, kQ}});
  u64 moved = 0;
  for (i64 c = 1; c <= P; ++c) {
    if (P % c != 0) continue;
    // The 3 x 4 grid (7, 7, 6 rows), and a 5 x 2 one of 4 rows a tile: with c = 5 its last layer's
    // pieces are empty.
    for (const auto& [Ti, Tj] : {std::pair<i64, i64>{kTilesI, kTilesJ}, std::pair<i64, i64>{5, 2}})
      for (const i64 chunk : {i64{2}, (kK + c - 1) / c})  // (the second: all of the largest layer's share)
        for (const i64 slots : {i64{2}, i64{5}})
          for (const bool accumulate : {false, true}) {
            std::vector<i64> order;  // the tiles row by row, every other row backward
            for (i64 ti = 0; ti < Ti; ++ti)
              for (i64 x = 0; x < Tj; ++x) order.push_back(ti * Tj + (ti % 2 == 0 ? x : Tj - 1 - x));
            tcert::GemmSpec spec = spec_of(order, segments(P / c, Ti * Tj), chunk, slots, accumulate, c, Ti, Tj);
            const tcert::SfcSpec part = std::get<tcert::SfcSpec>(spec.method);
            const u64 buffers = tcert::step_memory(spec, 0).peak_bytes;
            const u64 checked_before = run.records().verify_result().checked;
            const std::vector<double> c0 = accumulate ? read_C(run) : std::vector<double>(kM * kN, 0.0);
            ctx.barrier();  // every rank has read C₀ before a new version appears
            tcert::SfcGemm sfc(run, std::move(spec));
            sfc.compute([&] {
              for (i64 w = 0; w < sfc.tiles(); ++w) sfc.run_tile(w);
            });
            sfc.finish();
            const std::string where = "c " + std::to_string(c) + " grid " + std::to_string(Ti) + "x" +
                                      std::to_string(Tj) + " chunk " + std::to_string(chunk) + " slots " +
                                      std::to_string(slots) + (accumulate ? " accumulate" : "");
            expect_result(run, c0, a, b, where);  // (a)
            EXPECT_EQ(run.records().verify_result().checked - checked_before, static_cast<u64>(kM * kN)) << where;
            // (b) each rank's compute-phase volumes, network too; (c) its peak memory
            const tcert::ContractionRecord& rec = run.records().contractions().back();
            for (i64 r = 0; r < P; ++r) {
              const auto at = static_cast<std::size_t>(r);
              const Replay want = replay(part, accumulate, r, P);
              moved += want.sent;
              EXPECT_EQ(rec.measured.disk_read_bytes[at], want.read) << "disk read of rank " << r << ", " << where;
              EXPECT_EQ(rec.measured.disk_write_bytes[at], want.write) << "disk write of rank " << r << ", " << where;
              EXPECT_EQ(rec.measured.comm_sent_bytes[at], want.sent) << "sent by rank " << r << ", " << where;
              EXPECT_EQ(rec.measured.comm_recv_bytes[at], want.received) << "received by rank " << r << ", " << where;
              EXPECT_EQ(rec.measured.disk_requests[at], want.requests)
                  << "disk requests of rank " << r << ", " << where;
              const auto q = static_cast<std::size_t>(r % (P / c));
              const bool active = part.segment[q + 1] > part.segment[q];
              EXPECT_EQ(rec.peak_tile_memory_bytes[at], active ? buffers : 0u) << "peak of rank " << r << ", " << where;
            }
            ctx.barrier();  // every rank has read the result before the next version
          }
  }
  if (P > 1) {
    EXPECT_GT(moved, 0u);  // c = P > 1 reduced tiles over the network
  }
}

TEST(SfcGemm, CheckMethodRefusesBadOrdersBadSegmentsFewSlotsBadLayersAndTakeKeep) {
  const i64 P = 4;
  const tcert::GemmSpec good = spec_of(shuffled(), segments(P), 4, 3, true);
  const tcert::SfcSpec& part = std::get<tcert::SfcSpec>(good.method);
  EXPECT_NO_THROW(tcert::check_method(part, good, P));
  EXPECT_NO_THROW(tcert::check_spec(good, P, 0));
  // Buffers: the C tile ⌈20/3⌉ · ⌈13/4⌉ = 28 and 3 slots of max(7, 4) · 4 = 28 elements.
  const std::vector<tcert::MemoryPart> buffers = tcert::method_buffers(part, good);
  ASSERT_EQ(buffers.size(), 2u);
  EXPECT_EQ(buffers[0].what, "C tile");
  EXPECT_EQ(buffers[0].bytes, 8u * 28);
  EXPECT_EQ(buffers[1].what, "panel slots");
  EXPECT_EQ(buffers[1].bytes, 8u * 3 * 28);
  auto refused = [&](const tcert::SfcSpec& bad, const tcert::GemmSpec& spec, const std::string& what) {
    try {
      tcert::check_method(bad, spec, P);
      ADD_FAILURE() << "not refused: " << what;
    } catch (const tcert::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  auto invalid = [&](const tcert::SfcSpec& bad, const std::string& what) {
    EXPECT_NE(refused(bad, good, what).find("invalid sfc schedule"), std::string::npos) << what;
  };
  tcert::SfcSpec twice = part;  // a tile twice, another never
  twice.order[5] = twice.order[2];
  invalid(twice, "duplicate tile");
  tcert::SfcSpec outside = part;
  outside.order[0] = kTiles;
  invalid(outside, "tile outside the grid");
  tcert::SfcSpec short_order = part;
  short_order.order.pop_back();
  invalid(short_order, "order too short");
  tcert::SfcSpec falling = part;  // segments not rising
  falling.segment = {0, 8, 5, 10, 12};
  invalid(falling, "falling segments");
  tcert::SfcSpec few = part;  // P entries, not P + 1
  few.segment = {0, 5, 9, 12};
  invalid(few, "too few segments");
  tcert::SfcSpec uncovered = part;  // the last tiles walked by no rank
  uncovered.segment = {0, 3, 6, 9, 11};
  invalid(uncovered, "segments end early");
  tcert::SfcSpec late = part;
  late.segment = {1, 3, 6, 9, 12};
  invalid(late, "segments start late");
  tcert::SfcSpec one_slot = part;
  one_slot.slots = 1;
  invalid(one_slot, "one slot");
  tcert::SfcSpec grid = part;  // more row tiles than rows
  grid.tiles_I = kM + 1;
  invalid(grid, "grid");
  tcert::SfcSpec chunk = part;
  chunk.chunk = 0;
  invalid(chunk, "chunk 0");
  chunk.chunk = kK + 1;
  invalid(chunk, "chunk beyond K");
  // Layers: c must divide the ranks and not exceed |K|; chunks within ⌈|K|/c⌉; P/c + 1 segment
  // bounds; the reduction's scratch of one slot.
  tcert::SfcSpec layered = part;
  layered.layers = 2, layered.segment = {0, 5, 12};
  EXPECT_NO_THROW(tcert::check_method(layered, good, P));
  const std::vector<tcert::MemoryPart> layered_buffers = tcert::method_buffers(layered, good);
  ASSERT_EQ(layered_buffers.size(), 3u);
  EXPECT_EQ(layered_buffers[2].what, "reduction scratch");
  EXPECT_EQ(layered_buffers[2].bytes, 8u * 28);
  tcert::SfcSpec three = layered;
  three.layers = 3;
  invalid(three, "c = 3 does not divide 4 ranks");
  tcert::SfcSpec zero = layered;
  zero.layers = 0;
  invalid(zero, "c = 0");
  tcert::SfcSpec wide = layered;
  wide.chunk = (kK + 1) / 2 + 1;
  invalid(wide, "chunk beyond a layer's share of K");
  tcert::SfcSpec all_segments = layered;
  all_segments.segment = segments(P);
  invalid(all_segments, "P + 1 segment bounds for 2 layers");
  const std::string take_keep = "sfc reads its operands from their tensors";
  for (const auto flag :
       {&tcert::GemmSpec::take_A, &tcert::GemmSpec::take_B, &tcert::GemmSpec::take_C, &tcert::GemmSpec::keep_result}) {
    tcert::GemmSpec bad = good;
    bad.*flag = true;
    EXPECT_NE(refused(part, bad, "take/keep").find(take_keep), std::string::npos);
  }
  // check_spec reaches SfcSpec's checks through MethodSpec: 5 segment bounds for 3 ranks.
  EXPECT_THROW(tcert::check_spec(good, P - 1, 0), tcert::Error);
}

}  // namespace
