// tests/runtime/mpi/cosma_mpi.cpp — CosmaGemm on P ranks (P = the MPI world size) for the four
// shapes of the COSMA issue (square, largeK, largeM, flat), with unlimited memory and with
// memory tight enough for several rounds along K, gathering A before multiplying or while
// multiplying (RingAllgather, overlapped): values verify against a long-double
// reference and every rank's measured compute-phase bytes equal costmodel/methods/cosma/cosma.h's exact
// prediction for the chosen grid.
#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "costmodel/methods/cosma/cosma.h"
#include "runtime/kernel/kernel_gett.h"
#include "runtime/methods/cosma/cosma.h"
#include "runtime/program/run.h"
#include "runtime/storage/npy.h"
#include "tests/runtime/mpi/test_run.h"

namespace {

namespace cm = tcec::costmodel;
using i64 = std::int64_t;

struct Shape {
  const char* name;
  i64 m, n, k;
};

tcert::GroupSpec one_index(i64 extent) { return {{{extent, 1, 1}}, -1}; }

/// A(I,K) with I = (i1, i2) stored [i1, i2, k]; B stored [k, j]; C stored [i1, i2, j].
tcert::GemmSpec spec_of(const Shape& s, const cm::CosmaGrid& g, const cm::PlanVolumes& v) {
  tcert::GemmSpec spec;
  spec.statement = std::string("cosma ") + s.name;
  spec.plan = "cosma";
  spec.I = {{{2, 1, 1}, {s.m / 2, 1, 1}}, -1};
  spec.J = one_index(s.n);
  spec.K = one_index(s.k);
  tcert::CosmaSpec& cosma = spec.method.emplace<tcert::CosmaSpec>();
  cosma.grid[0] = g.pm, cosma.grid[1] = g.pn, cosma.grid[2] = g.pk;
  cosma.rounds = g.rounds;
  spec.A = {{"A", {2, s.m / 2, s.k}}, {0, 1, 2}};
  spec.B = {{"B", {s.k, s.n}}, {1, 0}};
  spec.C = {{"C", {2, s.m / 2, s.n}}, {0, 1, 2}};
  spec.alpha = 0.75;
  spec.predicted = cm::rank_volumes(v);
  for (std::size_t r = 0; r < v.disk_read_bytes.size(); ++r)
    spec.predicted.disk_requests.push_back(
        cm::cosma_rank_words(g, s.m, s.n, s.k, static_cast<std::int64_t>(r)).requests);
  return spec;
}

TEST(CosmaGemm, FourShapesVerifyAndMeasureThePredictedBytes) {
  tcert::Context ctx = tcert::Context::world();
  const i64 P = ctx.size();
  const std::unique_ptr<tcert::Run> test_run = tcert_test::make_test_run(ctx, "cosma_mpi", 3);
  tcert::Run& run = *test_run;
  const Shape shapes[] = {
      {"square", 60, 50, 40}, {"largeK", 12, 10, 400}, {"largeM", 300, 14, 12}, {"flat", 80, 70, 6}};
  cm::Machine machine;
  machine.processors = P;
  machine.element_size_bytes = 8;
  machine.network_bytes_per_s = machine.disk_read_bytes_per_s = machine.disk_write_bytes_per_s = 1e8;
  int multi_round = 0, streamed = 0;  // cases of t > 1, and of t > 2 (rounds read from disk)
  for (const Shape& s : shapes)
    for (double S : {std::numeric_limits<double>::infinity(), 700.0})
      for (bool overlap : {false, true}) {
        const cm::CosmaStrategy strategy = cm::cosma_strategy(s.m, s.n, s.k, P, S);
        if (!strategy.feasible) continue;
        machine.memory_bytes = 8 * S;
        const cm::PlanVolumes v = cm::cosma_volumes(strategy.grid, s.m, s.n, s.k, machine, 0, P);
        tcert::GemmSpec spec = spec_of(s, strategy.grid, v);
        spec.accumulate = overlap;  // onto the serial run's C (same shape): C's start values in stage 1
        cm::Plan plan;              // the cosma plan, for the model's redistribution bytes
        plan.processors = P, plan.method = strategy.grid;
        plan.I.indices = {{"i1", 2, 1, 1}, {"i2", s.m / 2, 1, 1}};
        plan.J.indices = {{"j", s.n, 1, 1}};
        plan.K.indices = {{"k", s.k, 1, 1}};
        cm::PlanVolumes r = cm::redistribution_volumes(plan, machine, spec.accumulate);
        cm::redistribution_requests(plan, machine,
                                    {spec.A.perm, spec.B.perm, spec.C.perm, spec.accumulate, false, true}, r);
        spec.predicted_redistribution = cm::stage_volumes(r);
        tcert::CosmaGemm x(run, std::move(spec));
        x.compute([&] {
          if (overlap) {  // as generated code: round j+1's data arrives during round j (double buffers)
            x.read_slices(0);
            x.allgather_B();
            for (i64 j = 0; j < x.rounds(); ++j) x.gather_A_and_multiply();
          } else {
            for (i64 j = 0; j < x.rounds(); ++j) {
              x.read_slices(j);
              x.allgather_A();
              x.allgather_B();
              x.multiply();
            }
          }
          x.reduce_scatter_C();
        });
        x.finish();
        multi_round += strategy.grid.rounds > 1;
        streamed += strategy.grid.rounds > strategy.grid.buffers();
        const tcert::ContractionRecord& rec = run.records().contractions().back();
        for (const tcert::VolumeField& f : tcert::kVolumeFields)
          ASSERT_EQ(rec.measured.*f.member, rec.predicted.*f.member)
              << f.name << " of " << s.name << " S=" << S << " overlap " << overlap;
        for (const tcert::VolumeField& f : tcert::kStageVolumeFields)
          ASSERT_EQ(rec.redistribution_measured.*f.member, rec.redistribution_predicted.*f.member)
              << "redistribution " << f.name << " of " << s.name << " S=" << S << " overlap " << overlap;
        ASSERT_LE(run.records().verify_result().max_rel_error, 1e-12) << s.name << " S=" << S << " overlap " << overlap;
      }
  EXPECT_GT(run.records().verify_result().checked, 0u);
  if (P > 1) {
    EXPECT_GT(multi_round, 0);
    EXPECT_GT(streamed, 0);
  }
}

// Local mode (runtime/methods/cosma/cosma.h): grid 1 × 1 × 1, one round, operands from .npy files. The
// kernel reads A and B in place and writes C into its new version; the counts must still be the
// schedule's, and the values right, for a fill and for a statement adding to C.
TEST(CosmaGemm, LocalModeReadsMappedOperandsInPlaceWithThePredictedCounts) {
  tcert::Context ctx = tcert::Context::world();
  const i64 P = ctx.size();
  const i64 i1 = 2, i2 = 15, n = 20, k = 13, m = i1 * i2;
  // A stored [k, i1, i2], B stored [j, k], C stored [j, i1, i2]: every operand permuted.
  std::string dir = ctx.root_value([] {
    const auto path = std::filesystem::temp_directory_path() / ("cosma-local-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path.string();
  });
  // Element e of A (phase 0.1) and of B (phase 0.7).
  auto value = [](std::int64_t e, double phase) { return std::sin(phase + 0.37 * static_cast<double>(e)); };
  if (ctx.rank() == 0) {
    auto fill = [&](const std::string& path, std::vector<std::uint64_t> shape, double phase) {
      tcert::NpyWriter w(path, std::move(shape));
      for (std::size_t e = 0; e < w.size(); ++e) w.data()[e] = value(static_cast<std::int64_t>(e), phase);
      w.commit(true);
    };
    fill(dir + "/A.npy", {static_cast<std::uint64_t>(k), i1, i2}, 0.1);
    fill(dir + "/B.npy", {static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(k)}, 0.7);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  tcert::TensorLocations files;
  files.inputs = {{"A", {dir + "/A.npy", ""}}, {"B", {dir + "/B.npy", ""}}};
  const std::vector<tcert::TensorShape> inputs = {{"A", {k, i1, i2}}, {"B", {n, k}}};
  // With --verify the addition writes C's next version (the check needs the one before); without
  // it, C's latest version is updated in place.
  for (bool verify : {true, false}) {
    tcert::RunOptions options;
    options.quiet = true, options.verify = verify;
    tcert::Run run(ctx, options, files, tcert::ProgramInfo{"cosma_local", "test", P, 0, inputs, {}, "", 0});
    std::string filled;  // C's version after the fill
    cm::Machine machine;
    machine.processors = P;
    machine.element_size_bytes = 8;
    machine.network_bytes_per_s = machine.disk_read_bytes_per_s = machine.disk_write_bytes_per_s = 1e8;
    const cm::CosmaGrid grid;  // 1 × 1 × 1, one round
    const cm::PlanVolumes v = cm::cosma_volumes(grid, m, n, k, machine, 0, P);
    for (bool accumulate : {false, true}) {
      tcert::GemmSpec spec;
      spec.statement = accumulate ? "C += A * B" : "C = A * B";
      spec.plan = "cosma";
      spec.I = {{{i1, 1, 1}, {i2, 1, 1}}, -1};
      spec.J = one_index(n);
      spec.K = one_index(k);
      spec.method.emplace<tcert::CosmaSpec>();  // grid 1 × 1 × 1, one round
      spec.A = {{"A", {k, i1, i2}}, {1, 2, 0}};
      spec.B = {{"B", {n, k}}, {0, 1}};
      spec.C = {{"C", {n, i1, i2}}, {1, 2, 0}};
      spec.alpha = accumulate ? -0.5 : 0.75;
      spec.accumulate = accumulate;
      spec.predicted = cm::rank_volumes(v);
      for (i64 r = 0; r < P; ++r)
        spec.predicted.disk_requests.push_back(cm::cosma_rank_words(grid, m, n, k, r).requests);
      cm::Plan plan;
      plan.processors = P, plan.method = grid;
      plan.I.indices = {{"i1", i1, 1, 1}, {"i2", i2, 1, 1}};
      plan.J.indices = {{"j", n, 1, 1}};
      plan.K.indices = {{"k", k, 1, 1}};
      cm::PlanVolumes r = cm::redistribution_volumes(plan, machine, accumulate);
      cm::redistribution_requests(plan, machine, {spec.A.perm, spec.B.perm, spec.C.perm, accumulate, false, true}, r);
      spec.predicted_redistribution = cm::stage_volumes(r);
      tcert::CosmaGemm x(run, std::move(spec));
      EXPECT_EQ(x.local(), tcert::detail::gett_vectorized());  // local mode needs GETT's AVX-512 kernel
      x.compute([&] {
        x.read_slices(x.first_round());
        x.allgather_B();
        x.gather_A_and_multiply();
        x.reduce_scatter_C();
      });
      x.finish();
      const tcert::ContractionRecord& rec = run.records().contractions().back();
      for (const tcert::VolumeField& f : tcert::kVolumeFields)
        ASSERT_EQ(rec.measured.*f.member, rec.predicted.*f.member) << f.name << " " << accumulate;
      for (const tcert::VolumeField& f : tcert::kStageVolumeFields)
        ASSERT_EQ(rec.redistribution_measured.*f.member, rec.redistribution_predicted.*f.member)
            << "redistribution " << f.name << " " << accumulate;
      EXPECT_GT(rec.redistribution_measured.disk_requests[0], 1u);  // permuted operands: more than one run
      EXPECT_LE(run.records().verify_result().max_rel_error, 1e-12) << accumulate;
      if (!accumulate) filled = run.store().latest("C");
    }
    if (verify) {
      EXPECT_EQ(run.records().verify_result().checked, 2u * static_cast<std::uint64_t>(m * n));  // every element, twice
      EXPECT_NE(run.store().latest("C"), filled);
    } else {
      EXPECT_EQ(run.store().latest("C"), filled);     // updated in place
      run.held().write_out(run.store().latest("C"));  // one rank: held in memory, unwritten
      const tcert::NpyReader c(run.store().latest("C"));
      for (i64 j = 0; j < n; ++j)
        for (i64 i = 0; i < m; ++i) {
          double sum = 0;  // C[j, i1, i2] = (0.75 − 0.5) · Σ_k A[k, i1, i2] · B[j, k]
          for (i64 kk = 0; kk < k; ++kk) sum += value(kk * m + i, 0.1) * value(j * k + kk, 0.7);
          EXPECT_NEAR(c.data()[j * m + i], 0.25 * sum, 1e-13) << j << " " << i;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);  // every rank has read the store before rank 0's Run removes it
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (ctx.rank() == 0) std::filesystem::remove_all(dir);
}

}  // namespace
