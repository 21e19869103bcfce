// Every plan tcec emits must run: random programs × random machines, planned as the driver
// plans them, and each contraction's GemmSpec (the value the generated program builds) held to
// the runtime's own checks (tcert::check_spec, the function GaoGemm and CosmaGemm call
// first). Without MPI. The generator's seeds are fixed, so a failure names its seed and
// program and reproduces. The end-to-end sample of the same generator runs under mpirun
// (tests/e2e/random_program.sh).
#include <cstdlib>
#include <set>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "frontend/frontend.h"
#include "random/random_program.h"
#include "runtime/base/error.h"
#include "runtime/spec/spec_check.h"

namespace tcec {
namespace {

/// What one seed checked.
struct Checked {
  int plans = 0;         ///< contraction plans held to check_spec
  int handoffs = 0;      ///< of which take a tensor rank to rank
  int resident = 0;      ///< of which are resident accumulation steps
  bool planned = false;  ///< every contraction had a feasible plan (the program can be generated)
};

/// Plans the program of `seed` (memory split, hand-off and a forced method drawn from the seed
/// too) and checks
/// every feasible plan's spec against the runtime, with failures naming the seed.
Checked check_seed(std::uint64_t seed) {
  Checked out;
  const testing::RandomProgram rp = testing::random_program(seed, {});
  frontend::Result r = frontend::parse_source(fmt::format("random{}.tce", seed), rp.text, {});
  EXPECT_TRUE(r.ok()) << "seed " << seed << ": the generator wrote an invalid program\n"
                      << rp.text << r.diagnostics.render();
  if (!r.ok()) return out;
  const ir::Program& program = *r.program;
  const costmodel::Machine machine = costmodel::machine_from(*program.machine);
  costmodel::PlanOptions options;
  const std::uint64_t draw = seed * 0x9E3779B97F4A7C15ull >> 32;  // independent of the shard (seed mod 4)
  options.split = draw % 3 == 0 ? costmodel::MemorySplit::Thirds : costmodel::MemorySplit::Optimal;
  options.handoff = draw / 3 % 4 != 1;
  // A quarter of the programs with outside accumulation forced: its partial C files are what a
  // hand-off saves; the other methods read and write the store directly (direct tile I/O) and
  // rarely gain from one.
  if (draw / 12 % 4 == 0) options.force_method = "outside-accumulation";
  // A quarter with every resident accumulation group that fits (program/resident.h).
  if (draw / 48 % 4 == 1) options.resident = costmodel::ResidentMode::All;
  const std::vector<costmodel::StatementPlan> plans = costmodel::plan_program(program, machine, options);
  const auto memory = static_cast<std::uint64_t>(machine.memory_bytes);
  std::set<std::string> kept;  // tensors a step kept on the ranks (runtime KeptTensors::keep)
  out.planned = codegen::check_program(program, plans).empty();
  for (const costmodel::StatementPlan& sp : plans) {
    if (!sp.feasible) continue;
    const std::string where =
        fmt::format("seed {} (P = {}, memory {} B, split {}, hand-off {}, method {}), line {}: {}\n{}\n", seed,
                    machine.processors, memory, costmodel::split_name(options.split), options.handoff ? "on" : "off",
                    options.force_method.value_or("any"), sp.statement->loc.line, sp.plan.to_string(), rp.text);
    const tcert::GemmSpec spec =
        codegen::gemm_spec(program, machine, sp, costmodel::accumulates(program, *sp.statement));
    ++out.plans;
    out.handoffs += spec.take_A || spec.take_B || spec.take_C;
    out.resident += sp.resident.has_value();
    tcert::StepMemory need;
    try {
      need = tcert::check_spec(spec, machine.processors, memory);
    } catch (const tcert::Error& e) {
      ADD_FAILURE() << where << "the runtime refuses the plan: " << e.what();
      continue;
    }
    // check_spec() has held need.peak_bytes to the memory; the planner must say the same.
    EXPECT_EQ(need.peak_bytes, sp.memory.peak_bytes) << where << tcert::parts_text(need);
    EXPECT_EQ(need.parts.size(), sp.memory.parts.size()) << where;
    for (std::size_t i = 0; i < std::min(need.parts.size(), sp.memory.parts.size()); ++i) {
      EXPECT_EQ(need.parts[i].what, sp.memory.parts[i].what) << where;
      EXPECT_EQ(need.parts[i].bytes, sp.memory.parts[i].bytes) << where << need.parts[i].what;
      EXPECT_EQ(need.parts[i].load_stage, sp.memory.parts[i].load_stage) << where;
    }
    // A taken tensor was kept by an earlier step (else the runtime stops: "should be kept").
    for (auto [take, binding] :
         {std::pair{spec.take_A, &spec.A}, std::pair{spec.take_B, &spec.B}, std::pair{spec.take_C, &spec.C}})
      if (take) {
        EXPECT_TRUE(kept.count(binding->shape.name)) << where << binding->shape.name << " is not kept";
      }
    if (spec.keep_result) kept.insert(spec.C.shape.name);
  }
  return out;
}

// 2000 programs in four shards (ctest runs them side by side); TCEC_PROPERTY_SEEDS=N checks
// seeds 0 .. N-1 instead, for a longer search by hand.
constexpr std::uint64_t kShards = 4;
const std::uint64_t kSeeds =
    std::getenv("TCEC_PROPERTY_SEEDS") ? std::strtoull(std::getenv("TCEC_PROPERTY_SEEDS"), nullptr, 10) : 2000;

class PlansRun : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(PlansRun, RuntimeAcceptsEveryPlannedContraction) {
  int plans = 0, handoffs = 0, resident = 0, programs = 0;
  for (std::uint64_t seed = GetParam(); seed < kSeeds; seed += kShards) {
    const Checked c = check_seed(seed);
    plans += c.plans, handoffs += c.handoffs, resident += c.resident, programs += c.planned;
  }
  // The generator reaches what the test is about: generated programs, plans, hand-offs.
  EXPECT_GE(programs, static_cast<int>(kSeeds / kShards / 2));
  EXPECT_GE(plans, static_cast<int>(kSeeds / kShards));
  EXPECT_GE(handoffs, 20);
  EXPECT_GE(resident, 2);  // groups need consecutive additions into one tensor: a few per shard
  std::printf("shard %llu: %d plans (%d with a hand-off, %d resident), %d of %llu programs can be generated\n",
              static_cast<unsigned long long>(GetParam()), plans, handoffs, resident, programs,
              static_cast<unsigned long long>(kSeeds / kShards));
}

INSTANTIATE_TEST_SUITE_P(Shards, PlansRun, ::testing::Range<std::uint64_t>(0, kShards));

}  // namespace
}  // namespace tcec
