// tests/codegen/check_test.cpp — what code generation refuses, and where it says so:
// no machine, non-double elements, declared distributions, infeasible plans; and what it accepts: one-operand
// statements (copies) and chained statements (accumulation into an earlier result, a result
// read by a later statement, intermediates released after their last use).
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

const char* kMatmul =
    "range N = 40;\nindex i, j, k, l : N;\ntensor A[N,N] input;\ntensor B[N,N] input;\n"
    "tensor D[N,N] input;\ntensor C[N,N] output;\ntensor E[N,N] output;\n";

TEST(Check, TwoIndependentContractionsAreFine) {
  const codegen::Generated g =
      generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\nE[i,j] += 2 * D[i,k] * B[k,j];\n" + kMachine);
  EXPECT_TRUE(g.ok()) << summary(g);
  EXPECT_EQ(g.contractions, 2);
  EXPECT_NE(g.source.find("void contraction_2(tcert::Run& run) {"), std::string::npos);
  EXPECT_NE(g.source.find("  spec.alpha = 2;  // coefficient\n"), std::string::npos);
  EXPECT_EQ(g.source.find("spec.accumulate"), std::string::npos);
  EXPECT_NE(
      g.source.find("void run_steps(tcert::Run& run) {\n  run.step(contraction_1);\n  run.step(contraction_2);\n}\n"),
      std::string::npos);
}

TEST(Check, NeedsAMachine) {
  const codegen::Generated g = generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\n");
  EXPECT_EQ(summary(g),
            "0:0 err_no_machine: no machine to plan for: give --machine FILE or add a machine block to 't.tce'\n");
  EXPECT_EQ(g.source, "");
}

TEST(Check, NeedsEightByteElements) {
  const codegen::Generated g =
      generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\n" +
               "machine m4 { processors 4; memory 64 MB; network 200 MB/s; disk 8 MB/s; element_size 4; }\n");
  EXPECT_EQ(summary(g),
            "0:0 err_element_size: code generation supports 8-byte elements (double) only, but machine 'm4' "
            "has element_size 4\n");
}

TEST(Check, DeclaredDistributionsAreModelledOnly) {
  const codegen::Generated g =
      generate(std::string(kMatmul) + "distribute A[i,k] over (k);\nC[i,j] = A[i,k] * B[j,k];\n" + kMachine);
  EXPECT_EQ(summary(g),
            "8:1 err_declared_distribution: 'A' has a declared distribution; generated programs read inputs "
            "from and write outputs to .npy files all ranks see, so 'distribute' is modelled by --dry-run "
            "only (remove it to generate code)\n");
  EXPECT_EQ(g.source, "");
}

TEST(Check, OneOperandStatementBecomesACopy) {
  const codegen::Generated g =
      generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\n  E[i,j] -= 0.5 * A[j,i];\n" + kMachine);
  EXPECT_TRUE(g.ok()) << summary(g);
  EXPECT_NE(
      g.source.find("void copy_1(tcert::Run& run) {\n"
                    "  tcert::CopySpec spec;\n"
                    "  spec.statement = \"E[i,j] -= 0.5 * A[j,i]\";\n"
                    "  spec.out = {\"E\", {40, 40}};\n"
                    "  spec.in = {\"A\", {40, 40}};\n"
                    "  spec.in_dim_of_out = {1, 0};  // per dimension of out, the dimension of in with its index\n"
                    "  spec.alpha = -0.5;\n"
                    "  tcert::copy_step(run, spec);  // every rank a balanced range of out's elements\n"
                    "}\n"),
      std::string::npos)
      << g.source;
  EXPECT_NE(g.source.find("void run_steps(tcert::Run& run) {\n  run.step(contraction_1);\n  run.step(copy_1);\n}\n"),
            std::string::npos);
}

// A later statement accumulates into an earlier result, another reads it; an intermediate is
// released after its last read; `=` after a write starts again from zero.
TEST(Check, ChainedStatements) {
  const codegen::Generated g = generate(
      "range N = 40;\nindex i, j, k : N;\ntensor A[N,N] input;\ntensor B[N,N] input;\ntensor T[N,N];\n"
      "tensor C[N,N] output;\nT[i,j] = A[i,k] * B[j,k];\nT[i,j] += A[i,k] * B[k,j];\nC[i,j] = T[i,k] * B[k,j];\n"
      "C[i,j] = A[i,k] * A[k,j];\n" +
      std::string(kMachine));
  EXPECT_TRUE(g.ok()) << summary(g);
  EXPECT_EQ(g.contractions, 4);
  const std::size_t second = g.source.find("void contraction_2(");
  ASSERT_NE(second, std::string::npos);
  EXPECT_NE(
      g.source.find("  spec.accumulate = true;  // C starts from T's current value (an earlier statement wrote it)\n",
                    second),
      std::string::npos);
  EXPECT_EQ(g.source.find("spec.accumulate"), g.source.find("spec.accumulate", second))
      << "only statement 2 accumulates";
  EXPECT_NE(g.source.find("void run_steps(tcert::Run& run) {\n  run.step(contraction_1);\n  run.step(contraction_2);\n "
                          " run.step(contraction_3);\n"
                          "  run.release(\"T\");  // T's last use\n  run.step(contraction_4);\n}\n"),
            std::string::npos)
      << g.source;
}

TEST(Check, InfeasiblePlanGivesTheReason) {
  costmodel::PlanOptions options;
  ASSERT_TRUE(costmodel::parse_method("inside-rotation", &options));
  const codegen::Generated g =
      generate(std::string(kMatmul) + "C[i,j] = A[i,k] * B[j,k];\n" +
                   "machine p6 { processors 6; memory 64 MB; network 200 MB/s; disk 8 MB/s; }\n",
               options);
  EXPECT_EQ(summary(g),
            "8:1 err_no_feasible_plan: no feasible plan for this contraction: P = 6 is not a perfect square\n");
}

TEST(Check, EveryInfeasibleStatementIsReported) {
  costmodel::PlanOptions options;
  ASSERT_TRUE(costmodel::parse_method("inside-rotation", &options));
  const codegen::Generated g =
      generate(std::string(kMatmul) + "E[i,j] = A[j,i];\nC[i,j] = A[i,k] * B[j,k];\nC[i,j] -= A[i,k] * D[j,k];\n" +
                   "machine p6 { processors 6; memory 64 MB; network 200 MB/s; disk 8 MB/s; }\n",
               options);
  EXPECT_EQ(summary(g),
            "9:1 err_no_feasible_plan: no feasible plan for this contraction: P = 6 is not a perfect square\n"
            "10:1 err_no_feasible_plan: no feasible plan for this contraction: P = 6 is not a perfect square\n");
}

}  // namespace
