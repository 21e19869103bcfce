// Writes against their lower bound (Carson et al., seed 004: each result written once) and
// --max-writes: the report's per-contraction and whole-program lines, and the limit's price.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "tests/costmodel/fixtures.h"

namespace tcec::costmodel {
namespace {

/// P = 4, 32 MB, writes 20 times dearer than reads (the machine).
Machine write_dear() {
  Machine m;
  m.processors = 4;
  m.memory_bytes = 32e6;
  m.network_bytes_per_s = 2e9;
  m.disk_read_bytes_per_s = 2e9;
  m.disk_write_bytes_per_s = 100e6;
  return m;
}

TEST(Writes, DirectTileIoWritesEachResultOnce) {
  // The 4-index step: every rank writes exactly its share of T1 (800⁴·8/4 bytes).
  const ir::Program p = fixtures::example_program("four_index.tce");
  const Machine m = write_dear();
  const ContractionAnalysis a = analyze(p, p.statements[0], m, {});
  ASSERT_TRUE(a.plan().feasible);
  const WriteReport w = write_report(a, m);
  EXPECT_DOUBLE_EQ(w.write_bound_bytes, 800.0 * 800 * 800 * 800 * 8 / 4);
  EXPECT_DOUBLE_EQ(w.write_bytes, w.write_bound_bytes);
  EXPECT_EQ(write_text(w).rfind("    writes per rank: 819 GB against the write lower bound 819 GB (the result's share, "
                                "|C|/P), 1.000x; reads ",
                                0),
            0u)
      << write_text(w);
}

TEST(Writes, MaxWritesChoosesAPlanThatWritesTheShareAndSaysWhatItCosts) {
  // ccsd_term: T1 (5.12 MB) is small; the fastest plan reduces it onto one rank, which writes
  // all of it (4x its share). --max-writes 1 takes a plan whose every rank writes its share.
  const ir::Program p = fixtures::example_program("ccsd_term.tce");
  const Machine m = write_dear();
  const ContractionAnalysis free = analyze(p, p.statements[0], m, {});
  ASSERT_TRUE(free.plan().feasible);
  EXPECT_DOUBLE_EQ(plan_write_bytes(free.plan()), 800.0 * 800 * 8);
  PlanOptions limited;
  limited.max_writes = 1.0;
  const ContractionAnalysis a = analyze(p, p.statements[0], m, limited);
  ASSERT_TRUE(a.plan().feasible) << a.plan().reason;
  const WriteReport w = write_report(a, m);
  EXPECT_LE(w.write_bytes, w.write_bound_bytes);
  EXPECT_DOUBLE_EQ(a.unconstrained_s, free.plan().total_s());
  EXPECT_GE(a.plan().total_s(), free.plan().total_s());
  const std::string text = write_text(w);
  EXPECT_NE(text.find(fmt::format("; --max-writes 1: {:.5g} s against {:.5g} s without the limit (+",
                                  a.plan().total_s(), free.plan().total_s())),
            std::string::npos)
      << text;
  EXPECT_EQ(write_json(w)["max_writes"], 1.0);
  limited.max_writes = 0.5;  // below the output's share: nothing qualifies
  const ContractionAnalysis none = analyze(p, p.statements[0], m, limited);
  EXPECT_FALSE(none.plan().feasible);
  EXPECT_EQ(none.plan().reason, "every plan writes more than --max-writes 0.5 x the result's share (1.28 MB per rank)");
}

TEST(Writes, AProgramAddingFourTermsWritesItsOutputFourTimes) {
  // ccd_terms: four statements add into r2 through the store; each writes r2's share.
  const ir::Program p = fixtures::example_program("ccd_terms.tce");
  const Machine m = write_dear();
  std::vector<std::optional<ContractionAnalysis>> analyses;
  for (const ir::Statement& s : p.statements)
    analyses.push_back(s.operands.size() == 2 ? std::optional(analyze(p, s, m, {})) : std::nullopt);
  const ProgramWrites w = program_writes(p, m, analyses);
  EXPECT_DOUBLE_EQ(w.bound_bytes, 40.0 * 40 * 10 * 10 * 8 / 4);
  EXPECT_DOUBLE_EQ(w.write_bytes, 4 * w.bound_bytes);
  EXPECT_EQ(
      program_writes_text(w),
      "writes per rank over the program (through the store): 1.28 MB against the outputs' share 320 KB, 4.000x\n");
}

}  // namespace
}  // namespace tcec::costmodel
