// tests/ir/macro_gemm_test.cpp — the macro-index GEMM view (Gao et al. §2,
// Eq. 2.2) on hand-made statements and on the 48 TCCG contractions.
#include <gtest/gtest.h>

#include "frontend/frontend.h"
#include "ir/ir.h"

namespace {

using tcec::ir::MacroIndexGemm;

tcec::ir::Program parse(const std::string& text) {
  auto r = tcec::frontend::parse_source("test.tce", text, {});
  EXPECT_TRUE(r.ok()) << r.diagnostics.render();
  return *r.program;
}

std::string names(const tcec::ir::Program& p, const std::vector<int>& ids) {
  std::string out;
  for (int i : ids) out += p.indices[i].name;
  return out;
}

TEST(MacroGemm, CcsdTermFromTheIssue) {
  auto p = parse(
      "range O = 10, V = 30; index h1, h2 : O; index p3, p4, p5, p6 : V;\n"
      "tensor i0[V,V,O,O] output; tensor t[V,V,O,O] input; tensor v[V,V,V,V] input;\n"
      "i0[p3,p4,h1,h2] += 0.5 * t[p5,p6,h1,h2] * v[p3,p4,p5,p6];\n");
  MacroIndexGemm g = tcec::ir::macro_index_gemm(p, p.statements[0]);
  EXPECT_EQ(names(p, g.I), "h1h2");
  EXPECT_EQ(names(p, g.J), "p3p4");
  EXPECT_EQ(names(p, g.K), "p5p6");
  EXPECT_EQ(g.extent_I, 100u);
  EXPECT_EQ(g.extent_J, 900u);
  EXPECT_EQ(g.extent_K, 900u);
  EXPECT_EQ(g.elements_A, 90000u);
  EXPECT_EQ(g.elements_B, 810000u);
  EXPECT_EQ(g.elements_C, 90000u);
  EXPECT_EQ(g.bytes_B(8), 6480000u);
  EXPECT_EQ(g.flops, 2.0 * 100 * 900 * 900);
  // t is stored [p5,p6,h1,h2]; [I,K] = [h1,h2,p5,p6] sits at dims 2,3,0,1.
  EXPECT_EQ(g.perm_A, (std::vector<int>{2, 3, 0, 1}));
  EXPECT_EQ(g.perm_B, (std::vector<int>{0, 1, 2, 3}));
  // i0 is stored [p3,p4,h1,h2]; [I,J] = [h1,h2,p3,p4].
  EXPECT_EQ(g.perm_C, (std::vector<int>{2, 3, 0, 1}));
  EXPECT_DOUBLE_EQ(p.statements[0].coefficient, 0.5);
}

TEST(MacroGemm, EmptyMacroIndicesHaveExtentOne) {
  auto p = parse(
      "range N = 7; index i, k : N; tensor e[] output; tensor x[N] input; tensor y[N] input;\n"
      "tensor o[N,N] output;\n"
      "e[] = x[k] * y[k];\n"
      "o[i,k] = x[i] * y[k];\n");
  MacroIndexGemm dot = tcec::ir::macro_index_gemm(p, p.statements[0]);
  EXPECT_TRUE(dot.I.empty());
  EXPECT_TRUE(dot.J.empty());
  EXPECT_EQ(dot.extent_I, 1u);
  EXPECT_EQ(dot.extent_K, 7u);
  EXPECT_EQ(dot.elements_C, 1u);
  EXPECT_EQ(dot.flops, 14.0);
  MacroIndexGemm outer = tcec::ir::macro_index_gemm(p, p.statements[1]);
  EXPECT_TRUE(outer.K.empty());
  EXPECT_EQ(outer.extent_K, 1u);
  EXPECT_EQ(outer.elements_C, 49u);
}

TEST(MacroGemm, CanonicalText) {
  auto p = parse(
      "range N = 4; index a, b, c : N; tensor A[N,N] input; tensor B[N,N] input; tensor C[N,N] output;\n"
      "C[a,b] -= -1/2 * A[a,c] * B[c,b];\n");
  const auto& s = p.statements[0];
  EXPECT_EQ(tcec::ir::format_statement(p, s), "C[a,b] -= -1/2 * A[a,c] * B[c,b]");
  EXPECT_EQ(tcec::ir::format_macro_gemm(p, s, tcec::ir::macro_index_gemm(p, s)),
            "C(I,J) -= A(I,K) * B(J,K) with A = A, B = B; I = {a}, J = {b}, K = {c}");
  EXPECT_DOUBLE_EQ(s.coefficient, -0.5);
  EXPECT_EQ(s.op, tcec::ir::AssignOp::Subtract);
}

// Expected I, J, K (as letters), extents and flops, computed independently
// from tccg_benchmark_48_TAPP.txt (A-B-C order, sizes as given).
struct TccgCase {
  const char* name;
  const char* I;
  const char* J;
  const char* K;
  std::uint64_t extent_I, extent_J, extent_K;
  unsigned long long flops;
};

const TccgCase kTccg[] = {
    {"tccg_01", "ab", "c", "d", 147456, 24, 384, 2717908992ULL},
    {"tccg_02", "ac", "b", "d", 144384, 24, 384, 2661285888ULL},
    {"tccg_03", "abd", "c", "e", 774144, 24, 96, 3567255552ULL},
    {"tccg_04", "acd", "b", "e", 774144, 24, 84, 3121348608ULL},
    {"tccg_05", "abd", "c", "e", 677376, 24, 96, 3121348608ULL},
    {"tccg_06", "abde", "c", "f", 2985984, 24, 36, 5159780352ULL},
    {"tccg_07", "abce", "d", "f", 2985984, 24, 48, 6879707136ULL},
    {"tccg_08", "acde", "b", "f", 2985984, 24, 36, 5159780352ULL},
    {"tccg_09", "a", "bcd", "e", 96, 592704, 96, 10924720128ULL},
    {"tccg_10", "b", "acd", "e", 84, 677376, 96, 10924720128ULL},
    {"tccg_11", "c", "abd", "e", 84, 677376, 96, 10924720128ULL},
    {"tccg_12", "a", "b", "c", 7248, 7240, 7248, 760685137920ULL},
    {"tccg_13", "a", "b", "cd", 384, 376, 144384, 41693478912ULL},
    {"tccg_14", "a", "b", "cd", 384, 376, 147456, 42580574208ULL},
    {"tccg_15", "ac", "b", "d", 144384, 376, 384, 41693478912ULL},
    {"tccg_16", "a", "bc", "d", 384, 144384, 376, 41693478912ULL},
    {"tccg_17", "ac", "b", "d", 144384, 384, 376, 41693478912ULL},
    {"tccg_18", "ac", "b", "d", 144384, 376, 384, 41693478912ULL},
    {"tccg_19", "ac", "b", "de", 8064, 84, 8064, 10924720128ULL},
    {"tccg_20", "ab", "cd", "ef", 8064, 8064, 7056, 917676490752ULL},
    {"tccg_21", "ab", "cd", "ef", 8064, 7056, 8064, 917676490752ULL},
    {"tccg_22", "ac", "bd", "ef", 8064, 8064, 7056, 917676490752ULL},
    {"tccg_23", "ac", "bd", "ef", 8064, 7056, 8064, 917676490752ULL},
    {"tccg_24", "ad", "bc", "ef", 8064, 8064, 7056, 917676490752ULL},
    {"tccg_25", "ad", "bc", "ef", 8064, 7056, 8064, 917676490752ULL},
    {"tccg_26", "ab", "cd", "ef", 8064, 7056, 8064, 917676490752ULL},
    {"tccg_27", "ac", "bd", "ef", 8064, 7056, 8064, 917676490752ULL},
    {"tccg_28", "ab", "cd", "ef", 8064, 7056, 9216, 1048773132288ULL},
    {"tccg_29", "ac", "bd", "ef", 8064, 8064, 8064, 1048773132288ULL},
    {"tccg_30", "ad", "bc", "ef", 8064, 7056, 9216, 1048773132288ULL},
    {"tccg_31", "ade", "bcf", "g", 11520, 8000, 24, 4423680000ULL},
    {"tccg_32", "bde", "acf", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_33", "cde", "abf", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_34", "adf", "bce", "g", 11520, 8000, 24, 4423680000ULL},
    {"tccg_35", "bdf", "ace", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_36", "cdf", "abe", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_37", "aef", "bcd", "g", 11520, 8000, 24, 4423680000ULL},
    {"tccg_38", "bef", "acd", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_39", "cef", "abd", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_40", "abd", "cef", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_41", "acd", "bef", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_42", "bcd", "aef", "g", 8000, 11520, 24, 4423680000ULL},
    {"tccg_43", "abe", "cdf", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_44", "ace", "bdf", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_45", "bce", "adf", "g", 8000, 11520, 24, 4423680000ULL},
    {"tccg_46", "abf", "cde", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_47", "acf", "bde", "g", 9600, 9600, 24, 4423680000ULL},
    {"tccg_48", "bcf", "ade", "g", 8000, 11520, 24, 4423680000ULL},
};

std::string letters(const tcec::ir::Program& p, const std::vector<int>& ids) {
  std::string out;
  for (int i : ids) out += p.indices[i].name.substr(0, 1);  // "a_01" -> "a"
  return out;
}

TEST(MacroGemm, AllFortyEightTccgContractions) {
  auto r = tcec::frontend::parse_file(std::string(TCEC_DATA_DIR) + "/tccg_benchmark_48_TAPP.txt",
                                      {{}, tcec::frontend::InputFormat::Tccg});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const auto& p = *r.program;
  ASSERT_EQ(p.statements.size(), std::size(kTccg));
  for (std::size_t n = 0; n < p.statements.size(); ++n) {
    SCOPED_TRACE(kTccg[n].name);
    const auto& s = p.statements[n];
    EXPECT_EQ(s.source_text.substr(1, 7), kTccg[n].name);
    MacroIndexGemm g = tcec::ir::macro_index_gemm(p, s);
    EXPECT_EQ(letters(p, g.I), kTccg[n].I);
    EXPECT_EQ(letters(p, g.J), kTccg[n].J);
    EXPECT_EQ(letters(p, g.K), kTccg[n].K);
    EXPECT_EQ(g.extent_I, kTccg[n].extent_I);
    EXPECT_EQ(g.extent_J, kTccg[n].extent_J);
    EXPECT_EQ(g.extent_K, kTccg[n].extent_K);
    EXPECT_EQ(g.flops, static_cast<double>(kTccg[n].flops));
  }
}

}  // namespace
