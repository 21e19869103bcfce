// tests/frontend/tamm_test.cpp — TAMM import (--from tamm, frontend/tamm/tamm.h): the three
// functions of TAMM's spin-orbital CCSD (data/'s copy), their tensors, statements and
// contractions; the tensor updated in place and `= 0` folded into the next write; choosing the
// function; the ranges from -D; the stub header. Diagnostics at source locations are in
// tests/frontend/verify/tamm_*.cpp; the programs run under mpirun against NWChem's trees in
// tests/e2e/tamm_vs_nwchem.sh.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "frontend/frontend.h"
#include "frontend/tamm/tamm.h"

namespace {

using tcec::frontend::InputFormat;
using tcec::frontend::Options;
using tcec::frontend::parse_source;
using tcec::ir::Program;
using tcec::ir::TensorRole;

const std::string kData = std::string(TCEC_DATA_DIR) + "/tamm_ccsd_canonical_e_t1_t2.hpp.txt";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Options tamm(const std::string& function, std::vector<std::string> defines = {"O=4", "V=8"}) {
  Options options;
  options.format = InputFormat::Tamm;
  options.function = function;
  options.defines = std::move(defines);
  return options;
}

tcec::frontend::Result import(const std::string& function) { return parse_source(kData, read(kData), tamm(function)); }

// name -> "role shape", e.g. "input O,V".
std::map<std::string, std::string> tensors(const Program& p) {
  std::map<std::string, std::string> out;
  for (const auto& t : p.tensors) {
    std::string dims;
    for (int d : t.dims) dims += (dims.empty() ? "" : ",") + p.ranges[d].name;
    out[t.name] = std::string(tcec::ir::to_string(t.role)) + " " + dims;
  }
  return out;
}

int contractions(const Program& p) {
  int n = 0;
  for (const auto& s : p.statements) n += s.operands.size() == 2;
  return n;
}

std::string statement(const Program& p, std::size_t k) { return tcec::ir::format_statement(p, p.statements.at(k)); }

TEST(Tamm, EnergyStatementsAndTensors) {
  const auto r = import("ccsd_e");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const Program& p = *r.program;
  ASSERT_EQ(p.statements.size(), 4u);
  EXPECT_EQ(contractions(p), 3);
  EXPECT_EQ(statement(p, 0), "i1[h6,p5] = f1_hp[h6,p5]");
  EXPECT_EQ(statement(p, 1), "i1[h6,p5] += 0.5 * t1_ph[p3,h4] * v2_hhpp[h4,h6,p3,p5]");
  EXPECT_EQ(statement(p, 2), "de[] = t1_ph[p5,h6] * i1[h6,p5]");  // `de() = 0` folded in
  EXPECT_EQ(statement(p, 3), "de[] += 0.25 * t2_pphh[p1,p2,h3,h4] * v2_hhpp[h3,h4,p1,p2]");
  EXPECT_EQ(p.statements[2].source_text, "de() += t1(p5, h6) * i1(h6, p5)   [after '= 0' at line 36]");
  EXPECT_EQ(p.statements[1].loc, (tcec::ir::SourceLocation{35, 10}));
  EXPECT_EQ(p.statements[1].operands[1].loc, (tcec::ir::SourceLocation{35, 43}));
  const std::map<std::string, std::string> want = {
      {"de", "output "},      {"f1_hp", "input O,V"},       {"i1", "intermediate O,V"},
      {"t1_ph", "input V,O"}, {"t2_pphh", "input V,V,O,O"}, {"v2_hhpp", "input O,O,V,V"}};
  EXPECT_EQ(tensors(p), want);
  EXPECT_EQ(p.ranges[0].name, "O");
  EXPECT_EQ(p.ranges[0].extent, 4u);
  EXPECT_EQ(p.ranges[1].extent, 8u);
}

TEST(Tamm, T1Residual) {
  const auto r = import("ccsd_t1");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const Program& p = *r.program;
  EXPECT_EQ(p.statements.size(), 19u);
  EXPECT_EQ(contractions(p), 13);
  EXPECT_EQ(tensors(p).at("i0"), "output V,O");
  EXPECT_EQ(tensors(p).at("t1_6_1"), "intermediate O,O,O,V");
  EXPECT_EQ(tensors(p).at("v2_hphp"), "input O,V,O,V");
  for (const char* input : {"f1_hh", "f1_hp", "f1_ph", "f1_pp", "t1_ph", "t2_pphh", "v2_hhhp", "v2_hhpp", "v2_hppp"})
    EXPECT_EQ(tensors(p).at(input).substr(0, 6), "input ") << input;
  // `t1_2_1(h7, h1) = 0` before its first write: nothing to clear.
  EXPECT_EQ(statement(p, 1), "t1_2_1[h7,h1] = f1_hh[h7,h1]");
  EXPECT_EQ(statement(p, 18), "i0[p2,h1] += -0.5 * t2_pphh[p3,p4,h1,h5] * v2_hppp[h5,p2,p3,p4]");
}

TEST(Tamm, T2ResidualUpdatesT2InPlace) {
  const auto r = import("ccsd_t2");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const Program& p = *r.program;
  EXPECT_EQ(p.statements.size(), 81u);
  EXPECT_EQ(contractions(p), 30);
  const auto t = tensors(p);
  EXPECT_EQ(t.at("i0"), "output V,V,O,O");
  EXPECT_EQ(t.at("t2"), "output V,V,O,O");  // updated in place: input and output
  EXPECT_EQ(t.at("t2_pphh"), "input V,V,O,O");
  EXPECT_EQ(t.at("v2_pppp"), "input V,V,V,V");
  EXPECT_EQ(t.at("vt1t1_1_temp"), "intermediate O,V,O,O");
  // Before t2's first write it is read as the input block; the write starts from a copy of it.
  EXPECT_EQ(statement(p, 8), "t2_2_2_1[h10,h11,h1,h2] += -0.5 * t2_pphh[p7,p8,h1,h2] * v2_hhpp[h10,h11,p7,p8]");
  EXPECT_EQ(statement(p, 19), "t2[p1,p2,h3,h4] = t2_pphh[p1,p2,h3,h4]");
  EXPECT_EQ(p.statements[19].source_text,
            "t2[p1,p2,h3,h4] = t2_pphh[p1,p2,h3,h4]   [t2 is updated in place: its input first]");
  EXPECT_EQ(statement(p, 20), "t2[p1,p2,h3,h4] += t2_temp[p1,p2,h3,h4]");
  EXPECT_EQ(statement(p, 24), "t2_2_1[h10,p3,h1,h2] += 0.5 * t2[p5,p6,h1,h2] * v2_hppp[h10,p3,p5,p6]");
  // `i0_temp(...) = 0` then `+=`: one assignment.
  EXPECT_EQ(statement(p, 29), "i0_temp[p3,p4,h1,h2] = t1_ph[p3,h10] * t2_2_1[h10,p4,h1,h2]");
  int copies = 0;
  for (const auto& s : p.statements) copies += s.operands.size() == 1 && p.tensors[s.result.tensor].name == "t2";
  EXPECT_EQ(copies, 17);  // the copy in, and 4 x 4 permuted additions of t2_temp
}

TEST(Tamm, FunctionIsChosenByName) {
  const std::string text = read(kData);
  auto none = parse_source("ccsd.hpp", text, tamm(""));
  EXPECT_FALSE(none.ok());
  EXPECT_EQ(none.diagnostics.render(),
            "tcec: error: 'ccsd.hpp' defines 3 functions; choose one with --function NAME: ccsd_e, ccsd_t1, "
            "ccsd_t2\n");
  auto unknown = parse_source("ccsd.hpp", text, tamm("ccsd_t3"));
  EXPECT_EQ(unknown.diagnostics.render(),
            "tcec: error: no function 'ccsd_t3' in 'ccsd.hpp'; functions defined there: ccsd_e, ccsd_t1, ccsd_t2\n");
  auto empty = parse_source("empty.cpp", "using namespace tamm;\n", tamm(""));
  EXPECT_EQ(empty.diagnostics.render(), "tcec: error: 'empty.cpp' defines no function\n");
  Options nwchem = tamm("ccsd_e");
  nwchem.format = InputFormat::Nwchem;
  EXPECT_EQ(parse_source("x.txt", "", nwchem).diagnostics.render(),
            "tcec: error: --function ccsd_e applies to --from tamm only\n");
}

TEST(Tamm, RangesComeFromTheCommandLine) {
  const auto r = parse_source(kData, read(kData), tamm("ccsd_e", {"V=8", "N=3"}));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.render(),
            "tcec: error: range 'O' has no extent: TAMM programs do not give sizes; pass -D O=N (the number of "
            "occupied orbitals, TAMM's \"occ\" space)\n"
            "tcec: error: -D N=3: no range named 'N'\n");
}

// The file's own #include lines are skipped (blanked: later lines and columns are unchanged),
// whether or not the headers exist, and one function alone needs no --function.
TEST(Tamm, IncludesAreSkipped) {
  const std::string text =
      "#include \"tamm/tamm.hpp\"\n#include <vector>\n#  include \\\n  \"a continued line\"\n"
      "using namespace tamm;\n"
      "void f(Scheduler& sch, const TiledIndexSpace& MO, Tensor<double>& r, const Tensor<double>& a) {\n"
      "  auto [i, j] = MO.labels<2>(\"virt\");\n"
      "  sch(r(i, j) = -2 * a(j, i));\n"
      "}\n";
  const auto r = parse_source("f.cpp", text, tamm(""));
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  EXPECT_EQ(statement(*r.program, 0), "r[i,j] = -2 * a_pp[j,i]");
  EXPECT_EQ(r.program->statements[0].loc, (tcec::ir::SourceLocation{8, 7}));
}

// Whatever the text, the importer rejects it with diagnostics (or accepts it), never crashes.
TEST(Tamm, HostileInputDoesNotCrash) {
  const std::string head =
      "using namespace tamm;\nvoid f(Scheduler& sch, const TiledIndexSpace& MO, Tensor<double>& r, "
      "const Tensor<double>& a) {\n  auto [i, j] = MO.labels<2>(\"occ\");\n";
  std::string deep = head + "  sch(r(i, j) = a(i, j)";
  for (int k = 0; k < 2000; ++k) deep += " * 1";
  deep += ");\n}\n";
  std::string chain = head + "  sch";
  for (int k = 0; k < 2000; ++k) chain += "(r(i, j) += a(j, i))";
  chain += ";\n}\n";
  const std::vector<std::string> inputs = {
      "",
      std::string("\0\x01\xff{{{((( #include", 16),
      head,  // unterminated function
      head + "  sch(r(i, j) = a(i, j)\n}\n",
      "#error stop\n" + head + "}\n",
      "template <typename T> void f(T x) { f<T*>(x); }\n",  // unbounded instantiation
      deep,
      chain,
  };
  for (const std::string& text : inputs) {
    const auto r = parse_source("hostile.cpp", text, tamm(""));
    EXPECT_TRUE(r.ok() || r.diagnostics.has_errors()) << text.substr(0, 80);
  }
  const auto r = parse_source("chain.cpp", chain, tamm(""));
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  EXPECT_EQ(r.program->statements.size(), 2001u);  // r is updated in place: its input block first
}

TEST(Tamm, StubHeaderIsFound) {
  const std::string stub = tcec::frontend::tamm_stub_path();
  ASSERT_FALSE(stub.empty());
  EXPECT_TRUE(std::filesystem::exists(stub)) << stub;
  EXPECT_EQ(std::filesystem::path(stub).filename(), "tamm_stub.h");
}

}  // namespace
