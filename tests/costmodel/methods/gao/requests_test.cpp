// Disk requests of a plan's compute stage (plan.h plan_requests(), methods/gao/requests.cpp)
// and of its stages 1 and 3 (plan.h redistribution_requests()): blocks of tiled copies, runs of
// adjacent elements for direct tile I/O and for the copies to and from the tensors' files, and
// the latency term; and the hand-off's moves rank to rank and flushes (program/handoff_requests.h)
// counted by hand on small placements. The MPI tests hold them equal to the runtime's counts for
// every method and order (gemm_mpi) and for random placements and budgets (placement_mpi).
#include <gtest/gtest.h>

#include "costmodel/method_model.h"
#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/gao/volumes.h"
#include "costmodel/plan.h"
#include "costmodel/program/handoff_requests.h"
#include "fixtures.h"

namespace tcec::costmodel {
namespace {

using fixtures::roomy;

/// C(8x8) += A(8x8)·B(8x8)ᵀ on one rank, A and C cut into 2x2 blocks of 4x4, B whole along J.
Plan small_plan() {
  GroupTiling I{{{"i", 8, 1, 1}}, -1}, J{{{"j", 8, 1, 1}}, -1}, K{{{"k", 8, 1, 1}}, -1};
  std::string error;
  auto p = parse_plan("inside-replication order=ABC P=1 bcast=B I=i:2x1 J=j:1x1 K=k:2x1 dist=i,-,k split=optimal", I, J,
                      K, &error);
  EXPECT_TRUE(p) << error;
  return *p;
}

TEST(Requests, TiledCopiesCostOneRequestPerBlockVisit) {
  const Plan p = small_plan();
  const LoopNestCounts n = loop_nest_counts(gao(p).order, p.tile_counts());
  const auto pA = static_cast<std::uint64_t>(n.passes_A), pB = static_cast<std::uint64_t>(n.passes_B),
             pC = static_cast<std::uint64_t>(n.passes_C);
  // A: 2x2 blocks; B: 1 row tile x 2 K tiles; C: 2 x 1, read on every visit but the first.
  EXPECT_EQ(gao_requests(p, {}), std::vector<std::uint64_t>{4 * pA + 2 * pB + 2 * (pC - 1) + 2 * pC});
}

TEST(Requests, DirectReadsCostOneRequestPerRunOfAdjacentElements) {
  const Plan p = small_plan();
  const auto pA = static_cast<std::uint64_t>(loop_nest_counts(gao(p).order, p.tile_counts()).passes_A);
  const std::uint64_t tiled = gao_requests(p, {})[0];
  // A stored [i,k]: each 4x4 block is 4 runs of 4 (its rows), 4 runs instead of 1.
  ArrayAccess rows;
  rows.direct_A = true, rows.perm_A = {0, 1};
  EXPECT_EQ(gao_requests(p, rows)[0], tiled + pA * 4 * (4 - 1));
  // A stored [k,i]: row by row no two consecutive elements would be adjacent (16 runs); i, a row
  // index, is innermost, so the block is visited column by column, each column a run of 4.
  ArrayAccess transposed;
  transposed.direct_A = true, transposed.perm_A = {1, 0};
  EXPECT_EQ(gao_requests(p, transposed)[0], tiled + pA * 4 * (4 - 1));
}

TEST(Requests, LatencyAddsToTheTimeOnlyWhenSet) {
  const Plan p = small_plan();
  Machine m = roomy(1);
  PlanVolumes v = plan_volumes(p, m);
  const double bandwidth_s = v.time_s;
  plan_requests(p, m, {}, v);
  EXPECT_EQ(v.time_s, bandwidth_s);  // Gao et al.'s time, bit for bit
  m.disk_latency_s = 1e-3;
  plan_requests(p, m, {}, v);
  EXPECT_DOUBLE_EQ(v.time_s, bandwidth_s + 1e-3 * static_cast<double>(v.disk_requests[0]));
}

TEST(Requests, StagesOneAndThreeCountEachBlocksRunsAndItsTiledCopy) {
  const Plan p = small_plan();  // inside replication: A and B read directly, no stage-1 layout
  // C: 2 blocks of 4x8; stored [i,j], a block's rows are adjacent (1 run); stored [j,i], visited
  // column by column (i innermost), each of its 8 columns a run.
  const StageAccess rows{{0, 1}, {0, 1}, {0, 1}, true, false, true};
  EXPECT_EQ(gao_stage_requests(p, rows, true), std::vector<std::uint64_t>{(2 + 2) + (2 + 2)});  // start values; stage 3
  StageAccess transposed = rows;
  transposed.perm_C = {1, 0};
  EXPECT_EQ(gao_stage_requests(p, transposed, true), std::vector<std::uint64_t>{2 * (2 * 8 + 2)});
  StageAccess in_place = transposed;  // direct C: the start values' runs read and written, no stage 3
  in_place.direct_C = true;
  EXPECT_EQ(gao_stage_requests(p, in_place, true), std::vector<std::uint64_t>{2 * 2 * 8});
  in_place.accumulate = false;
  EXPECT_EQ(gao_stage_requests(p, in_place, true), std::vector<std::uint64_t>{0});
  // Laid-out operands: A's 4 blocks of 4x4 in [i,k] (4 runs each), B's 2 blocks of 8x4 (8 each).
  EXPECT_EQ(gao_stage_requests(p, rows, false)[0], 8 + (4 * 4 + 4) + (2 * 8 + 2));
}

TEST(Requests, CosmaStagesReadEachOperandInOnePass) {
  Plan p;
  p.processors = 1, p.method = CosmaGrid{1, 1, 1, 1};
  p.I = {{{"i", 8, 1, 1}}, -1}, p.J = {{{"j", 8, 1, 1}}, -1}, p.K = {{{"k", 8, 1, 1}}, -1};
  // A [i,k]: one run; B [k,j], row by row along k, would be 64 runs: j, its row index, is
  // innermost, so it is read column by column, each column's 8 rows following the last: one run;
  // C [i,j]: one run in, one out.
  const StageAccess access{{0, 1}, {1, 0}, {0, 1}, true, false, true};
  EXPECT_EQ(model_of(p).stage_requests(p, access), std::vector<std::uint64_t>{1 + 1 + 1 + 1});
  // Eight rounds of one column (two kept in memory, six streamed): A row by row, every element its
  // own run (64); B column by column, each round's column one run that the next one's continues
  // (1); one write per streamed round and operand (12); C one run in, one out.
  p.method = CosmaGrid{1, 1, 1, 8};
  EXPECT_EQ(model_of(p).stage_requests(p, access), std::vector<std::uint64_t>{64 + 1 + 12 + 2});
}

/// Disk requests of a plan in all: compute stage and stages 1 and 3.
std::uint64_t all_requests(const PlannedCandidate& c) {
  std::uint64_t n = 0;
  for (const auto* v : {&c.volumes.disk_requests, &c.redistribution.disk_requests})
    for (std::uint64_t r : *v) n += r;
  return n;
}

TEST(Requests, NoSwapOfEqualExtentTileCountsGivesFewerRequestsAtTheSameCost) {
  // Long runs where they cost nothing else: groups of three equal-extent indices stored in
  // different orders in A and C, under memories that cut them. Swapping the tile counts of two
  // non-distribution indices leaves the bytes alone but not the requests; the tile search
  // (spread(): the group's indices in order, the last cut last) already chooses an assignment
  // no such swap improves on.
  const char* statements[] = {"C[c,b,a,j] += A[a,b,c,k] * B[j,k];", "C[a,b,c,j] += A[c,b,a,k] * B[k,j];",
                              "C[a,c,b,j] += A[b,a,c,k] * B[j,k];"};
  int checked = 0;
  for (const char* statement : statements)
    for (const char* memory : {"96 KB", "24 KB", "8 KB"})
      for (const char* method :
           {"inside-replication", "outside-rotation", "inside-accumulation", "outside-replication"}) {
        const ir::Program prog =
            fixtures::parse_program(std::string("range N = 24; index a, b, c, j, k : N;\n"
                                                "tensor A[N,N,N,N] input, B[N,N] input, C[N,N,N,N] output;\n") +
                                    statement + "\nmachine { processors 4; memory " + memory +
                                    "; network 100 MB/s; disk_read 100 MB/s; disk_write 100 MB/s; }\n");
        const Machine m = machine_from(*prog.machine);
        const ContractionAnalysis a = fixtures::analyze_forced(prog, 0, m, method);
        if (!a.plan().feasible) continue;
        const Plan& p = a.plan().plan;
        const bool direct = model_of(p).reads_operands_directly(p), direct_C = writes_result_directly(p, nullptr);
        const ArrayAccess access{direct, direct, direct_C, a.gemm.perm_A, a.gemm.perm_B, a.gemm.perm_C};
        const StageAccess stages{a.gemm.perm_A, a.gemm.perm_B, a.gemm.perm_C, false, direct_C, true};
        for (int g = 0; g < 3; ++g) {  // every swap of two non-distribution indices of one group
          const GroupTiling& group = g == 0 ? p.I : g == 1 ? p.J : p.K;
          for (std::size_t x = 0; x < group.indices.size(); ++x)
            for (std::size_t y = x + 1; y < group.indices.size(); ++y) {
              if (static_cast<int>(x) == group.dist || static_cast<int>(y) == group.dist) continue;
              PlannedCandidate v = a.plan();
              GroupTiling& h = g == 0 ? v.plan.I : g == 1 ? v.plan.J : v.plan.K;
              std::swap(h.indices[x].t1, h.indices[y].t1);
              std::swap(h.indices[x].t2, h.indices[y].t2);
              if (!check_valid(v.plan, m, nullptr)) continue;
              v.volumes = plan_volumes(v.plan, m);
              v.redistribution = redistribution_volumes(v.plan, m, false);
              if (v.volumes.disk_read_bytes != a.plan().volumes.disk_read_bytes ||
                  v.volumes.wall_s != a.plan().volumes.wall_s)
                continue;  // not free: the search's business
              plan_requests(v.plan, m, access, v.volumes);
              redistribution_requests(v.plan, m, stages, v.redistribution);
              EXPECT_GE(all_requests(v), all_requests(a.plan()))
                  << statement << " " << memory << " " << method << ": " << v.plan.to_string();
              ++checked;
            }
        }
      }
  EXPECT_GT(checked, 0);
}

TEST(Requests, StageLatencyAddsToTheRedistributionTime) {
  const Plan p = small_plan();
  Machine m = roomy(1);
  PlanVolumes r = redistribution_volumes(p, m, true);
  const double bandwidth_s = r.time_s;
  const StageAccess access{{0, 1}, {0, 1}, {1, 0}, true, false, true};
  redistribution_requests(p, m, access, r);
  EXPECT_EQ(r.time_s, bandwidth_s);
  m.disk_latency_s = 1e-3;
  redistribution_requests(p, m, access, r);
  EXPECT_DOUBLE_EQ(r.time_s, bandwidth_s + 1e-3 * static_cast<double>(r.disk_requests[0]));
}

/// X[i,j] (4x4, stored [i,j]) as rows i and columns j: i cut into `i_tiles` finest tiles and j
/// into `j_tiles`, the group `split` (0 rows, 1 cols, -1 none) split over P = `parts` ranks, rank q
/// holding part q.
TiledPlacement square(std::int64_t i_tiles, std::int64_t j_tiles, int split, std::int64_t parts) {
  TiledPlacement x;
  x.rows = {{{"i", 4, i_tiles, 1}}, split == 0 ? 0 : -1};
  x.cols = {{{"j", 4, j_tiles, 1}}, split == 1 ? 0 : -1};
  x.row_parts = split == 0 ? parts : 1, x.col_parts = split == 1 ? parts : 1;
  for (std::int64_t q = 0; q < parts; ++q)
    x.parts.push_back(std::array<std::int64_t, 2>{split == 0 ? q : -1, split == 1 ? q : -1});
  x.perm = {0, 1};
  return x;
}

TEST(Requests, HandOffMoveReadsOncePerRoundAndWritesOncePerRunOfTheTarget) {
  // One rank: from two blocks of 2x4 (i cut in two) to two of 4x2 (j cut in two). The target
  // file holds (i, j < 2) at 2i + j and (i, j >= 2) at 8 + 2i + j - 2, so each source row of 4 is
  // two runs of 2, and no run continues into the next row: 4 runs per source block.
  const TiledPlacement from = square(2, 1, -1, 1), to = square(1, 2, -1, 1);
  EXPECT_EQ(move_requests(from, to, 1 << 22), std::vector<std::uint64_t>{1 + 8});  // one round of both blocks
  EXPECT_EQ(move_requests(from, to, 8), std::vector<std::uint64_t>{2 + 8});        // a round per block
  // Rounds of 4: a block of 8 goes in pieces of one row (4 elements), each a round of 2 runs.
  EXPECT_EQ(move_requests(from, to, 4), std::vector<std::uint64_t>{4 + 8});
  // Rounds of 3: pieces of 3 and 1 elements, (0,0..2) → 0, 1, 8 and (0,3) → 9: 2 and 1 runs.
  EXPECT_EQ(move_requests(from, to, 3), std::vector<std::uint64_t>{8 + 4 * (2 + 1)});
  // Back: the target holds (i, j) at 4i + j, so a source block (4x2) is 4 runs of 2.
  EXPECT_EQ(move_requests(to, from, 1 << 22), std::vector<std::uint64_t>{1 + 2 * 4});
  EXPECT_EQ(move_requests(from, from, 1 << 22), std::vector<std::uint64_t>{1 + 1});  // the file as it is
}

TEST(Requests, HandOffMoveRunsContinueAcrossSendersInRankOrder) {
  // Two ranks: rows i split (rank 0 rows 0-1, rank 1 rows 2-3) to columns j split. Each rank
  // reads its half once; receiver r gets (i, j) for j in its half at 2i + j - 2r: rank 0's
  // values, then rank 1's, which continue the same run.
  EXPECT_EQ(move_requests(square(1, 1, 0, 2), square(1, 1, 1, 2), 1 << 22), (std::vector<std::uint64_t>{2, 2}));
  // Back: a receiver's rows 2r, 2r+1 come as rank 0's 2x2 then rank 1's 2x2, written at
  // 4i + j: two runs of 2 from each sender.
  EXPECT_EQ(move_requests(square(1, 1, 1, 2), square(1, 1, 0, 2), 1 << 22), (std::vector<std::uint64_t>{5, 5}));
  // Rounds of one element: every element its own round and write (a piece of a row of 2 blocks).
  EXPECT_EQ(move_requests(square(1, 1, 1, 2), square(1, 1, 0, 2), 1), (std::vector<std::uint64_t>{16, 16}));
}

TEST(Requests, HandOffFlushCostsWhatTheProducersStageThreeWould) {
  const Plan p = small_plan();                                                    // C: two blocks of 4x8 on one rank
  EXPECT_EQ(flush_requests(p, {0, 1}), std::vector<std::uint64_t>{2 * (1 + 1)});  // a block is one run
  EXPECT_EQ(flush_requests(p, {1, 0}), std::vector<std::uint64_t>{2 * (1 + 8)});  // or one per column
  const StageAccess stored_only{{}, {}, {1, 0}, false, false, true, true, true};
  EXPECT_EQ(flush_requests(p, {1, 0}), gao_stage_requests(p, stored_only, false));
}

TEST(Requests, HandOffRoundsAreAThirdOfTheMemoryIn8ByteValues) {
  EXPECT_EQ(handoff_round_elements(8e6), 333333u);
  EXPECT_EQ(handoff_round_elements(10), 1u);
  EXPECT_EQ(handoff_round_elements(0), std::uint64_t{1} << 22);  // unlimited
}

}  // namespace
}  // namespace tcec::costmodel
