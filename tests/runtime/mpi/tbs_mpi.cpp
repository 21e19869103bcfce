// tests/runtime/mpi/tbs_mpi.cpp — TbsGemm on P ranks (P = the MPI world size): a hand-made
// family of triangle blocks over 7 uneven row tiles (the Fano plane's triples, some split into
// pairs, some diagonal, diagonal leaves) of C(a,b,c,d) = alpha·Σ_pq X(p,a,b,q)·X(p,c,d,q),
// stored with permuted dimensions, dealt to all ranks or to all but one; and a second family
// mixing stream blocks (a resident R_0 against the ranges below it) with triangle blocks and a
// diagonal leaf. The result file equals a plain double loop; each rank's compute-phase bytes and
// disk requests equal a recount of tbs_spec.h's THE SCHEDULE from the stored strides; the peak
// memory is method_buffers; and check_method refuses bad covers, bad stream blocks, too small
// buffers and accumulation.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/error.h"
#include "runtime/methods/tbs/tbs.h"
#include "runtime/program/run.h"
#include "runtime/spec/spec_check.h"
#include "runtime/storage/npy.h"
#include "tests/runtime/mpi/test_run.h"

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

constexpr i64 kA = 5, kB = 7, kP = 3, kQ = 4;  // I = J = (a, b): 35 rows; K = (p, q): 12 columns
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
  const Shape shapes[] = {{{0, 1, 3}, true},  {{1, 2, 4}, false}, {{2, 3, 5}, false}, {{3, 4, 6}, false},
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

/// Rows [from, to) of C.
struct Rows {
  i64 from, to;
};

/// Stream blocks with triangle blocks: stream {[0,10) | [10,17), [17,30), [30,35)} covers rows
/// 10..34 against 0..9; {[0,4), [4,10)} diagonal the triangle of 0..9; with a = [10,17),
/// b = [17,24), c = [24,30), d = [30,35): {a, b, d} diagonal, {c, a}, stream {c | d} (k = 2),
/// {b, c} and the leaf {c} the pairs among 10..34. Block i goes to rank i mod `used`.
std::vector<tcert::TbsBlock> stream_family(i64 used) {
  struct Shape {
    std::vector<Rows> ranges;
    bool diagonal, stream;
  };
  const Rows a{10, 17}, b{17, 24}, c{24, 30}, d{30, 35};
  const Shape shapes[] = {{{{0, 10}, {10, 17}, {17, 30}, {30, 35}}, false, true},
                          {{{0, 4}, {4, 10}}, true, false},
                          {{a, b, d}, true, false},
                          {{c, a}, false, false},
                          {{c, d}, false, true},
                          {{b, c}, false, false},
                          {{c}, true, false}};
  std::vector<tcert::TbsBlock> out;
  for (const Shape& s : shapes) {
    tcert::TbsBlock blk;
    blk.rank = static_cast<i64>(out.size()) % used;
    blk.diagonal = s.diagonal;
    blk.stream = s.stream;
    for (const Rows& r : s.ranges) blk.starts.push_back(r.from), blk.lengths.push_back(r.to - r.from);
    out.push_back(blk);
  }
  return out;
}

tcert::GemmSpec spec_of(std::vector<tcert::TbsBlock> blocks, i64 chunk) {
  tcert::GemmSpec spec;
  spec.statement = "tbs C = X X^T";
  spec.plan = "tbs";
  tcert::TbsSpec& tbs = spec.method.emplace<tcert::TbsSpec>();
  tbs.blocks = std::move(blocks);
  tbs.chunk = chunk;
  for (const tcert::TbsBlock& b : tbs.blocks) {
    if (b.stream) {  // (lengths[0] + max lengths[u]) · |K| <= panel_rows · chunk, the largest tile
      const i64 widest = *std::max_element(b.lengths.begin() + 1, b.lengths.end());
      tbs.panel_rows = std::max(tbs.panel_rows, ((b.lengths[0] + widest) * kK + chunk - 1) / chunk);
      tbs.block_elements = std::max(tbs.block_elements, b.lengths[0] * widest);
      continue;
    }
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

/// Rank q's compute-phase volumes by THE SCHEDULE: disk read, disk write (bytes), requests.
std::vector<u64> expected_volumes(const std::vector<tcert::TbsBlock>& blocks, i64 chunk, i64 q) {
  u64 read = 0, write = 0, requests = 0;
  for (const tcert::TbsBlock& b : blocks) {
    if (b.rank != q) continue;
    const std::size_t k = b.starts.size();
    auto read_pass = [&](std::size_t first, std::size_t last, i64 k0, i64 kc) {  // A[R_first.., k0 .. k0+kc)
      tcert_test::Runs runs;
      for (std::size_t u = first; u < last; ++u)
        for (i64 r = b.starts[u]; r < b.starts[u] + b.lengths[u]; ++r)
          for (i64 c = k0; c < k0 + kc; ++c) runs.at(linear_A(r, c)), read += 8;
      requests += runs.runs;
    };
    auto pass = [&](std::size_t u, std::size_t v) {  // C[R_u, R_v], row by row
      tcert_test::Runs runs;
      for (i64 r = b.starts[u]; r < b.starts[u] + b.lengths[u]; ++r)
        for (i64 c = b.starts[v]; c < b.starts[v] + b.lengths[v]; ++c) runs.at(linear_C(r, c)), write += 8;
      requests += runs.runs;
    };
    if (b.stream) {  // R_0 whole, then each R_u whole, its tile and the mirror
      read_pass(0, 1, 0, kK);
      for (std::size_t u = 1; u < k; ++u) read_pass(u, u + 1, 0, kK), pass(u, 0), pass(0, u);
      continue;
    }
    for (i64 k0 = 0; k0 < kK; k0 += chunk) read_pass(0, k, k0, std::min(chunk, kK - k0));  // the panels
    for (std::size_t u = 1; u < k; ++u)
      for (std::size_t v = 0; v < u; ++v) pass(u, v), pass(v, u);
    for (std::size_t u = 0; u < k && b.diagonal; ++u) pass(u, u);
  }
  return {read, write, requests};
}

TEST(TbsGemm, FamiliesOfBlocksWriteAlphaAAtAndMeasureTheSchedule) {
  tcert::Context ctx = tcert::Context::world();
  const i64 P = ctx.size();
  const std::unique_ptr<tcert::Run> test_run = tcert_test::make_test_run(ctx, "tbs_mpi", 5, true);
  tcert::Run& run = *test_run;
  const tcert::ElementSource x = run.input({"X", {kP, kA, kB, kQ}});
  for (const auto& [name, make] : {std::pair{"triangles", &family}, std::pair{"stream", &stream_family}})
    for (const i64 used : {P, std::max<i64>(1, P - 1)})  // all ranks, or one idle
      for (const i64 chunk : {i64{5}, kK}) {
        const std::vector<tcert::TbsBlock> blocks = make(used);
        tcert::GemmSpec spec = spec_of(blocks, chunk);
        const u64 buffers = tcert::step_memory(spec, 0).peak_bytes;
        const u64 checked_before = run.records().verify_result().checked;
        tcert::TbsGemm tbs(run, std::move(spec));
        tbs.compute([&] {
          for (i64 b = 0; b < tbs.blocks(); ++b) tbs.run_block(b);
        });
        tbs.finish();
        const std::string where =
            std::string(name) + " used " + std::to_string(used) + " chunk " + std::to_string(chunk);
        // (a) the result file, both triangles, against a plain loop
        run.held().write_out(run.store().latest("C"));  // one rank: held in memory, unwritten
        const tcert::NpyReader result(run.store().latest("C"));
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
        EXPECT_EQ(run.records().verify_result().checked - checked_before, static_cast<u64>(kN * kN)) << where;
        EXPECT_LE(run.records().verify_result().max_rel_error, 1e-12) << where;
        // (b) each rank's compute-phase volumes; (c) its peak memory
        const tcert::ContractionRecord& rec = run.records().contractions().back();
        for (i64 q = 0; q < P; ++q) {
          const std::vector<u64> want = expected_volumes(blocks, chunk, q);
          tcert_test::expect_direct_volumes(rec, q, want[0], want[1], want[2], q < used ? buffers : 0u, where);
        }
        ctx.barrier();  // every rank has read the result before the store goes (~Run on rank 0)
      }
}

TEST(TbsGemm, CheckMethodRefusesBadCoversBadStreamBlocksAndAccumulation) {
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
  tcert::TbsSpec overlap = part;  // a pair covered twice
  overlap.blocks.push_back(overlap.blocks[1]);
  EXPECT_NE(refused(overlap, good, "overlap").find("invalid tbs blocks"), std::string::npos);
  tcert::TbsSpec missing = part;  // a leaf's square not covered
  missing.blocks.pop_back();
  EXPECT_NE(refused(missing, good, "incomplete").find("invalid tbs blocks"), std::string::npos);
  tcert::TbsSpec shifted = part;  // tile 1 of {5, 6, 1} one row down: as many pairs, some twice, some never
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
  // Stream blocks: the mixed family passes; a diagonal one, one whose ranges do not ascend (the
  // same pairs, listed in another order), one with a single range, and a panel or C block one
  // element too small are refused.
  const tcert::GemmSpec mixed = spec_of(stream_family(P), 5);
  const tcert::TbsSpec& streams = std::get<tcert::TbsSpec>(mixed.method);
  EXPECT_NO_THROW(tcert::check_method(streams, mixed, P));
  tcert::TbsSpec diagonal = streams;
  diagonal.blocks[4].diagonal = true;
  EXPECT_NE(refused(diagonal, mixed, "diagonal stream").find("is diagonal"), std::string::npos);
  tcert::TbsSpec descending = streams;  // R_0 = [0,10) with [17,30) before [10,17)
  std::swap(descending.blocks[0].starts[1], descending.blocks[0].starts[2]);
  std::swap(descending.blocks[0].lengths[1], descending.blocks[0].lengths[2]);
  EXPECT_NE(refused(descending, mixed, "descending stream").find("must ascend"), std::string::npos);
  tcert::TbsSpec above = streams;  // R_0 = [30,35) above [24,30): the pairs lie in the upper triangle
  std::swap(above.blocks[4].starts[0], above.blocks[4].starts[1]);
  std::swap(above.blocks[4].lengths[0], above.blocks[4].lengths[1]);
  EXPECT_NE(refused(above, mixed, "R_0 below").find("must ascend"), std::string::npos);
  tcert::TbsSpec single = streams;
  single.blocks[4].starts.pop_back(), single.blocks[4].lengths.pop_back();
  EXPECT_NE(refused(single, mixed, "one range").find("at least 2"), std::string::npos);
  // Panel: (10 + 13) · 12 = 276 elements of A in panel_rows 56 x chunk 5; 55 x 5 is too small.
  EXPECT_EQ(streams.panel_rows * streams.chunk, 280);
  tcert::TbsSpec panel = streams;
  --panel.panel_rows;
  EXPECT_NE(refused(panel, mixed, "stream panel").find("do not hold stream block 0"), std::string::npos);
  tcert::TbsSpec tile = streams;  // the stream block alone, its largest tile 10 x 13 in 129 elements
  tile.blocks.resize(1);
  tile.block_elements = 129;
  EXPECT_NE(refused(tile, mixed, "stream tile").find("do not hold stream block 0"), std::string::npos);
  tcert::TbsSpec twice = streams;  // the stream block's pairs, covered twice
  twice.blocks.push_back(twice.blocks[0]);
  EXPECT_NE(refused(twice, mixed, "stream twice").find("invalid tbs blocks"), std::string::npos);
  // check_spec reaches TbsSpec's checks through MethodSpec: a block for rank 2 of 2 ranks.
  EXPECT_THROW(tcert::check_spec(good, P - 1, 0), tcert::Error);
}

}  // namespace
