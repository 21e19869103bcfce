// tests/codegen/check_test.cpp — what code generation refuses, and where it says so:
// no machine, non-double elements, one-operand and chained statements, infeasible plans.
#include <string>

#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "frontend/frontend.h"

namespace {

using namespace tcec;

const char* kMachine = "machine m { processors 4; memory 64 MB; network 200 MB/s; disk 8 MB/s; }\n";

codegen::Generated generate(const std::string& source, const costmodel::PlanOptions& options = {}) {
  frontend::Result r = frontend::parse_source("t.tce", source, {});
  EXPECT_TRUE(r.ok()) << r.diagnostics.render();
  if (!r.ok()) return {};
  return codegen::generate(*r.program, options, {"t"});
}

// "LINE:COL id: message" per diagnostic, for exact comparison.
std::string summary(const codegen::Generated& g) {
  std::string out;
  for (const codegen::Diagnostic& d : g.diagnostics)
    out += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column) + " " + d.id + ": " + d.message + "\n";
  return out;
}

const char* kMatmul = "range N = 40;\nindex i, j, k, l : N;\ntensor A[N,N] input;\ntensor B[N,N] input;\n"
                      "tensor D[N,N] input;\ntensor C[N,N] output;\ntensor E[N,N] output;\n";

TEST(Check, TwoIndependentContractionsAreFine) {
  const codegen::Generated g = generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\nE[i,j] += 2 * D[i,k] * B[k,j];\n" + kMachine);
  EXPECT_TRUE(g.ok()) << summary(g);
  EXPECT_EQ(g.contractions, 2);
  EXPECT_NE(g.source.find("void contraction_2(tcert::Run& run) {"), std::string::npos);
  EXPECT_NE(g.source.find("  spec.alpha = 2;  // coefficient; C starts at zero\n"), std::string::npos);
  EXPECT_NE(g.source.find("    contraction_1(run);\n    contraction_2(run);\n    return run.finish();\n"), std::string::npos);
}

TEST(Check, NeedsAMachine) {
  const codegen::Generated g = generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\n");
  EXPECT_EQ(summary(g), "0:0 err_no_machine: no machine to plan for: give --machine FILE or add a machine block to 't.tce'\n");
  EXPECT_EQ(g.source, "");
}

TEST(Check, NeedsEightByteElements) {
  const codegen::Generated g = generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\n" +
                                        "machine m4 { processors 4; memory 64 MB; network 200 MB/s; disk 8 MB/s; element_size 4; }\n");
  EXPECT_EQ(summary(g), "0:0 err_element_size: code generation supports 8-byte elements (double) only, but machine 'm4' "
                        "has element_size 4\n");
}

TEST(Check, OneOperandStatement) {
  const codegen::Generated g = generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\n  E[i,j] = A[j,i];\n" + kMachine);
  EXPECT_EQ(summary(g), "9:3 err_one_operand_statement: code generation does not support one-operand statements yet "
                        "(a copy or addition into 'E')\n");
  EXPECT_EQ(g.source, "");
}

// A statement reading an earlier result: error at the read, note at the write.
TEST(Check, ChainedRead) {
  const codegen::Generated g = generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\nE[i,j] = C[i,k] * D[k,j];\n" + kMachine);
  EXPECT_EQ(summary(g), "9:10 err_chained_read: code generation does not support chained statements yet: 'C' is the result "
                        "of an earlier statement\n"
                        "8:1 note_written_here: 'C' is written here\n");
}

TEST(Check, ChainedWrite) {
  const codegen::Generated g = generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\nC[i,j] += D[i,k] * B[k,j];\n" + kMachine);
  EXPECT_EQ(summary(g), "9:1 err_chained_write: code generation does not support chained statements yet: 'C' is also "
                        "written by an earlier statement\n"
                        "8:1 note_written_here: 'C' is written here\n");
}

TEST(Check, InfeasiblePlanGivesTheReason) {
  costmodel::PlanOptions options;
  ASSERT_TRUE(costmodel::parse_method("inside-rotation", &options));
  const codegen::Generated g = generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\n" +
                                            "machine p6 { processors 6; memory 64 MB; network 200 MB/s; disk 8 MB/s; }\n",
                                        options);
  EXPECT_EQ(summary(g), "8:1 err_no_feasible_plan: no feasible plan for this contraction: P = 6 is not a perfect square\n");
}

TEST(Check, EveryStatementIsReported) {
  const codegen::Generated g =
      generate(std::string(kMatmul) + "E[i,j] = A[j,i];\nC[i,j] = A[i,k] * B[j,k];\nC[i,j] -= A[i,k] * D[j,k];\n" + kMachine);
  EXPECT_EQ(summary(g), "8:1 err_one_operand_statement: code generation does not support one-operand statements yet "
                        "(a copy or addition into 'E')\n"
                        "10:1 err_chained_write: code generation does not support chained statements yet: 'C' is also "
                        "written by an earlier statement\n"
                        "9:1 note_written_here: 'C' is written here\n");
}

}  // namespace
