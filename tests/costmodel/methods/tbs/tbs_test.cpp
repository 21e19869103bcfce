// TBS (Beaumont et al. SPAA'22 §5.1) in the cost model: the triangle-block family covers the
// lower triangle once within its memory, the plan's volumes equal the walk, its disk requests a
// replay of every element it touches, and the planner uses it for symmetric contractions only.
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/methods/pass_runs.h"
#include "costmodel/methods/tbs/tbs_method.h"
#include "frontend/frontend.h"
#include "tests/costmodel/fixtures.h"

namespace tcec::costmodel {
namespace {

using i64 = std::int64_t;

/// C[i,j] = A[i,k] * A[j,k] with |i| = |j| = n, |k| = m on `machine` (a machine block).
std::string syrk_source(i64 n, i64 m, const std::string& machine, const std::string& op = "=") {
  return fmt::format(
      "range N = {};\nrange M = {};\nindex i, j : N;\nindex k : M;\ntensor A[N,M] input;\n"
      "tensor C[N,N] output;\nC[i,j] {} A[i,k] * A[j,k];\n{}\n",
      n, m, op, machine);
}

/// Asserts that the blocks of `s` cover each pair (i, j), i >= j, of n rows exactly once.
void expect_exact_cover(const TbsSchedule& s, i64 n) {
  std::vector<char> seen(static_cast<std::size_t>(n * n), 0);
  for (const TbsBlock& b : s.blocks)
    for (std::size_t u = 0; u < b.starts.size(); ++u)
      for (std::size_t v = 0; v <= u; ++v) {
        if ((u == v && !b.diagonal) || (b.stream && v != 0)) continue;
        for (i64 i = b.starts[u]; i < b.starts[u] + b.lengths[u]; ++i)
          for (i64 j = b.starts[v]; j < b.starts[v] + b.lengths[v] && (u != v || j <= i); ++j)
            ++seen[static_cast<std::size_t>(i * n + j)];
      }
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j <= i; ++j) ASSERT_EQ(seen[static_cast<std::size_t>(i * n + j)], 1) << n << " " << i << " " << j;
}

TEST(TbsFamily, CoversTheLowerTriangleOnceWithinItsMemory) {
  for (auto [n, words] : {std::pair<i64, i64>{3, 1},
                          {37, 100},
                          {100, 50},
                          {150, 1000},
                          {333, 777},
                          {500, 3000},
                          {1000, 20000},
                          {7000, 120000}}) {
    const TbsSchedule s = tbs_schedule(n, words, 3);
    ASSERT_FALSE(s.blocks.empty()) << n << " " << words;
    i64 rows = 0;
    for (const TbsBlock& b : s.blocks) {
      EXPECT_LE(b.block_elements(), words);
      EXPECT_GE(b.rank, 0);
      EXPECT_LT(b.rank, 3);
      rows += b.rows();
    }
    expect_exact_cover(s, n);
    EXPECT_EQ(rows, tbs_rows_read(n, words));
  }
  // Streamed panels of 45 rows against the rows below in groups of 7, the panels' triangles in
  // blocks of 300 elements.
  const TbsSchedule streamed = tbs_schedule(200, 300, 4, TbsStream{45, 7, 3});
  expect_exact_cover(streamed, 200);
  EXPECT_EQ(streamed.stream_elements, (45 + 7) * 3);
  EXPECT_EQ(streamed.buffer_rows(2), std::max<i64>(streamed.panel_rows, (52 * 3 + 1) / 2));
}

TEST(TbsFamily, OneLeafWhenTheTriangleFitsAndStripsForOddRows) {
  const TbsSchedule leaf = tbs_schedule(10, 100, 1);  // (10² + 10²)/2 = 100 elements: one tile
  ASSERT_EQ(leaf.blocks.size(), 1u);
  EXPECT_TRUE(leaf.blocks[0].diagonal);
  EXPECT_EQ(leaf.blocks[0].lengths, std::vector<i64>{10});
  EXPECT_EQ(tbs_rows_read(10, 100), 10);
  // Blocks of one element: two rows in one block, the third row against them in two, three leaves.
  EXPECT_EQ(tbs_schedule(3, 1, 1).blocks.size(), 6u);
  EXPECT_EQ(tbs_rows_read(3, 1), 2 + 1 + 1 + 2 + 2 + 1);
  EXPECT_TRUE(tbs_schedule(3, 0, 1).blocks.empty());  // no block holds nothing
  EXPECT_EQ(tbs_rows_read(3, 0), -1);
}

TEST(TbsFamily, ReadsWithinTenPercentOfTheLeadingTermForLargeN) {
  // N²/√(2S) rows (Beaumont et al. Theorem 5.6's leading term, tiled) for N = 40√S.
  const i64 words = 120000, n = 14000;
  const double leading = static_cast<double>(n) * static_cast<double>(n) / std::sqrt(2.0 * words);
  EXPECT_LT(static_cast<double>(tbs_rows_read(n, words)), 1.1 * leading);
}

TEST(TbsFamily, DealsBlocksEvenlyByWork) {
  const TbsSchedule s = tbs_schedule(2000, 20000, 4);
  std::vector<i64> load(4, 0);
  i64 largest = 0;
  for (const TbsBlock& b : s.blocks)
    load[static_cast<std::size_t>(b.rank)] += b.pairs(), largest = std::max(largest, b.pairs());
  EXPECT_LE(*std::max_element(load.begin(), load.end()) - *std::min_element(load.begin(), load.end()), largest);
}

TEST(Tbs, SymmetricContractionsAreRecognised) {
  auto symmetric = [](const std::string& decls, const std::string& statement) {
    const ir::Program p = fixtures::parse_program(decls + statement + "\n");
    return ir::macro_index_gemm(p, p.statements[0]).symmetric;
  };
  const std::string m =
      "range N = 4;\nindex i, j, k : N;\ntensor A[N,N] input;\ntensor B[N,N] input;\ntensor C[N,N] output;\n";
  EXPECT_TRUE(symmetric(m, "C[i,j] = A[i,k] * A[j,k];"));
  EXPECT_TRUE(symmetric(m, "C[i,j] = A[k,i] * A[k,j];"));
  EXPECT_TRUE(symmetric(m, "C[j,i] = A[i,k] * A[j,k];"));   // C's own layout does not matter
  EXPECT_FALSE(symmetric(m, "C[i,j] = A[i,k] * A[k,j];"));  // A·A: not at the same positions
  EXPECT_FALSE(symmetric(m, "C[i,j] = A[i,k] * B[j,k];"));  // two tensors
  const std::string four =
      "range A = 3;\nrange B = 5;\nindex a, c, p : A;\nindex b, d, q : B;\n"
      "tensor X[A,B,A,B] input;\ntensor G[A,B,A,B] output;\n";
  EXPECT_TRUE(symmetric(four, "G[a,b,c,d] = X[a,b,p,q] * X[c,d,p,q];"));
  EXPECT_TRUE(symmetric(four, "G[a,b,c,d] = X[p,b,a,q] * X[p,d,c,q];"));
  EXPECT_FALSE(symmetric(four, "G[a,b,c,d] = X[a,b,p,q] * X[p,q,c,d];"));
}

TEST(Tbs, PlansTheIssueExampleWithLessThanSixTenthsOfTheGeneralReads) {
  // N = 2000, M = 3000, 6 MB on one processor (the issue's example): the general plans read
  // 320 MB or more; TBS's A rows read once per block.
  const std::string machine = "machine m { processors 1; memory 6 MB; network 1 GB/s; disk 500 MB/s; }";
  const ir::Program p = fixtures::parse_program(syrk_source(2000, 3000, machine));
  const Machine m = machine_from(*p.machine);
  const ContractionAnalysis a = analyze(p, p.statements[0], m, {});
  ASSERT_TRUE(a.plan().feasible);
  ASSERT_TRUE(std::holds_alternative<TbsPlan>(a.plan().plan.method)) << a.plan().plan.to_string();
  PlanOptions general;
  general.symmetry = false;
  const ContractionAnalysis g = analyze(p, p.statements[0], m, general);
  ASSERT_TRUE(g.plan().feasible);
  EXPECT_FALSE(std::holds_alternative<TbsPlan>(g.plan().plan.method));
  const double tbs = static_cast<double>(a.plan().volumes.disk_read_bytes[0] + a.plan().volumes.comm_recv_bytes[0]);
  const double best = static_cast<double>(g.plan().volumes.disk_read_bytes[0] + g.plan().volumes.comm_recv_bytes[0]);
  EXPECT_LE(tbs, 0.6 * best) << tbs << " vs " << best;
  EXPECT_EQ(a.plan().volumes.disk_write_bytes[0], 2000u * 2000u * 8u);  // both triangles, once
  EXPECT_EQ(a.plan().volumes.comm_recv_bytes[0], 0u);
  const PlanVolumes walked = simulate(a.plan().plan, m);
  EXPECT_EQ(walked.disk_read_bytes, a.plan().volumes.disk_read_bytes);
  EXPECT_EQ(walked.disk_write_bytes, a.plan().volumes.disk_write_bytes);
  std::string error;
  const std::optional<Plan> back =
      parse_plan(a.plan().plan.to_string(), a.plan().plan.I, a.plan().plan.J, a.plan().plan.K, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, a.plan().plan);
}

TEST(Tbs, VolumesEqualTheWalkOnEveryRank) {
  const std::string machine = "machine m { processors 3; memory 64 KB; network 1 GB/s; disk 500 MB/s; }";
  const ir::Program p = fixtures::parse_program(syrk_source(150, 70, machine));
  Machine m = machine_from(*p.machine);
  for (i64 P : {1, 2, 3, 5}) {
    m.processors = P;
    const ContractionAnalysis a = fixtures::analyze_forced(p, 0, m, "tbs");
    ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
    const PlanVolumes walked = simulate(a.plan().plan, m);
    EXPECT_EQ(walked.disk_read_bytes, a.plan().volumes.disk_read_bytes) << P;
    EXPECT_EQ(walked.disk_write_bytes, a.plan().volumes.disk_write_bytes) << P;
    EXPECT_EQ(a.plan().volumes.disk_read_bytes.size(), static_cast<std::size_t>(P));
  }
}

/// Disk requests per rank of schedule `s` replayed element by element as runtime/spec/tbs_spec.h's
/// THE SCHEDULE reads and writes them: a_at(r, k) and c_at(r, c) are the file offsets.
template <class AAt, class CAt>
std::vector<std::uint64_t> replay_requests(const TbsSchedule& s, i64 P, i64 K, i64 chunk, AAt a_at, CAt c_at) {
  std::vector<std::uint64_t> want(static_cast<std::size_t>(P), 0);
  for (const TbsBlock& b : s.blocks) {
    auto count = [&](const std::vector<i64>& offsets) {
      std::uint64_t runs = 0;
      for (std::size_t i = 0; i < offsets.size(); ++i) runs += i == 0 || offsets[i] != offsets[i - 1] + 1;
      want[static_cast<std::size_t>(b.rank)] += runs;
    };
    auto panel = [&](std::size_t first, std::size_t end, i64 k0, i64 kc) {
      std::vector<i64> offsets;
      for (std::size_t u = first; u < end; ++u)
        for (i64 r = b.starts[u]; r < b.starts[u] + b.lengths[u]; ++r)
          for (i64 k = k0; k < k0 + kc; ++k) offsets.push_back(a_at(r, k));
      count(offsets);
    };
    auto tile = [&](std::size_t u, std::size_t v) {
      std::vector<i64> offsets;
      for (i64 r = b.starts[u]; r < b.starts[u] + b.lengths[u]; ++r)
        for (i64 c = b.starts[v]; c < b.starts[v] + b.lengths[v]; ++c) offsets.push_back(c_at(r, c));
      count(offsets);
    };
    if (b.stream) {
      for (std::size_t u = 0; u < b.starts.size(); ++u) {
        panel(u, u + 1, 0, K);
        if (u > 0) tile(u, 0), tile(0, u);
      }
      continue;
    }
    for (i64 k0 = 0; k0 < K; k0 += chunk) panel(0, b.starts.size(), k0, std::min(chunk, K - k0));
    for (std::size_t u = 0; u < b.starts.size(); ++u)
      for (std::size_t v = 0; v < u; ++v) tile(u, v), tile(v, u);
    if (b.diagonal)
      for (std::size_t u = 0; u < b.starts.size(); ++u) tile(u, u);
  }
  return want;
}

/// Page faults per rank of the A panel passes of schedule `s`, replayed element by element: the
/// distinct fault-around windows each pass touches (costmodel/methods/pass_runs.h), a_at(r, k)
/// the file offset.
template <class AAt>
std::vector<double> replay_faults(const TbsSchedule& s, i64 P, i64 K, i64 chunk, AAt a_at) {
  std::vector<double> want(static_cast<std::size_t>(P), 0);
  for (const TbsBlock& b : s.blocks) {
    auto panel = [&](std::size_t first, std::size_t end, i64 k0, i64 kc) {
      std::set<i64> windows;
      for (std::size_t u = first; u < end; ++u)
        for (i64 r = b.starts[u]; r < b.starts[u] + b.lengths[u]; ++r)
          for (i64 k = k0; k < k0 + kc; ++k) windows.insert(a_at(r, k) / kFaultAroundElements);
      want[static_cast<std::size_t>(b.rank)] += static_cast<double>(windows.size());
    };
    if (b.stream) {
      for (std::size_t u = 0; u < b.starts.size(); ++u) panel(u, u + 1, 0, K);
      continue;
    }
    for (i64 k0 = 0; k0 < K; k0 += chunk) panel(0, b.starts.size(), k0, std::min(chunk, K - k0));
  }
  return want;
}

TEST(Tbs, PageFaultsAreTheWindowsItsPanelsTouch) {
  // A's rows are 160 KB apart: each row of a panel faults. Only with a fault cost are they counted.
  const std::string machine = "machine m { processors 2; memory 4 MB; network 1 GB/s; disk 500 MB/s; }";
  const ir::Program p = fixtures::parse_program(syrk_source(600, 20000, machine));
  Machine m = machine_from(*p.machine);
  EXPECT_TRUE(fixtures::analyze_forced(p, 0, m, "tbs").plan().volumes.page_faults.empty());
  m.page_fault_s = 10e-6;
  const ContractionAnalysis a = fixtures::analyze_forced(p, 0, m, "tbs");
  ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
  const std::vector<double> want = replay_faults(tbs_schedule(a.plan().plan), 2, 20000, tbs_plan(a.plan().plan).chunk,
                                                 [](i64 r, i64 k) { return r * 20000 + k; });
  ASSERT_EQ(a.plan().volumes.page_faults.size(), 2u);
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_GT(want[r], 0.0);
    EXPECT_NEAR(static_cast<double>(a.plan().volumes.page_faults[r]), want[r], 0.02 * want[r]) << r;
  }
}

TEST(Tbs, RequestsEqualAReplayOfEveryElement) {
  // G[a,b,c,d] = X[p,b,a,q] * X[p,d,c,q]: permuted A, C in its own order; A panels of a few
  // K columns, so runs break inside and between rows.
  const ir::Program p = fixtures::parse_program(
      "range A = 3;\nrange B = 5;\nrange Q = 4;\nindex a, c : A;\nindex b, d : B;\n"
      "index p : A;\nindex q : Q;\ntensor X[A,B,A,Q] input;\ntensor G[A,B,A,B] output;\n"
      "G[a,b,c,d] = X[p,b,a,q] * X[p,d,c,q];\n"
      "machine m { processors 3; memory 2 KB; network 1 GB/s; disk 500 MB/s; }\n");
  const Machine m = machine_from(*p.machine);
  const ContractionAnalysis a = fixtures::analyze_forced(p, 0, m, "tbs");
  ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
  const TbsSchedule s = tbs_schedule(a.plan().plan);
  ASSERT_GT(s.blocks.size(), 2u);
  // Offsets: X is stored [p,b,a,q] (extents 3,5,3,4); G [a,b,c,d] (3,5,3,5). Rows r = a·5 + b.
  auto x_at = [](i64 r, i64 k) { return (k / 4) * 60 + (r % 5) * 12 + (r / 5) * 4 + k % 4; };
  auto g_at = [](i64 r, i64 c) { return (r / 5) * 75 + (r % 5) * 15 + (c / 5) * 5 + c % 5; };
  EXPECT_EQ(a.plan().volumes.disk_requests, replay_requests(s, 3, 12, tbs_plan(a.plan().plan).chunk, x_at, g_at));
}

TEST(Tbs, StreamsPanelsForAShortK) {
  // |K| = 4 and reads a hundred times dearer than writes: panels of A's rows held whole, the
  // rows below streamed past them; volumes equal the walk, requests a replay.
  const ir::Program p = fixtures::parse_program(syrk_source(
      400, 4, "machine m { processors 4; memory 16 KB; network 200 MB/s; disk_read 8 MB/s; disk_write 800 MB/s; }"));
  const Machine m = machine_from(*p.machine);
  const ContractionAnalysis a = fixtures::analyze_forced(p, 0, m, "tbs");
  ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
  const TbsPlan& t = tbs_plan(a.plan().plan);
  ASSERT_GT(t.panel, 0) << a.plan().plan.to_string();
  const TbsSchedule s = tbs_schedule(a.plan().plan);
  std::size_t streams = 0;
  for (const TbsBlock& b : s.blocks) streams += b.stream ? 1 : 0;
  EXPECT_EQ(streams, static_cast<std::size_t>((400 + t.panel - 1) / t.panel - 1));  // every panel but the last
  const PlanVolumes walked = simulate(a.plan().plan, m);
  EXPECT_EQ(walked.disk_read_bytes, a.plan().volumes.disk_read_bytes);
  EXPECT_EQ(walked.disk_write_bytes, a.plan().volumes.disk_write_bytes);
  std::uint64_t written = 0;
  for (std::uint64_t w : a.plan().volumes.disk_write_bytes) written += w;
  EXPECT_EQ(written, 400u * 400u * 8u);
  auto a_at = [](i64 r, i64 k) { return r * 4 + k; };
  auto c_at = [](i64 r, i64 c) { return r * 400 + c; };
  EXPECT_EQ(a.plan().volumes.disk_requests, replay_requests(s, 4, 4, t.chunk, a_at, c_at));
  // The plan text carries the streaming and round-trips.
  std::string error;
  const std::optional<Plan> back =
      parse_plan(a.plan().plan.to_string(), a.plan().plan.I, a.plan().plan.J, a.plan().plan.K, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, a.plan().plan);
  EXPECT_NE(a.plan().plan.to_string().find(fmt::format(" panel={} group={} ", t.panel, t.group)), std::string::npos);
}

TEST(Tbs, SaysWhyItIsNotUsed) {
  const std::string machine = "machine m { processors 1; memory 64 KB; network 1 GB/s; disk 500 MB/s; }";
  const ir::Program p = fixtures::parse_program(syrk_source(150, 70, machine));
  const Machine m = machine_from(*p.machine);
  ReportOptions off;
  off.plan.symmetry = false;
  const std::string text = dry_run_text(make_plan(p, m, off));
  EXPECT_NE(
      text.find("  symmetric result: C[I,J] = C[J,I] (C = A(I,K)·A(J,K)ᵀ: one tensor, I and J at the same "
                "positions); tbs not used: --no-symmetry: the symmetric result is planned as a general product\n"),
      std::string::npos)
      << text;
  const ir::Program q = fixtures::parse_program(
      "range N = 8;\nindex i, j, k : N;\ntensor A[N,N] input;\n"
      "tensor B[N,N] input;\ntensor C[N,N] output;\n"
      "C[i,j] = A[i,k] * B[j,k];\n" +
      machine);
  const ContractionAnalysis a = fixtures::analyze_forced(q, 0, m, "tbs");
  EXPECT_FALSE(a.plan().feasible);
  EXPECT_EQ(a.plan().reason.rfind("the result is not symmetric", 0), 0u) << a.plan().reason;
}

}  // namespace
}  // namespace tcec::costmodel
