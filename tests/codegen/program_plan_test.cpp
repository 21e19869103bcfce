// tests/codegen/program_plan_test.cpp — codegen emits the plan the cost model made once
// (costmodel::make_plan()): generating from it analyses nothing again, and the program's plan
// comments are the plan's statements.
#include <string>

#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "frontend/frontend.h"

namespace {

using namespace tcec;

TEST(ProgramPlan, CodegenEmitsThePlanWithoutAnalysingAgain) {
  frontend::Result r = frontend::parse_file(std::string(TCEC_SOURCE_DIR) + "/examples/matmul.tce", {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const ir::Program& program = *r.program;
  const costmodel::ProgramPlan plan =
      costmodel::make_plan(program, costmodel::machine_from(*program.machine), {false, {}});
  const std::uint64_t planned = costmodel::analyses_run();
  const codegen::Generated g = codegen::generate(plan, {"matmul"});
  EXPECT_EQ(costmodel::analyses_run(), planned) << "codegen analysed the program again";
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(plan.statements.size(), 1u);
  EXPECT_NE(g.source.find("// Plan: " + plan.statements[0].plan.to_string()), std::string::npos);
  // The report's plan is the emitted one.
  EXPECT_NE(costmodel::dry_run_text(plan).find("  plan: " + plan.statements[0].plan.to_string() + "\n"),
            std::string::npos);
}

}  // namespace
