// tests/costmodel/program_plan_test.cpp — make_plan() (costmodel.h ProgramPlan): a program is
// analysed once and the text, JSON and SVG reports only render that plan; the report names one
// chosen plan, the one plan_program() runs; --plan pins (pin_plans()): a valid pin replaces the
// choice in the report and in the statements' plans, an invalid one is refused with the rule
// it breaks.
#include <string>

#include <gtest/gtest.h>

#include "costmodel/costmodel.h"
#include "costmodel/program_plan.h"
#include "frontend/frontend.h"

namespace {

using namespace tcec;
using namespace tcec::costmodel;

// Two steps: T = A·B, then C = T·D (the hand-off may keep T on the ranks).
const char* kTwoSteps =
    "range N = 400;\n"
    "index i, j, k, l : N;\n"
    "tensor A[N,N] input;\n"
    "tensor B[N,N] input;\n"
    "tensor D[N,N] input;\n"
    "tensor T[N,N] intermediate;\n"
    "tensor C[N,N] output;\n"
    "T[i,j] += A[i,k] * B[j,k];\n"
    "C[i,l] += T[i,j] * D[j,l];\n"
    "machine m { processors 4; memory 1 MB; network 200 MB/s; disk 8 MB/s; }\n";

ir::Program parse(const std::string& text) {
  auto r = frontend::parse_source("t.tce", text, {});
  EXPECT_TRUE(r.ok()) << r.diagnostics.render();
  return std::move(*r.program);
}

Machine machine_of(const ir::Program& p) { return machine_from(*p.machine); }

TEST(ProgramPlan, AnalysedOnceAndOnlyRenderedAfter) {
  const ir::Program p = parse(kTwoSteps);
  const std::uint64_t before = analyses_run();
  const ProgramPlan plan = make_plan(p, machine_of(p), {true, {}});
  const std::uint64_t planned = analyses_run();
  EXPECT_GE(planned - before, 2u);  // each contraction once through the store (the hand-off adds its variants)
  const std::string text = dry_run_text(plan);
  const nlohmann::json json = dry_run_json(plan);
  const std::string svg = dry_run_svg(plan);
  const std::string lines = plan_lines(plan);
  EXPECT_EQ(analyses_run(), planned) << "a report analysed the program again";
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(json["contractions"].size(), 2u);
  ASSERT_EQ(plan.statements.size(), 2u);
  // The plan the report names is the one the statements run (no hand-off here changes it
  // unless the report says so) and the one plan_program() gives.
  const std::vector<StatementPlan> again = plan_program(p, machine_of(p), {});
  ASSERT_EQ(again.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(again[i].plan.to_string(), plan.statements[i].plan.to_string());
    EXPECT_EQ(again[i].volumes.disk_read_bytes, plan.statements[i].volumes.disk_read_bytes);
  }
  EXPECT_EQ(lines, "8=" + plan.statements[0].plan.to_string() + "\n9=" + plan.statements[1].plan.to_string() + "\n");
}

TEST(ProgramPlan, OneChosenLineNamesTheEmittedPlan) {
  const ir::Program p = parse(kTwoSteps);
  const ProgramPlan plan = make_plan(p, machine_of(p), {false, {}});
  const std::string text = dry_run_text(plan);
  EXPECT_EQ(text.find("emitted instead"), std::string::npos) << text;
  for (std::size_t i = 0; i < 2; ++i) {
    const ContractionAnalysis& a = *plan.analysis->analyses[i];
    ASSERT_TRUE(a.plan().feasible);
    EXPECT_NE(text.find("  plan: " + a.plan().plan.to_string() + "\n"), std::string::npos) << text;
    EXPECT_NE(text.find("  " + choice_text(a) + "\n"), std::string::npos) << text;
    const nlohmann::json chosen = dry_run_json(plan)["contractions"][i]["chosen"];
    EXPECT_EQ(chosen["choice"], choice_text(a).substr(8));
    EXPECT_EQ(chosen["pinned"], false);
  }
}

TEST(ProgramPlan, PinnedPlanReplacesTheChoice) {
  const ir::Program p = parse(kTwoSteps);
  const Machine m = machine_of(p);
  PlanOptions options;
  const std::string pin = "inside-rotation order=ABC P=4 I=i:10x1 J=j:10x1 K=k:10x1 dist=i,j,k split=optimal";
  EXPECT_TRUE(pin_plans(p, m, {"8=" + pin}, &options).empty());
  ASSERT_EQ(options.pins.size(), 1u);
  const ProgramPlan plan = make_plan(p, m, {false, options});
  ASSERT_EQ(plan.statements.size(), 2u);
  EXPECT_EQ(plan.statements[0].plan.to_string(), pin);
  const ContractionAnalysis& a = *plan.analysis->analyses[0];
  EXPECT_TRUE(a.pinned.has_value());
  const std::string text = dry_run_text(plan);
  EXPECT_NE(text.find("  plan: " + pin + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  chosen: inside rotation, order ABC: "), std::string::npos) << text;
  EXPECT_NE(text.find(", pinned by --plan; the planner's choice "), std::string::npos) << text;
  // The pinned plan's exact volumes: what plan_volumes() counts for it.
  EXPECT_EQ(plan.statements[0].volumes.disk_read_bytes, plan_volumes(plan.statements[0].plan, m).disk_read_bytes);
}

TEST(ProgramPlan, InvalidPinsAreRefusedWithTheRule) {
  const ir::Program p = parse(kTwoSteps);
  const Machine m = machine_of(p);
  PlanOptions options;
  auto one = [&](const std::string& text) {
    const std::vector<PinError> e = pin_plans(p, m, {text}, &options);
    EXPECT_EQ(e.size(), 1u) << text;
    return e.empty() ? PinError{} : e[0];
  };
  // check_valid(): the machine's P.
  PinError e = one("8=inside-rotation order=ABC P=9 I=i:10x1 J=j:10x1 K=k:10x1 dist=i,j,k split=optimal");
  EXPECT_EQ(e.loc, (ir::SourceLocation{8, 1}));
  EXPECT_EQ(e.message, "--plan 8: the plan is for P = 9 but the machine has P = 4");
  // check_valid(): the buffers must fit memory.
  e = one("8=cosma grid=2x2x1 rounds=1 P=4 split=optimal");
  EXPECT_EQ(e.message,
            "--plan 8: tiles of A, B and C need 640000 + 640000 + 320000 = 1600000 bytes per rank but the memory is "
            "1000000 bytes");
  // The statement: tbs only on a symmetric product.
  e = one("8=tbs chunk=4 P=4 split=optimal");
  EXPECT_EQ(e.message, "--plan 8: tbs multiplies symmetric products (C[I,J] = A[I,K] * A[J,K]) only");
  // Unparsable text, an unknown line, a malformed argument.
  e = one("8=inside-rotation order=CBB P=4");
  EXPECT_EQ(e.message, "--plan 8: unknown order 'CBB' (expected ABC, ACB, BAC, BCA, CAB or CBA)");
  e = one("3=inside-rotation order=ABC P=4 I=i:10x1 J=j:10x1 K=k:10x1 dist=i,j,k split=optimal");
  EXPECT_EQ(e.loc, (ir::SourceLocation{3, 1}));
  EXPECT_EQ(e.message, "--plan 3: no contraction (two-operand statement) at line 3");
  e = one("eight=cosma");
  EXPECT_EQ(e.loc, (ir::SourceLocation{0, 0}));
  EXPECT_EQ(e.message, "--plan expects LINE=PLAN (a source line and a plan's text), got 'eight=cosma'");
  EXPECT_TRUE(options.pins.empty());
}

}  // namespace
