// tests/runtime/mpi/tbs_mpi.cpp — TbsGemm on P ranks (P = the MPI world size): a hand-made
// family of triangle blocks over 7 uneven row tiles (the Fano plane's triples, some split into
// pairs, some diagonal, diagonal leaves) of C(a,b,c,d) = alpha·Σ_pq X(p,a,b,q)·X(p,c,d,q),
// stored with permuted dimensions, dealt to all ranks or to all but one. The result file equals
// a plain double loop; each rank's compute-phase bytes and disk requests equal a recount of
// tbs_spec.h's THE SCHEDULE from the stored strides; the peak memory is method_buffers; and
// check_method refuses bad covers and accumulation.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/run.h"
#include "runtime/spec_check.h"
#include "runtime/tbs.h"
#include "tests/runtime/mpi/test_run.h"

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

constexpr i64 kA = 5, kB = 7, kP = 3, kQ = 4;   // I = J = (a, b): 35 rows; K = (p, q): 12 columns
constexpr i64 kN = kA * kB, kK = kP * kQ;
constexpr double kAlpha = -0.625;

/// X stored [p, a, b, q]: element (flat row r, flat column k).
u64 linear_A(i64 r, i64 k) { return static_cast<u64>(((k / kQ * kA + r / kB) * kB + r % kB) * kQ + k % kQ); }
/// C stored [c, a, d, b]: element (flat row i, flat column j).
u64 linear_C(i64 i, i64 j) { return static_cast<u64>(((j / kB * kA + i / kB) * kB + j % kB) * kB + i % kB); }

/// Tiles of rows: uneven lengths 3, 7, 4, 6, 5, 2, 8 (sum 35).
const std::vector<i64> kTileLength = {3, 7, 4, 6, 5, 2, 8};

i64 tile_start(std::size_t t) {
  i64 s = 0;
  for (std::size_t x = 0; x < t; ++x) s += kTileLength[x];
  return s;
}

/// The family: every pair of tiles once (Fano triples; {4,5,0} split into {4,5} and two pairs),
/// every tile's square once ({0,1,3} and {4,5} diagonal, leaves {2} and {6}). Ranges are listed
/// in the given tile order (not always increasing). Block i goes to rank i mod `used`.
std::vector<tcert::TbsBlock> family(i64 used) {
  struct Shape {
    std::vector<std::size_t> tiles;
    bool diagonal;
  };
  const Shape shapes[] = {{{0, 1, 3}, true}, {{1, 2, 4}, false}, {{2, 3, 5}, false}, {{3, 4, 6}, false},
                          {{4, 5}, true},     {{5, 0}, false},    {{0, 4}, false},    {{5, 6, 1}, false},
                          {{6, 0, 2}, false}, {{2}, true},        {{6}, true}};
  std::vector<tcert::TbsBlock> out;
  for (const Shape& s : shapes) {
    tcert::TbsBlock b;
    b.rank = static_cast<i64>(out.size()) % used;
    b.diagonal = s.diagonal;
    for (std::size_t t : s.tiles) b.starts.push_back(tile_start(t)), b.lengths.push_back(kTileLength[t]);
    out.push_back(b);
  }
  return out;
}

tcert::GemmSpec spec_of(std::vector<tcert::TbsBlock> blocks, i64 chunk) {
  tcert::GemmSpec spec;
  spec.statement = "tbs C = X X^T";
  spec.plan = "tbs";
  spec.order = std::string(1, '-');
  tcert::TbsSpec& tbs = spec.method.emplace<tcert::TbsSpec>();
  tbs.blocks = std::move(blocks);
  tbs.chunk = chunk;
  for (const tcert::TbsBlock& b : tbs.blocks) {
    i64 rows = 0, elements = 0, squares = 0;
    for (i64 len : b.lengths) elements += rows * len, rows += len, squares += len * len;
    tbs.panel_rows = std::max(tbs.panel_rows, rows);
    tbs.block_elements = std::max(tbs.block_elements, elements + (b.diagonal ? squares : 0));
  }
  spec.I = {{{kA, 1, 1}, {kB, 1, 1}}, -1};
  spec.J = spec.I;
  spec.K = {{{kP, 1, 1}, {kQ, 1, 1}}, -1};
  spec.A = {{"X", {kP, kA, kB, kQ}}, {1, 2, 0, 3}};
  spec.B = spec.A;
  spec.C = {{"C", {kA, kA, kB, kB}}, {1, 3, 0, 2}};
  spec.alpha = kAlpha;
  return spec;
}

/// Runs of consecutive elements in one pass (as RunCounter, written out here).
struct Runs {
  u64 last = 0, runs = 0;
  void at(u64 e) {
    if (runs == 0 || e != last + 1) ++runs;
    last = e;
  }
};

/// Rank q's compute-phase volumes by THE SCHEDULE: disk read, disk write (bytes), requests.
std::vector<u64> expected_volumes(const std::vector<tcert::TbsBlock>& blocks, i64 chunk, i64 q) {
  u64 read = 0, write = 0, requests = 0;
  for (const tcert::TbsBlock& b : blocks) {
    if (b.rank != q) continue;
    const std::size_t k = b.starts.size();
    for (i64 k0 = 0; k0 < kK; k0 += chunk) {   // the panels
      Runs runs;
      for (std::size_t u = 0; u < k; ++u)
        for (i64 r = b.starts[u]; r < b.starts[u] + b.lengths[u]; ++r)
          for (i64 c = k0; c < std::min(kK, k0 + chunk); ++c) runs.at(linear_A(r, c)), read += 8;
      requests += runs.runs;
    }
    auto pass = [&](std::size_t u, std::size_t v) {   // C[R_u, R_v], row by row
      Runs runs;
      for (i64 r = b.starts[u]; r < b.starts[u] + b.lengths[u]; ++r)
        for (i64 c = b.starts[v]; c < b.starts[v] + b.lengths[v]; ++c) runs.at(linear_C(r, c)), write += 8;
      requests += runs.runs;
    };
    for (std::size_t u = 1; u < k; ++u)
      for (std::size_t v = 0; v < u; ++v) pass(u, v), pass(v, u);
    for (std::size_t u = 0; u < k && b.diagonal; ++u) pass(u, u);
  }
  return {read, write, requests};
}

TEST(TbsGemm, FamilyOfBlocksWritesAlphaAAtAndMeasuresTheSchedule) {
  tcert::Context ctx = tcert::Context::world();
  const i64 P = ctx.size();
  const std::unique_ptr<tcert::Run> test_run = tcert_test::make_test_run(ctx, "tbs_mpi", 5);
  tcert::Run& run = *test_run;
  const tcert::ElementSource x = run.input({"X", {kP, kA, kB, kQ}});
  for (const i64 used : {P, std::max<i64>(1, P - 1)})   // all ranks, or one idle
    for (const i64 chunk : {i64{5}, kK}) {
      const std::vector<tcert::TbsBlock> blocks = family(used);
      tcert::GemmSpec spec = spec_of(blocks, chunk);
      const u64 buffers = tcert::step_memory(spec, 0).peak_bytes;
      const u64 checked_before = run.verify_result().checked;
      tcert::TbsGemm tbs(run, std::move(spec));
      tbs.compute([&] {
        for (i64 b = 0; b < tbs.blocks(); ++b) tbs.run_block(b);
      });
      tbs.finish();
      const std::string where = "used " + std::to_string(used) + " chunk " + std::to_string(chunk);
      // (a) the result file, both triangles, against a plain loop
      const tcert::NpyReader result(run.latest("C"));
      for (i64 i = 0; i < kN; ++i)
        for (i64 j = 0; j < kN; ++j) {
          double sum = 0, scale = 0;
          for (i64 k = 0; k < kK; ++k) {
            const double term = x(linear_A(i, k)) * x(linear_A(j, k));
            sum += term, scale += std::fabs(term);
          }
          ASSERT_NEAR(result.data()[linear_C(i, j)], kAlpha * sum, 1e-12 * std::fabs(kAlpha) * scale)
              << "C(" << i << ", " << j << ") " << where;
        }
      EXPECT_EQ(run.verify_result().checked - checked_before, static_cast<u64>(kN * kN)) << where;
      EXPECT_LE(run.verify_result().max_rel_error, 1e-12) << where;
      // (b) each rank's compute-phase volumes; (c) its peak memory
      const tcert::ContractionRecord& rec = run.records().back();
      for (i64 q = 0; q < P; ++q) {
        const auto r = static_cast<std::size_t>(q);
        const std::vector<u64> want = expected_volumes(blocks, chunk, q);
        EXPECT_EQ(rec.measured[0][r], want[0]) << "disk read of rank " << q << ", " << where;
        EXPECT_EQ(rec.measured[1][r], want[1]) << "disk write of rank " << q << ", " << where;
        EXPECT_EQ(rec.measured[2][r], 0u) << where;
        EXPECT_EQ(rec.measured[3][r], 0u) << where;
        EXPECT_EQ(rec.measured[4][r], want[2]) << "disk requests of rank " << q << ", " << where;
        EXPECT_EQ(rec.peak_tile_memory_bytes[r], q < used ? buffers : 0u) << "peak of rank " << q << ", " << where;
        EXPECT_EQ(rec.redistribution_measured[0][r], 0u) << where;
        EXPECT_EQ(rec.redistribution_measured[1][r], 0u) << where;
      }
      ctx.barrier();   // every rank has read the result before the store goes (~Run on rank 0)
    }
}

TEST(TbsGemm, CheckMethodRefusesBadCoversAndAccumulation) {
  const i64 P = 3;
  const tcert::GemmSpec good = spec_of(family(P), 5);
  const tcert::TbsSpec& part = std::get<tcert::TbsSpec>(good.method);
  EXPECT_NO_THROW(tcert::check_method(part, good, P));
  EXPECT_EQ(tcert::method_buffers(part, good).size(), 2u);
  auto refused = [&](const tcert::TbsSpec& bad, const tcert::GemmSpec& spec, const std::string& what) {
    try {
      tcert::check_method(bad, spec, P);
      ADD_FAILURE() << "not refused: " << what;
    } catch (const tcert::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  tcert::TbsSpec overlap = part;   // a pair covered twice
  overlap.blocks.push_back(overlap.blocks[1]);
  EXPECT_NE(refused(overlap, good, "overlap").find("invalid tbs blocks"), std::string::npos);
  tcert::TbsSpec missing = part;   // a leaf's square not covered
  missing.blocks.pop_back();
  EXPECT_NE(refused(missing, good, "incomplete").find("invalid tbs blocks"), std::string::npos);
  tcert::TbsSpec shifted = part;   // tile 1 of {5, 6, 1} one row down: as many pairs, some twice, some never
  ++shifted.blocks[7].starts[2];
  EXPECT_NE(refused(shifted, good, "shifted").find("invalid tbs blocks"), std::string::npos);
  tcert::TbsSpec rank = part;
  rank.blocks[0].rank = P;
  EXPECT_NE(refused(rank, good, "rank").find("invalid tbs blocks"), std::string::npos);
  tcert::TbsSpec small = part;
  --small.panel_rows;
  EXPECT_NE(refused(small, good, "panel").find("invalid tbs blocks"), std::string::npos);
  tcert::GemmSpec accumulate = good;
  accumulate.accumulate = true;
  EXPECT_NE(refused(part, accumulate, "accumulate").find("tbs reads A from its tensor"), std::string::npos);
  tcert::GemmSpec asymmetric = good;
  asymmetric.B.shape.name = "Y";
  EXPECT_NE(refused(part, asymmetric, "asymmetric").find("tbs needs a symmetric contraction"), std::string::npos);
  // check_spec reaches TbsSpec's checks through MethodSpec: a block for rank 2 of 2 ranks.
  EXPECT_THROW(tcert::check_spec(good, P - 1, 0), tcert::Error);
}

}  // namespace
