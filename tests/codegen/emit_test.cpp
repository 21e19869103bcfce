// tests/codegen/emit_test.cpp — golden tests of the generated C++: examples/matmul.tce
// with pinned plans (STYLE §7), checked line by line against the loop nests of
// costmodel/schedules.h loop_nest() and the collectives of costmodel/methods/gao/simulate.cpp.
#include <string>

#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "costmodel/method_model.h"
#include "frontend/frontend.h"

namespace {

using namespace tcec;

std::string example(const std::string& name) { return std::string(TCEC_SOURCE_DIR) + "/examples/" + name; }

ir::Program parse(const std::string& path) {
  frontend::Result r = frontend::parse_file(path, {});
  EXPECT_TRUE(r.ok()) << r.diagnostics.render();
  return std::move(*r.program);
}

// `plan_text` parsed against the groups of `program`'s one contraction; checked valid on its machine.
costmodel::Plan pinned_plan(const ir::Program& program, const std::string& plan_text) {
  const costmodel::Machine machine = costmodel::machine_from(*program.machine);
  const costmodel::Plan chosen = costmodel::plan_program(program, machine, {}).at(0).plan;
  std::string error;
  auto plan = costmodel::parse_plan(plan_text, chosen.I, chosen.J, chosen.K, &error);
  EXPECT_TRUE(plan.has_value()) << error;
  if (!plan) return {};
  EXPECT_TRUE(costmodel::check_valid(*plan, machine, &error)) << error;
  return *plan;
}

// The program `program` generated with its one contraction's plan pinned to `plan_text`.
std::string generate_pinned(const ir::Program& program, const std::string& plan_text) {
  const costmodel::Machine machine = costmodel::machine_from(*program.machine);
  std::vector<costmodel::StatementPlan> plans = costmodel::plan_program(program, machine, {});
  EXPECT_EQ(plans.size(), 1u);
  plans.at(0).plan = pinned_plan(program, plan_text);
  // How the pinned plan reaches the arrays is its method's, not the chosen plan's.
  const costmodel::MethodModel& method = costmodel::model_of(plans.at(0).plan);
  plans.at(0).direct_A = plans.at(0).direct_B = method.reads_operands_directly(plans.at(0).plan);
  plans.at(0).direct_C = method.writes_result_directly(plans.at(0).plan);
  plans.at(0).volumes = costmodel::plan_volumes(plans.at(0).plan, machine);
  plans.at(0).memory = costmodel::plan_memory(plans.at(0).plan, machine);
  EXPECT_TRUE(codegen::check_program(program, plans).empty());
  return codegen::emit_program(program, machine, plans, {"matmul"});
}

std::string matmul_with(const std::string& plan_text) {
  return generate_pinned(parse(example("matmul.tce")), plan_text);
}

// The text from the line holding `first` through the line holding `last` (inclusive).
std::string excerpt(const std::string& text, const std::string& first, const std::string& last) {
  auto begin = text.find(first);
  if (begin == std::string::npos) return "<'" + first + "' not found>";
  begin = text.rfind('\n', begin) + 1;
  auto end = text.find(last, begin);
  if (end == std::string::npos) return "<'" + last + "' not found>";
  return text.substr(begin, text.find('\n', end) + 1 - begin);
}

// From the tile-count constants to the end of the compute lambda.
std::string nest_of(const std::string& text) { return excerpt(text, "const std::int64_t", "  });"); }

// Gao et al. §3 order CAB with Cannon inside: the brief's (and loop_nest()'s) nest.
TEST(Emit, InsideRotationCAB) {
  const std::string text =
      matmul_with("inside-rotation order=CAB P=4 I=i:2x1 J=j:2x3 K=k:2x1 dist=i,j,k split=optimal");
  EXPECT_NE(text.find("// Plan: inside-rotation order=CAB P=4 I=i:2x1 J=j:2x3 K=k:2x1 dist=i,j,k split=optimal\n"),
            std::string::npos);
  EXPECT_EQ(nest_of(text),
            "  const std::int64_t It1 = x.I().t1(), Jt1 = x.J().t1(), Jt2 = x.J().t2(), Kt1 = x.K().t1();\n"
            "  x.compute([&] {\n"
            "    // order CAB: [I1 J1: read C | write C] [K1: read A] [J2: read B, compute]\n"
            "    for (std::int64_t i1 = 0; i1 < It1; ++i1) {\n"
            "      for (std::int64_t j1 = 0; j1 < Jt1; ++j1) {\n"
            "        x.read_C(x.I().level1(i1), x.J().level1(j1));\n"
            "        for (std::int64_t k1 = 0; k1 < Kt1; ++k1) {\n"
            "          x.read_A(x.I().level1(i1), x.K().level1(k1));\n"
            "          for (std::int64_t j2 = 0; j2 < Jt2; ++j2) {\n"
            "            x.read_B(x.J().tile(j1, j2), x.K().level1(k1));\n"
            "            x.cannon_multiply(i1, j1 * Jt2 + j2, k1);  // Cannon: √P steps of multiply, shift A left, "
            "shift B up\n"
            "          }\n"
            "        }\n"
            "        x.write_C(x.I().level1(i1), x.J().level1(j1));\n"
            "      }\n"
            "    }\n"
            "  });\n");
}

// Replication of A inside: the ring all-gather follows every read of A.
TEST(Emit, InsideReplicationACB) {
  const std::string text =
      matmul_with("inside-replication order=ACB P=4 bcast=A I=i:3x2 J=j:1x1 K=k:1x5 dist=-,j,k split=optimal");
  EXPECT_NE(text.find("  gao.algorithm = tcert::Algorithm::Replication;\n  gao.broadcast = tcert::Operand::A;\n"),
            std::string::npos);
  EXPECT_EQ(
      nest_of(text),
      "  const std::int64_t It1 = x.I().t1(), It2 = x.I().t2(), Jt1 = x.J().t1(), Kt1 = x.K().t1(), Kt2 = x.K().t2();\n"
      "  x.compute([&] {\n"
      "    // order ACB: [I1 K1: read A] [J1 I2: read C | write C] [K2: read B, compute]\n"
      "    for (std::int64_t i1 = 0; i1 < It1; ++i1) {\n"
      "      for (std::int64_t k1 = 0; k1 < Kt1; ++k1) {\n"
      "        x.read_A(x.I().level1(i1), x.K().level1(k1));\n"
      "        x.allgather_A();  // ring all-gather: every rank now holds the whole tile of A\n"
      "        for (std::int64_t j1 = 0; j1 < Jt1; ++j1) {\n"
      "          for (std::int64_t i2 = 0; i2 < It2; ++i2) {\n"
      "            x.read_C(x.I().tile(i1, i2), x.J().level1(j1));\n"
      "            for (std::int64_t k2 = 0; k2 < Kt2; ++k2) {\n"
      "              x.read_B(x.J().level1(j1), x.K().tile(k1, k2));\n"
      "              x.multiply(i1 * It2 + i2, j1, k1 * Kt2 + k2);\n"
      "            }\n"
      "            x.write_C(x.I().tile(i1, i2), x.J().level1(j1));\n"
      "          }\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "  });\n");
}

TEST(Emit, InsideReplicationOfBGathersAfterReadB) {
  const std::string text =
      matmul_with("inside-replication order=ACB P=4 bcast=B I=i:1x1 J=j:3x1 K=k:1x5 dist=i,-,k split=optimal");
  EXPECT_NE(text.find("  gao.broadcast = tcert::Operand::B;\n"), std::string::npos);
  EXPECT_NE(text.find("              x.read_B(x.J().level1(j1), x.K().tile(k1, k2));\n"
                      "              x.allgather_B();  // ring all-gather: every rank now holds the whole tile of B\n"
                      "              x.multiply(i1 * It2 + i2, j1, k1 * Kt2 + k2);\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("allgather_A"), std::string::npos);
}

// Cannon on files (Gao et al. Fig. 2): the whole nest once per round, then the file shift.
TEST(Emit, OutsideRotationBCA) {
  const std::string text =
      matmul_with("outside-rotation order=BCA P=4 I=i:2x1 J=j:1x1 K=k:1x2 dist=i,j,k split=optimal");
  EXPECT_EQ(
      nest_of(text),
      "  const std::int64_t It1 = x.I().t1(), Jt1 = x.J().t1(), Jt2 = x.J().t2(), Kt1 = x.K().t1(), Kt2 = x.K().t2();\n"
      "  x.compute([&] {\n"
      "    // order BCA: [J1 K1: read B] [I1 J2: read C | write C] [K2: read A, compute]\n"
      "    for (std::int64_t round = 0; round < x.rounds(); ++round) {\n"
      "      for (std::int64_t j1 = 0; j1 < Jt1; ++j1) {\n"
      "        for (std::int64_t k1 = 0; k1 < Kt1; ++k1) {\n"
      "          x.read_B(x.J().level1(j1), x.K().level1(k1));\n"
      "          for (std::int64_t i1 = 0; i1 < It1; ++i1) {\n"
      "            for (std::int64_t j2 = 0; j2 < Jt2; ++j2) {\n"
      "              x.read_C(x.I().level1(i1), x.J().tile(j1, j2));\n"
      "              for (std::int64_t k2 = 0; k2 < Kt2; ++k2) {\n"
      "                x.read_A(x.I().level1(i1), x.K().tile(k1, k2));\n"
      "                x.multiply(i1, j1 * Jt2 + j2, k1 * Kt2 + k2);\n"
      "              }\n"
      "              x.write_C(x.I().level1(i1), x.J().tile(j1, j2));\n"
      "            }\n"
      "          }\n"
      "        }\n"
      "      }\n"
      "      x.shift_operand_files();  // Cannon on files: shift A's file one rank left and B's one rank up\n"
      "    }\n"
      "  });\n");
}

// Accumulation inside: the partial C tile is summed over the ranks right before its write.
TEST(Emit, InsideAccumulationABC) {
  const std::string text =
      matmul_with("inside-accumulation order=ABC P=4 I=i:1x2 J=j:4x1 K=k:1x1 dist=-,-,k split=optimal");
  EXPECT_EQ(nest_of(text),
            "  const std::int64_t It1 = x.I().t1(), It2 = x.I().t2(), Jt1 = x.J().t1(), Kt1 = x.K().t1();\n"
            "  x.compute([&] {\n"
            "    // order ABC: [I1 K1: read A] [J1: read B] [I2: read C, compute, write C]\n"
            "    for (std::int64_t i1 = 0; i1 < It1; ++i1) {\n"
            "      for (std::int64_t k1 = 0; k1 < Kt1; ++k1) {\n"
            "        x.read_A(x.I().level1(i1), x.K().level1(k1));\n"
            "        for (std::int64_t j1 = 0; j1 < Jt1; ++j1) {\n"
            "          x.read_B(x.J().level1(j1), x.K().level1(k1));\n"
            "          for (std::int64_t i2 = 0; i2 < It2; ++i2) {\n"
            "            x.read_C(x.I().tile(i1, i2), x.J().level1(j1));\n"
            "            x.multiply(i1 * It2 + i2, j1, k1);\n"
            "            x.allreduce_C();  // all-reduce: sum the partial C tiles of all ranks\n"
            "            x.write_C(x.I().tile(i1, i2), x.J().level1(j1));\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  });\n");
}

// Accumulation outside: partial C files, summed into rank 0's after the nest.
TEST(Emit, OutsideAccumulationCBA) {
  const std::string text =
      matmul_with("outside-accumulation order=CBA P=4 I=i:2x2 J=j:2x1 K=k:1x1 dist=-,-,k split=optimal");
  EXPECT_EQ(nest_of(text),
            "  const std::int64_t It1 = x.I().t1(), It2 = x.I().t2(), Jt1 = x.J().t1(), Kt1 = x.K().t1();\n"
            "  x.compute([&] {\n"
            "    // order CBA: [I1 J1: read C | write C] [K1: read B] [I2: read A, compute]\n"
            "    for (std::int64_t i1 = 0; i1 < It1; ++i1) {\n"
            "      for (std::int64_t j1 = 0; j1 < Jt1; ++j1) {\n"
            "        x.read_C(x.I().level1(i1), x.J().level1(j1));\n"
            "        for (std::int64_t k1 = 0; k1 < Kt1; ++k1) {\n"
            "          x.read_B(x.J().level1(j1), x.K().level1(k1));\n"
            "          for (std::int64_t i2 = 0; i2 < It2; ++i2) {\n"
            "            x.read_A(x.I().tile(i1, i2), x.K().level1(k1));\n"
            "            x.multiply(i1 * It2 + i2, j1, k1);\n"
            "          }\n"
            "        }\n"
            "        x.write_C(x.I().level1(i1), x.J().level1(j1));\n"
            "      }\n"
            "    }\n"
            "    x.reduce_C_file();  // sum every rank's partial C file into rank 0's\n"
            "  });\n");
  EXPECT_EQ(text.find("allreduce_C"), std::string::npos);
}

// Replication outside: the broadcast operand's file is gathered once, before the nest.
TEST(Emit, OutsideReplicationBAC) {
  const std::string text =
      matmul_with("outside-replication order=BAC P=4 bcast=A I=i:5x1 J=j:1x1 K=k:1x1 dist=-,j,k split=optimal");
  EXPECT_EQ(nest_of(text),
            "  const std::int64_t It1 = x.I().t1(), Jt1 = x.J().t1(), Jt2 = x.J().t2(), Kt1 = x.K().t1();\n"
            "  x.compute([&] {\n"
            "    // order BAC: [J1 K1: read B] [I1: read A] [J2: read C, compute, write C]\n"
            "    x.gather_broadcast_file();  // ring all-gather of A's file, disk to disk: every rank gets all of A\n"
            "    for (std::int64_t j1 = 0; j1 < Jt1; ++j1) {\n"
            "      for (std::int64_t k1 = 0; k1 < Kt1; ++k1) {\n"
            "        x.read_B(x.J().level1(j1), x.K().level1(k1));\n"
            "        for (std::int64_t i1 = 0; i1 < It1; ++i1) {\n"
            "          x.read_A(x.I().level1(i1), x.K().level1(k1));\n"
            "          for (std::int64_t j2 = 0; j2 < Jt2; ++j2) {\n"
            "            x.read_C(x.I().level1(i1), x.J().tile(j1, j2));\n"
            "            x.multiply(i1, j1 * Jt2 + j2, k1);\n"
            "            x.write_C(x.I().level1(i1), x.J().tile(j1, j2));\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  });\n");
  EXPECT_EQ(text.find("allgather"), std::string::npos);
}

// The GemmSpec of a permuted contraction with multi-index groups, -= and a coefficient:
// I = {c,a} (result indices in A, in the result's order), J = {b}, K = {q,p} (A's order).
const char* kPermuted = R"(range N = 13, M = 11;
index a, b, c, p : N;
index q : M;
tensor A[N,M,N,N] input;
tensor B[N,N,M] input;
tensor T[N,N,N] output;
T[b,c,a] -= 0.5 * A[c,q,a,p] * B[p,b,q];
machine small { processors 4; memory 1 MB; network 200 MB/s; disk 8 MB/s; }
)";

TEST(Emit, GemmSpecOfAPermutedContraction) {
  frontend::Result r = frontend::parse_source("dir/four.tce", kPermuted, {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const std::string plan = "inside-rotation order=CAB P=4 I=c:1x1,a:1x1 J=b:1x2 K=q:1x1,p:1x1 dist=c,b,p split=optimal";
  const std::string text = generate_pinned(*r.program, plan);
  const costmodel::Machine machine = costmodel::machine_from(*r.program->machine);
  const costmodel::Plan parsed = pinned_plan(*r.program, plan);
  const costmodel::TileBytes tb = costmodel::tile_bytes(parsed, 8);
  const costmodel::PlanVolumes v = costmodel::plan_volumes(parsed, machine);
  auto list = [](const std::vector<std::uint64_t>& x) {
    std::string s;
    for (auto e : x) s += (s.empty() ? "" : ", ") + std::to_string(e);
    return "{" + s + "}";
  };
  EXPECT_EQ(
      excerpt(text, "// Contraction 1", "spec.predicted.comm_recv_bytes"),
      "// Contraction 1 (dir/four.tce:7): T[b,c,a] -= 0.5 * A[c,q,a,p] * B[p,b,q]\n"
      "//   T(I,J) -= A(I,K) * B(J,K) with A = A, B = B; I = {c,a}, J = {b}, K = {q,p}\n"
      "// Plan: " +
          plan + "\n" + excerpt(text, "// Predicted per rank", "// Predicted per rank") +
          "// Memory per rank (bytes): tile of A " + std::to_string(tb.A) + ", tile of B " + std::to_string(tb.B) +
          ", tile of C " + std::to_string(tb.C) + "; peak " + std::to_string(tb.A + tb.B + tb.C) +
          "\n"
          "void contraction_1(tcert::Run& run) {\n"
          "  tcert::GemmSpec spec;\n"
          "  spec.statement = \"T[b,c,a] -= 0.5 * A[c,q,a,p] * B[p,b,q]\";\n"
          "  spec.plan = \"" +
          plan +
          "\";\n"
          "  tcert::GaoSpec& gao = spec.method.emplace<tcert::GaoSpec>();  // run by tcert::GaoGemm\n"
          "  gao.comm = tcert::Communication::Inside;\n"
          "  gao.algorithm = tcert::Algorithm::Rotation;\n"
          "  gao.order = tcert::PlacementOrder::CAB;  // the loop nest's disk placement order\n"
          "  // Macro-indices: per index {extent, t1, t2}, then the position of the distribution index (-1: none).\n"
          "  spec.I = {{{/*c*/ 13, 1, 1}, {/*a*/ 13, 1, 1}}, 0};  // I: distributed over c\n"
          "  spec.J = {{{/*b*/ 13, 1, 2}}, 0};  // J: distributed over b\n"
          "  spec.K = {{{/*q*/ 11, 1, 1}, {/*p*/ 13, 1, 1}}, 1};  // K: distributed over p\n"
          "  // Tensors: name and stored extents, then the stored dimension of each position of [I,K], [J,K], [I,J].\n"
          "  spec.A = {{\"A\", {13, 11, 13, 13}}, {0, 2, 1, 3}};\n"
          "  spec.B = {{\"B\", {13, 13, 11}}, {1, 2, 0}};\n"
          "  spec.C = {{\"T\", {13, 13, 13}}, {1, 2, 0}};\n"
          "  spec.alpha = -0.5;  // coefficient, negated for -=\n"
          "  spec.direct_A = true;  // the compute stage reads its tiles straight from the tensor\n"
          "  spec.direct_B = true;  // the compute stage reads its tiles straight from the tensor\n"
          "  spec.direct_C = true;  // the compute stage reads and writes C's tiles in its new file in the store\n"
          "  gao.capacity_A = " +
          std::to_string(tb.A / 8) +
          ";  // tile buffer elements per rank\n"
          "  gao.capacity_B = " +
          std::to_string(tb.B / 8) +
          ";\n"
          "  gao.capacity_C = " +
          std::to_string(tb.C / 8) +
          ";\n"
          "  spec.planned_memory_bytes = " +
          std::to_string(tb.A + tb.B + tb.C) +
          ";  // the plan's peak per rank; the runtime refuses to need more\n"
          "  // The model's volumes per rank: the compute stage, then stages 1 and 3 (and flushes).\n"
          "  spec.predicted.disk_read_bytes = " +
          list(v.disk_read_bytes) +
          ";\n"
          "  spec.predicted.disk_write_bytes = " +
          list(v.disk_write_bytes) +
          ";\n"
          "  spec.predicted.comm_sent_bytes = " +
          list(v.comm_sent_bytes) +
          ";\n"
          "  spec.predicted.comm_recv_bytes = " +
          list(v.comm_recv_bytes) + ";\n");
  EXPECT_NE(text.find("void run_steps(tcert::Run& run) {\n"
                      "  run.step(contraction_1);\n"
                      "}\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  return {\"matmul\", \"dir/four.tce\", /*processors*/ 4, /*memory bytes per rank*/ 1000000,\n"
                      "          /*inputs*/ {{\"A\", {13, 11, 13, 13}}, {\"B\", {13, 13, 11}}},\n"
                      "          /*outputs*/ {{\"T\", {13, 13, 13}}},\n"
                      "          /*fingerprint*/ \""),
            std::string::npos)
      << text;
}

TEST(Emit, HeaderNamesInputAndMachine) {
  const std::string text =
      matmul_with("inside-rotation order=CAB P=4 I=i:2x1 J=j:2x3 K=k:2x1 dist=i,j,k split=optimal");
  EXPECT_EQ(text.rfind("// Generated by tcec 0.1.0 from " + example("matmul.tce") +
                           " — do not edit.\n"
                           "// Machine osc_itanium2: P = 4, memory 64000000 bytes per rank, network 200000000 B/s, "
                           "disk read 8000000 B/s, disk write 8000000 B/s\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("#include \"runtime/tcert.h\""), std::string::npos);
  EXPECT_NE(
      text.find("namespace tcec_gen {\n\n"
                "tcert::Status matmul(MPI_Comm comm, const tcert::TensorLocations& tensors, const tcert::RunOptions& "
                "options) {\n"
                "  return tcert::run_generated(comm, tensors, options, program_info(), run_steps);\n"
                "}\n\n"
                "}  // namespace tcec_gen\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("\nint main(int argc, char** argv) {\n"
                      "  return tcert::program_main(argc, argv, program_info(), tcec_gen::matmul);\n}\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("// Predicted per rank (bytes): disk read 127936000 .. 128064000, disk write 31968000 .. 32032000, "),
      std::string::npos)
      << text.substr(text.find("// Predicted"), 200);
}

// User text reaches the program only as escaped literals and sanitised comments.
TEST(Emit, StringsAreEscaped) {
  ir::Program program = parse(example("matmul.tce"));
  program.file = "we\"ird\\dir\n/m.tce";
  const std::string text =
      generate_pinned(program, "inside-rotation order=CAB P=4 I=i:2x1 J=j:2x3 K=k:2x1 dist=i,j,k split=optimal");
  EXPECT_NE(text.find("{\"matmul\", \"we\\\"ird\\\\dir\\n/m.tce\", "), std::string::npos) << text;
  EXPECT_NE(text.find("// Generated by tcec 0.1.0 from we\"ird\\dir?/m.tce — do not edit.\n"), std::string::npos);
  EXPECT_NE(text.find("// Contraction 1 (we\"ird\\dir?/m.tce:8): "), std::string::npos);
}

TEST(Emit, FunctionNamesAreIdentifiers) {
  EXPECT_EQ(codegen::function_name("matmul"), "matmul");
  EXPECT_EQ(codegen::function_name("ccsd_t2"), "ccsd_t2");
  EXPECT_EQ(codegen::function_name("4-index"), "tcec_4_index");
  EXPECT_EQ(codegen::function_name("_x"), "tcec_x");
  EXPECT_EQ(codegen::function_name("a b--c"), "a_b_c");
  EXPECT_EQ(codegen::function_name("we\"ird\n"), "we_ird_");
  EXPECT_EQ(codegen::function_name("new"), "new_");
  EXPECT_EQ(codegen::library_stem("new"), "new");
  EXPECT_EQ(codegen::function_name(""), "tcec_");
  EXPECT_EQ(codegen::library_stem("__a"), "tcec_a");
}

// The library form: the source defines the function without a main() and includes the header;
// the header declares it with the tensors' shapes.
TEST(Emit, LibraryForm) {
  const ir::Program program = parse(example("matmul.tce"));
  const codegen::Generated g = codegen::generate(program, {}, {"mat-mul", codegen::EmitForm::Library});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g.source.find("int main("), std::string::npos);
  EXPECT_NE(g.source.find("#include \"mat_mul.h\"\n"), std::string::npos) << g.source;
  EXPECT_NE(g.source.find("tcert::Status mat_mul(MPI_Comm comm, const tcert::TensorLocations& tensors, "
                          "const tcert::RunOptions& options) {\n"
                          "  return tcert::run_generated(comm, tensors, options, program_info(), run_steps);\n"),
            std::string::npos)
      << g.source;
  EXPECT_NE(g.header.find("#pragma once\n\n#include <mpi.h>\n\n"
                          "#include \"runtime/program/options.h\"  // tcert::RunOptions, tcert::TensorLocations\n"
                          "#include \"runtime/base/status.h\"   // tcert::Status\n\n"
                          "namespace tcec_gen {\n\n"),
            std::string::npos)
      << g.header;
  EXPECT_NE(g.header.find(
                "/// Runs the statements of\n"
                "///   " +
                example("matmul.tce") +
                " (1 statement)\n"
                "/// as tcec planned them for P = 4 ranks with 64000000 bytes of tile memory each, on the ranks of\n"
                "/// `comm` (which must have 4 ranks). Tensors are float64, C order:\n"
                "///   inputs:  A[4000, 4000], B[4000, 4000]\n"
                "///   outputs: C[4000, 4000]\n"),
            std::string::npos)
      << g.header;
  EXPECT_NE(g.header.find("\ntcert::Status mat_mul(MPI_Comm comm, const tcert::TensorLocations& tensors, "
                          "const tcert::RunOptions& options);\n\n}  // namespace tcec_gen\n"),
            std::string::npos)
      << g.header;
  const codegen::Generated program_form = codegen::generate(program, {}, {"mat-mul"});
  EXPECT_TRUE(program_form.header.empty());
  EXPECT_NE(program_form.source.find("tcec_gen::mat_mul);"), std::string::npos);
}

TEST(Emit, GenerateRunsPlanCheckAndEmit) {
  const ir::Program program = parse(example("matmul.tce"));
  costmodel::PlanOptions options;
  ASSERT_TRUE(costmodel::parse_method("outside-rotation", &options));
  ASSERT_TRUE(costmodel::parse_order("CAB", &options));
  const codegen::Generated g = codegen::generate(program, options, {"mm"});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g.contractions, 1);
  EXPECT_NE(g.source.find("// Plan: outside-rotation order=CAB P=4 "), std::string::npos);
  EXPECT_NE(g.source.find("{\"mm\", "), std::string::npos);
}

}  // namespace

namespace {

// COSMA: CosmaGemm with the grid and rounds, then Algorithm 1's rounds and the reduce-scatter.
TEST(Emit, CosmaRoundsAndReduceScatter) {
  const std::string text = matmul_with("cosma grid=2x2x1 rounds=8 P=4 split=optimal");
  EXPECT_NE(
      text.find("  tcert::CosmaSpec& cosma = spec.method.emplace<tcert::CosmaSpec>();  // run by tcert::CosmaGemm\n"
                "  cosma.grid[0] = 2;  // pm: ranks along I\n"
                "  cosma.grid[1] = 2;  // pn: ranks along J\n"
                "  cosma.grid[2] = 1;  // pk: ranks along K\n"
                "  cosma.rounds = 8;  // t: rounds along K\n"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("capacity_A"), std::string::npos);
  EXPECT_EQ(excerpt(text, "tcert::CosmaGemm x", "  });"),
            "  tcert::CosmaGemm x(run, std::move(spec));\n"
            "  x.compute([&] {\n"
            "    // COSMA: grid 2x2x1 (pm x pn x pk; 0 idle ranks), 8 rounds along K\n"
            "    // The first round: 0, or where a run resumed inside this step continues (--checkpoint-every)\n"
            "    x.read_slices(x.first_round());  // this rank's pieces of its A and B slices\n"
            "    x.allgather_B();                 // its B slice: ring all-gather among the pm ranks (*,y,z)\n"
            "    for (std::int64_t round = x.first_round(); round < x.rounds(); ++round) {\n"
            "      // Ring all-gather of the A slice among the pn ranks (x,*,z), overlapped with C block +=\n"
            "      // alpha * A slice * B slice^T; meanwhile the next round's pieces are read and its B slice\n"
            "      // is gathered into the other buffers (double buffering)\n"
            "      x.gather_A_and_multiply();\n"
            "    }\n"
            "    x.reduce_scatter_C();  // ring reduce-scatter of the partial C blocks among the pk ranks (x,y,*);\n"
            "                           // this rank's piece stays in memory until finish() writes it\n"
            "  });\n");
}

}  // namespace
