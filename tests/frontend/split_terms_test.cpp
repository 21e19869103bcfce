// tests/frontend/split_terms_test.cpp — products of three or more operands split into binary
// contractions (frontend/split_terms.h, issue 6): the chosen trees and their flops, the shape
// and names of the intermediates, the source texts, the errors, the dry-run, and a numerical
// check of every split against the original n-ary einsum with a plain-loop reference evaluator.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "frontend/frontend.h"
#include "frontend/split_terms.h"

namespace {

namespace ir = tcec::ir;
using tcec::frontend::parse_source;

// ---------------------------------------------------------------------------------------------
// Helpers: references by text, a reference evaluator, structural checks.

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// "t[a,c,i,k]" resolved against `p`.
ir::TensorRef ref(const ir::Program& p, const std::string& text) {
  const auto open = text.find('[');
  ir::TensorRef r{p.find_tensor(text.substr(0, open)), {}, {}};
  EXPECT_GE(r.tensor, 0) << text;
  std::stringstream inside(text.substr(open + 1, text.size() - open - 2));
  for (std::string name; std::getline(inside, name, ',');) {
    r.indices.push_back(p.find_index(name));
    EXPECT_GE(r.indices.back(), 0) << text;
  }
  return r;
}

// A statement as the user wrote it, before splitting.
struct Term {
  std::string result;
  std::vector<std::string> operands;
  ir::AssignOp op = ir::AssignOp::Add;
  double coefficient = 1.0;
};

using Data = std::map<int, std::vector<double>>;  // tensor id -> elements, row-major

// result op coefficient * Π operands, by plain loops over every index of the statement.
void evaluate(const ir::Program& p, const ir::TensorRef& result, ir::AssignOp op, double coefficient,
              const std::vector<ir::TensorRef>& operands, Data& data) {
  std::vector<int> loop;
  for (int x : result.indices)
    if (!contains(loop, x)) loop.push_back(x);
  for (const auto& o : operands)
    for (int x : o.indices)
      if (!contains(loop, x)) loop.push_back(x);
  auto offset = [&](const ir::TensorRef& r, const std::vector<std::uint64_t>& at) {
    std::uint64_t off = 0;
    for (int x : r.indices) off = off * p.extent(x) + at[x];
    return off;
  };
  std::vector<double> sum(p.elements(result.tensor), 0.0);
  std::vector<std::uint64_t> at(p.indices.size(), 0);
  for (;;) {
    double term = 1.0;
    for (const auto& o : operands) term *= data.at(o.tensor).at(offset(o, at));
    sum.at(offset(result, at)) += term;
    std::size_t d = 0;
    for (; d < loop.size(); ++d) {
      if (++at[loop[d]] < p.extent(loop[d])) break;
      at[loop[d]] = 0;
    }
    if (d == loop.size()) break;
  }
  auto& out = data[result.tensor];
  out.resize(sum.size(), 0.0);
  for (std::size_t e = 0; e < sum.size(); ++e) {
    if (op == ir::AssignOp::Assign) out[e] = coefficient * sum[e];
    if (op == ir::AssignOp::Add) out[e] += coefficient * sum[e];
    if (op == ir::AssignOp::Subtract) out[e] -= coefficient * sum[e];
  }
}

// Random values in [-1, 1] for every user tensor (outputs too, so += and -= are exercised).
Data random_data(const ir::Program& p, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Data data;
  for (std::size_t t = 0; t < p.tensors.size(); ++t) {
    if (p.tensors[t].role == ir::TensorRole::Intermediate && p.tensors[t].name.rfind("_t", 0) == 0) continue;
    auto& v = data[static_cast<int>(t)];
    v.resize(p.elements(static_cast<int>(t)));
    for (double& x : v) x = uniform(rng);
  }
  return data;
}

// Runs the original terms (the reference) and the program's statements (the split) from the same
// random inputs and compares every tensor the terms write, to 1e-12 (relative to max(1, |value|)).
void expect_matches_einsum(const ir::Program& p, const std::vector<Term>& terms, unsigned seed = 1) {
  Data reference = random_data(p, seed);
  Data split = reference;
  std::set<int> written;
  for (const Term& t : terms) {
    std::vector<ir::TensorRef> ops;
    for (const auto& o : t.operands) ops.push_back(ref(p, o));
    const ir::TensorRef r = ref(p, t.result);
    evaluate(p, r, t.op, t.coefficient, ops, reference);
    written.insert(r.tensor);
  }
  for (const auto& s : p.statements) evaluate(p, s.result, s.op, s.coefficient, s.operands, split);
  for (int tensor : written) {
    const auto& want = reference.at(tensor);
    const auto& got = split.at(tensor);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t e = 0; e < want.size(); ++e) {
      ASSERT_LE(std::abs(got[e] - want[e]), 1e-12 * std::max(1.0, std::abs(want[e])))
          << p.tensors[tensor].name << " element " << e << ": split " << got[e] << ", einsum " << want[e];
    }
  }
}

// Every statement is a valid binary (or unary) statement of ir::Statement's rules; every
// intermediate is written once before it is read, and read exactly once.
void expect_valid_sequence(const ir::Program& p) {
  std::map<int, int> writes, reads;
  for (const auto& s : p.statements) {
    ASSERT_TRUE(s.operands.size() == 1 || s.operands.size() == 2) << s.source_text;
    const auto& c = s.result.indices;
    for (const auto& o : s.operands) {
      const ir::Tensor& t = p.tensors.at(o.tensor);
      if (t.role == ir::TensorRole::Intermediate) {
        EXPECT_EQ(writes[o.tensor], 1) << t.name << " read before it is written: " << s.source_text;
        ++reads[o.tensor];
      }
      ASSERT_EQ(o.indices.size(), t.dims.size());
      for (std::size_t d = 0; d < o.indices.size(); ++d) EXPECT_EQ(p.indices[o.indices[d]].range, t.dims[d]);
    }
    ASSERT_EQ(c.size(), p.tensors.at(s.result.tensor).dims.size());
    for (std::size_t d = 0; d < c.size(); ++d) EXPECT_EQ(p.indices[c[d]].range, p.tensors[s.result.tensor].dims[d]);
    ++writes[s.result.tensor];
    if (s.operands.size() != 2) continue;
    const auto& a = s.operands[0].indices;
    const auto& b = s.operands[1].indices;
    for (int x : c) {
      EXPECT_NE(contains(a, x), contains(b, x)) << "batch or missing index: " << s.source_text;
    }
    for (int x : a) {
      if (!contains(c, x)) {
        EXPECT_TRUE(contains(b, x)) << "lonely summed index: " << s.source_text;
      }
    }
    for (int x : b) {
      if (!contains(c, x)) {
        EXPECT_TRUE(contains(a, x)) << "lonely summed index: " << s.source_text;
      }
    }
    for (const auto* v : {&a, &b, &c}) {
      EXPECT_EQ(std::set<int>(v->begin(), v->end()).size(), v->size()) << "repeated index: " << s.source_text;
    }
  }
  for (std::size_t t = 0; t < p.tensors.size(); ++t) {
    if (p.tensors[t].name.rfind("_t", 0) != 0 || p.tensors[t].role != ir::TensorRole::Intermediate) continue;
    EXPECT_EQ(writes[static_cast<int>(t)], 1) << p.tensors[t].name;
    EXPECT_EQ(reads[static_cast<int>(t)], 1) << p.tensors[t].name;
  }
}

double total_flops(const ir::Program& p) {
  double f = 0;
  for (const auto& s : p.statements)
    if (s.operands.size() == 2) f += ir::macro_index_gemm(p, s).flops;
  return f;
}

std::vector<std::string> index_names(const ir::Program& p, const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (int x : ids) out.push_back(p.indices.at(x).name);
  return out;
}

// "LINE:COL: message" of every diagnostic.
std::vector<std::string> diagnostics(const std::string& text) {
  auto r = parse_source("e.tce", text, {});
  EXPECT_FALSE(r.ok());
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics.all())
    out.push_back(std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column) + ": " + d.message);
  return out;
}

// ---------------------------------------------------------------------------------------------

const char* kCcd = R"(range O = 3, V = 5;
index a, b, c, d : V;
index i, j, k, l : O;
tensor t[V,V,O,O] input;
tensor v[V,V,O,O] input;
tensor R[V,V,O,O] output;
R[a,b,i,j] += t[a,c,i,k] * v[c,d,k,l] * t[d,b,l,j];
)";

// R[a,b,i,j] += t[a,c,i,k] * v[c,d,k,l] * t[d,b,l,j] with V = 5, O = 3. The three trees:
//   (t·v)·t: t·v over {a,c,i,k,d,l} = 2·V³O³ = 6750, keeps {a,i,d,l}; then ·t over
//            {a,i,d,l,b,j} = 6750; total 13500
//   t·(v·t): v·t over {c,d,k,l,b,j} = 6750, keeps {c,k,b,j}; then t· over {a,c,i,k,b,j} = 6750;
//            total 13500 (a tie; the tie-break takes the leading pair first)
//   (t·t)·v: an outer product over all 8 indices = 2·V⁴O⁴ = 101250, twice; total 202500
TEST(SplitTerms, ThreeOperandExampleSplitsIntoTwoContractions) {
  auto r = parse_source("ccd.tce", kCcd, {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const ir::Program& p = *r.program;
  ASSERT_EQ(p.statements.size(), 2u);
  ASSERT_EQ(p.tensors.size(), 4u);
  const ir::Tensor& t1 = p.tensors[3];
  EXPECT_EQ(t1.name, "_t1");
  EXPECT_EQ(t1.role, ir::TensorRole::Intermediate);
  const int V = p.find_range("V"), O = p.find_range("O");
  EXPECT_EQ(t1.dims, (std::vector<int>{V, O, V, O}));
  EXPECT_EQ(t1.loc, (ir::SourceLocation{7, 1}));

  const ir::Statement& s1 = p.statements[0];
  EXPECT_EQ(ir::format_statement(p, s1), "_t1[a,i,d,l] = t[a,c,i,k] * v[c,d,k,l]");
  EXPECT_EQ(s1.op, ir::AssignOp::Assign);
  EXPECT_EQ(s1.coefficient, 1.0);
  EXPECT_EQ(s1.coefficient_text, "");
  EXPECT_EQ(s1.loc, (ir::SourceLocation{7, 1}));
  EXPECT_EQ(s1.operands[0].loc, (ir::SourceLocation{7, 15}));
  EXPECT_EQ(s1.operands[1].loc, (ir::SourceLocation{7, 28}));
  EXPECT_EQ(s1.source_text,
            "R[a,b,i,j] += t[a,c,i,k] * v[c,d,k,l] * t[d,b,l,j]   [split 1 of 2: _t1[a,i,d,l] = t[a,c,i,k] * "
            "v[c,d,k,l]]");
  const ir::Statement& s2 = p.statements[1];
  EXPECT_EQ(ir::format_statement(p, s2), "R[a,b,i,j] += _t1[a,i,d,l] * t[d,b,l,j]");
  EXPECT_EQ(s2.op, ir::AssignOp::Add);
  EXPECT_EQ(s2.loc, (ir::SourceLocation{7, 1}));
  EXPECT_EQ(s2.operands[1].loc, (ir::SourceLocation{7, 41}));
  EXPECT_EQ(s2.source_text,
            "R[a,b,i,j] += t[a,c,i,k] * v[c,d,k,l] * t[d,b,l,j]   [split 2 of 2: R[a,b,i,j] += _t1[a,i,d,l] * "
            "t[d,b,l,j]]");

  // The intermediate is in the [I,J] layout of the first GEMM and the [I,K] layout of the second.
  const auto g1 = ir::macro_index_gemm(p, s1);
  EXPECT_EQ(index_names(p, g1.I), (std::vector<std::string>{"a", "i"}));
  EXPECT_EQ(index_names(p, g1.J), (std::vector<std::string>{"d", "l"}));
  EXPECT_EQ(index_names(p, g1.K), (std::vector<std::string>{"c", "k"}));
  EXPECT_EQ(g1.perm_C, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(g1.flops, 6750);
  const auto g2 = ir::macro_index_gemm(p, s2);
  EXPECT_EQ(index_names(p, g2.K), (std::vector<std::string>{"d", "l"}));
  EXPECT_EQ(g2.perm_A, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(g2.flops, 6750);
  EXPECT_EQ(total_flops(p), 13500);

  expect_valid_sequence(p);
  expect_matches_einsum(p, {{"R[a,b,i,j]", {"t[a,c,i,k]", "v[c,d,k,l]", "t[d,b,l,j]"}}});
}

// The same term with a = 10 and every other extent 2: now t·(v·t) is strictly cheapest.
//   (t·v)·t: 2·(a c i k d l + a i d l b j) = 2·(320 + 320) = 1280
//   t·(v·t): 2·(c d k l b j + a c i k b j) = 2·(64 + 320)  = 768
//   (t·t)·v: 2·(2560 + 2560)                               = 10240
TEST(SplitTerms, ThreeOperandsTakeTheCheaperTree) {
  auto r = parse_source("ccd.tce", R"(range A = 10, V = 2, O = 2;
index a : A;
index b, c, d : V;
index i, j, k, l : O;
tensor t[A,V,O,O] input;
tensor u[V,V,O,O] input;
tensor v[V,V,O,O] input;
tensor R[A,V,O,O] output;
R[a,b,i,j] -= 1/2 * t[a,c,i,k] * v[c,d,k,l] * u[d,b,l,j];
)",
                        {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const ir::Program& p = *r.program;
  ASSERT_EQ(p.statements.size(), 2u);
  EXPECT_EQ(ir::format_statement(p, p.statements[0]), "_t1[c,k,b,j] = v[c,d,k,l] * u[d,b,l,j]");
  EXPECT_EQ(ir::format_statement(p, p.statements[1]), "R[a,b,i,j] -= 1/2 * t[a,c,i,k] * _t1[c,k,b,j]");
  EXPECT_EQ(p.statements[1].coefficient, 0.5);
  EXPECT_EQ(total_flops(p), 768);
  expect_valid_sequence(p);
  expect_matches_einsum(p, {{"R[a,b,i,j]", {"t[a,c,i,k]", "v[c,d,k,l]", "u[d,b,l,j]"}, ir::AssignOp::Subtract, 0.5}});
}

// A chain R[i,m] = A[i,j] B[j,k] C[k,l] D[l,m], i = 10, j = 12, k = 2, l = 11, m = 9. All 15
// binary trees (flops of each step; X·Y with no common index is an outer product):
//   (A·B)·(C·D)   480 + 396 + 360    =  1236   <- least
//   ((A·B)·C)·D   480 + 440 + 1980   =  2900   (left to right)
//   A·(B·(C·D))   396 + 432 + 2160   =  2988   (right to left)
//   A·((B·C)·D)   528 + 2376 + 2160  =  5064
//   (A·(B·C))·D   528 + 2640 + 1980  =  5148
//   ((A·B)·D)·C   480 + 3960 + 3960  =  8400
//   (A·(C·D))·B   396 + 4320 + 4320  =  9036
//   A·((B·D)·C)   4752 + 4752 + 2160 = 11664
//   ((A·C)·B)·D   5280 + 5280 + 1980 = 12540
//   (A·D)·(B·C)   23760 + 528 + 23760 = 48048
//   (A·(B·D))·C   4752 + 47520 + 3960 = 56232
//   ((A·C)·D)·B   5280 + 47520 + 4320 = 57120
//   (A·C)·(B·D)   5280 + 4752 + 47520 = 57552
//   ((A·D)·B)·C   23760 + 47520 + 3960 = 75240
//   ((A·D)·C)·B   23760 + 47520 + 4320 = 75600
TEST(SplitTerms, FourOperandChainIsNotSplitLeftToRight) {
  auto r = parse_source("chain.tce", R"(range I = 10, J = 12, K = 2, L = 11, M = 9;
index i : I; index j : J; index k : K; index l : L; index m : M;
tensor A[I,J] input; tensor B[J,K] input; tensor C[K,L] input; tensor D[L,M] input;
tensor R[I,M] output;
R[i,m] = A[i,j] * B[j,k] * C[k,l] * D[l,m];
)",
                        {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const ir::Program& p = *r.program;
  ASSERT_EQ(p.statements.size(), 3u);
  EXPECT_EQ(ir::format_statement(p, p.statements[0]), "_t1[i,k] = A[i,j] * B[j,k]");
  EXPECT_EQ(ir::format_statement(p, p.statements[1]), "_t2[k,m] = C[k,l] * D[l,m]");
  EXPECT_EQ(ir::format_statement(p, p.statements[2]), "R[i,m] = _t1[i,k] * _t2[k,m]");
  EXPECT_EQ(ir::macro_index_gemm(p, p.statements[0]).flops, 480);
  EXPECT_EQ(ir::macro_index_gemm(p, p.statements[1]).flops, 396);
  EXPECT_EQ(ir::macro_index_gemm(p, p.statements[2]).flops, 360);
  EXPECT_EQ(total_flops(p), 1236);
  EXPECT_EQ(p.statements[2].source_text,
            "R[i,m] = A[i,j] * B[j,k] * C[k,l] * D[l,m]   [split 3 of 3: R[i,m] = _t1[i,k] * _t2[k,m]]");
  expect_valid_sequence(p);
  expect_matches_einsum(p, {{"R[i,m]", {"A[i,j]", "B[j,k]", "C[k,l]", "D[l,m]"}, ir::AssignOp::Assign}});
}

// Seven operands: greedy. A chain R[i0,i7] = A1[i0,i1] ... A7[i6,i7] with extents
// i0..i7 = 3 8 2 9 4 7 2 5. Greedy joins the cheapest remaining pair each time:
//   A1·A2        2·3·8·2 =  96   (A5·A6 112, A6·A7 140, A3·A4 144, ...)  -> _t1[i0,i2]
//   _t1·A3       2·3·2·9 = 108   (A5·A6 112, ...)                        -> _t2[i0,i3]
//   A5·A6        2·4·7·2 = 112   (A6·A7 140, _t2·A4 216, ...)            -> _t3[i4,i6]
//   _t3·A7       2·4·2·5 =  80                                           -> _t4[i4,i7]
//   _t2·A4       2·3·9·4 = 216   (A4·_t4 360)                            -> _t5[i0,i4]
//   _t5·_t4      2·3·4·5 = 120                                           -> R[i0,i7]
// 732 flops in all; the optimum over all 10395 trees is 468 (((A1·A2)·((A3·A4)·(A5·A6)))·A7),
// which greedy does not promise to find.
TEST(SplitTerms, SevenOperandsAreSplitGreedily) {
  const char* text = R"(range E0 = 3, E1 = 8, E2 = 2, E3 = 9, E4 = 4, E5 = 7, E6 = 2, E7 = 5;
index i0 : E0; index i1 : E1; index i2 : E2; index i3 : E3; index i4 : E4; index i5 : E5; index i6 : E6; index i7 : E7;
tensor A1[E0,E1] input; tensor A2[E1,E2] input; tensor A3[E2,E3] input; tensor A4[E3,E4] input;
tensor A5[E4,E5] input; tensor A6[E5,E6] input; tensor A7[E6,E7] input;
tensor R[E0,E7] output;
R[i0,i7] += 2 * A1[i0,i1] * A2[i1,i2] * A3[i2,i3] * A4[i3,i4] * A5[i4,i5] * A6[i5,i6] * A7[i6,i7];
)";
  auto r = parse_source("chain7.tce", text, {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const ir::Program& p = *r.program;
  std::vector<std::string> got;
  for (const auto& s : p.statements) got.push_back(ir::format_statement(p, s));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "_t1[i0,i2] = A1[i0,i1] * A2[i1,i2]",
                     "_t2[i0,i3] = _t1[i0,i2] * A3[i2,i3]",
                     "_t3[i4,i6] = A5[i4,i5] * A6[i5,i6]",
                     "_t4[i4,i7] = _t3[i4,i6] * A7[i6,i7]",
                     "_t5[i0,i4] = _t2[i0,i3] * A4[i3,i4]",
                     "R[i0,i7] += 2 * _t5[i0,i4] * _t4[i4,i7]",
                 }));
  EXPECT_EQ(total_flops(p), 732);
  EXPECT_EQ(p.statements[5].source_text.substr(p.statements[5].source_text.find("   [")),
            "   [split 6 of 6: R[i0,i7] += 2 * _t5[i0,i4] * _t4[i4,i7]]");
  expect_valid_sequence(p);
  expect_matches_einsum(p,
                        {{"R[i0,i7]",
                          {"A1[i0,i1]", "A2[i1,i2]", "A3[i2,i3]", "A4[i3,i4]", "A5[i4,i5]", "A6[i5,i6]", "A7[i6,i7]"},
                          ir::AssignOp::Add,
                          2.0}});

  // The plan says so: greedy beyond kExhaustiveSplitLimit operands, exhaustive up to it.
  ir::Statement seven;
  seven.result = ref(p, "R[i0,i7]");
  for (const char* o : {"A1[i0,i1]", "A2[i1,i2]", "A3[i2,i3]", "A4[i3,i4]", "A5[i4,i5]", "A6[i5,i6]", "A7[i6,i7]"})
    seven.operands.push_back(ref(p, o));
  auto greedy = tcec::frontend::plan_split(p, seven);
  ASSERT_TRUE(greedy.has_value());
  EXPECT_FALSE(greedy->exhaustive);
  EXPECT_EQ(greedy->flops, 732);
  ir::Statement six = seven;  // R[i0,i6] = A1 ... A6 (the search looks at indices only)
  six.result.indices = {p.find_index("i0"), p.find_index("i6")};
  six.operands.pop_back();
  auto exhaustive = tcec::frontend::plan_split(p, six);
  ASSERT_TRUE(exhaustive.has_value());
  EXPECT_TRUE(exhaustive->exhaustive);
  EXPECT_EQ(exhaustive->steps.size(), 5u);
}

// Names: `_t1` is a legal identifier, so a user may declare it; intermediates skip every name a
// user tensor has, even one declared after the statement, and are numbered across the program.
TEST(SplitTerms, IntermediateNamesAvoidUserTensors) {
  const char* text = R"(range V = 3;
index a, b, c, d : V;
tensor _t1[V,V] input;
tensor B[V,V] input;
tensor R[V,V] output;
tensor S[V,V] output;
R[a,d] = _t1[a,b] * B[b,c] * _t1[c,d];
S[a,d] += B[a,b] * _t1[b,c] * B[c,d];
tensor _t3[V,V] input;
S[a,b] -= _t3[b,a];
)";
  auto r = parse_source("names.tce", text, {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const ir::Program& p = *r.program;
  std::vector<std::string> got;
  for (const auto& s : p.statements) got.push_back(ir::format_statement(p, s));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "_t2[a,c] = _t1[a,b] * B[b,c]",
                     "R[a,d] = _t2[a,c] * _t1[c,d]",
                     "_t4[a,c] = B[a,b] * _t1[b,c]",
                     "S[a,d] += _t4[a,c] * B[c,d]",
                     "S[a,b] -= _t3[b,a]",
                 }));
  std::set<std::string> names;
  for (const auto& t : p.tensors) names.insert(t.name);
  EXPECT_EQ(names.size(), p.tensors.size());
  EXPECT_EQ(p.tensors[p.find_tensor("_t1")].role, ir::TensorRole::Input);
  EXPECT_EQ(p.tensors[p.find_tensor("_t2")].role, ir::TensorRole::Intermediate);
  EXPECT_EQ(p.tensors[p.find_tensor("_t4")].role, ir::TensorRole::Intermediate);
  expect_matches_einsum(p, {{"R[a,d]", {"_t1[a,b]", "B[b,c]", "_t1[c,d]"}, ir::AssignOp::Assign},
                            {"S[a,d]", {"B[a,b]", "_t1[b,c]", "B[c,d]"}},
                            {"S[a,b]", {"_t3[b,a]"}, ir::AssignOp::Subtract}});
}

// Rank-0 operands and results: a scalar factor is joined by an outer product when that is cheapest.
TEST(SplitTerms, ScalarOperandsAndResults) {
  auto r = parse_source("scalar.tce", R"(range N = 4;
index a, b, c : N;
tensor s[] input; tensor A[N,N] input; tensor B[N,N] input; tensor e[] output;
e[] = s[] * A[a,b] * B[b,a] * s[];
)",
                        {});
  // s appears twice: s[] has no indices, so that is allowed.
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const ir::Program& p = *r.program;
  ASSERT_EQ(p.statements.size(), 3u);
  // s·s (2 flops), A·B (2·16 = 32), then the two scalars (2): 36 in all.
  EXPECT_EQ(total_flops(p), 36);
  expect_valid_sequence(p);
  expect_matches_einsum(p, {{"e[]", {"s[]", "A[a,b]", "B[b,a]", "s[]"}, ir::AssignOp::Assign}});
}

// The exhaustive search against an independent enumeration of every binary tree, and the
// numerical check, on random well-formed products of 3 to 6 operands; then random products of
// 7 to 9 operands (greedy) for validity and numbers.
TEST(SplitTerms, RandomProductsLeastFlopsAndSameNumbers) {
  std::mt19937 rng(20240606);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int round = 0; round < 60; ++round) {
    const int n = round < 45 ? pick(3, 6) : pick(7, 9);
    const int summed = pick(1, n <= 6 ? 6 : 7), kept = pick(0, 3);
    const int extent_max = n <= 6 ? 3 : 2;
    // Index x: summed ones in two distinct operands, kept ones in one operand and the result.
    std::vector<std::vector<std::string>> ops(n);
    std::vector<std::string> result;
    std::string decl;
    for (int x = 0; x < summed + kept; ++x) {
      std::string name = "x";
      name += std::to_string(x);
      std::ostringstream line;
      line << "range X" << x << " = " << pick(1, extent_max) << "; index " << name << " : X" << x << ";\n";
      decl += line.str();
      const int first = pick(0, n - 1);
      ops[first].push_back(name);
      if (x < summed) {
        int second = pick(0, n - 2);
        if (second >= first) ++second;
        ops[second].push_back(name);
      } else {
        result.push_back(name);
      }
    }
    for (auto& o : ops) std::shuffle(o.begin(), o.end(), rng);
    std::shuffle(result.begin(), result.end(), rng);
    auto bracket = [](const std::vector<std::string>& v, bool ranges) {
      std::string out = "[";
      for (std::size_t d = 0; d < v.size(); ++d) {
        if (d) out += ',';
        if (ranges) out += 'X';
        out.append(v[d], ranges ? 1 : 0, std::string::npos);
      }
      return out + "]";
    };
    Term term{std::string("Z").append(bracket(result, false)), {}, ir::AssignOp::Add, 1.0};
    std::ostringstream tensors;
    for (int k = 0; k < n; ++k) {
      tensors << "tensor T" << k << bracket(ops[k], true) << " input;\n";
      term.operands.push_back(std::string("T").append(std::to_string(k)).append(bracket(ops[k], false)));
    }
    tensors << "tensor Z" << bracket(result, true) << " output;\n";
    std::string text = decl + tensors.str();
    const int form = pick(0, 2);
    term.op = form == 0 ? ir::AssignOp::Assign : form == 1 ? ir::AssignOp::Add : ir::AssignOp::Subtract;
    term.coefficient = form == 0 ? 1.0 : form == 1 ? 2.0 : -0.5;
    text += term.result + (form == 0 ? " = " : form == 1 ? " += 2 * " : " -= -1/2 * ");
    for (int k = 0; k < n; ++k) text += (k ? " * " : "") + term.operands[k];
    text += ";\n";

    SCOPED_TRACE(text);
    auto r = parse_source("random.tce", text, {});
    ASSERT_TRUE(r.ok()) << r.diagnostics.render();
    const ir::Program& p = *r.program;
    ASSERT_EQ(p.statements.size(), static_cast<std::size_t>(n - 1));
    expect_valid_sequence(p);
    expect_matches_einsum(p, {term}, static_cast<unsigned>(round));
    if (n > 6) continue;

    // Every binary tree: min over the ways of cutting the operand set S into two non-empty parts
    // (each unordered cut once) of the parts' best costs plus the cut's flops; the cut keeps the
    // indices of S that the result or an operand outside S uses.
    std::vector<ir::TensorRef> refs;
    for (const auto& o : term.operands) refs.push_back(ref(p, o));
    const ir::TensorRef z = ref(p, term.result);
    auto kept_by = [&](unsigned set) {
      std::set<int> out;
      for (int k = 0; k < n; ++k) {
        if (!(set >> k & 1u)) continue;
        for (int x : refs[k].indices) {
          bool used = contains(z.indices, x);
          for (int m = 0; m < n && !used; ++m) used = !(set >> m & 1u) && contains(refs[m].indices, x);
          if (used) out.insert(x);
        }
      }
      return out;
    };
    std::function<double(unsigned)> best = [&](unsigned set) -> double {
      if ((set & (set - 1)) == 0) return 0;
      double b = INFINITY;
      for (unsigned part = 1; part < set; ++part) {
        if ((part & set) != part || part > (set ^ part)) continue;
        std::set<int> both = kept_by(part);
        for (int x : kept_by(set ^ part)) both.insert(x);
        double f = 2;
        for (int x : both) f *= static_cast<double>(p.extent(x));
        b = std::min(b, best(part) + best(set ^ part) + f);
      }
      return b;
    };
    EXPECT_EQ(total_flops(p), best((1u << n) - 1));
  }
}

TEST(SplitTerms, Errors) {
  const std::string head = R"(range O = 3, V = 5;
index a, b, c, d : V;
index i, j, k, l : O;
tensor t[V,V,O,O] input;
tensor v[V,V,O,O] input;
tensor R[V,V,O,O] output;
)";
  // A result index in two operands: whatever the tree, the pair that joins them keeps it.
  EXPECT_EQ(diagnostics(head + "R[a,b,i,j] += t[a,c,i,k] * v[c,d,k,l] * t[d,b,l,i];\n"),
            (std::vector<std::string>{
                "7:41: index 'i' is in the result and in 2 operands; every split of the product into binary "
                "contractions keeps it in both operands of one (a batch index); this is not supported",
                "7:1: result index 'j' does not appear on the right-hand side"}));
  // A summed index in three operands (kept for the third by the first pair that joins two), and
  // a summed index in one operand only (as for two operands).
  EXPECT_EQ(diagnostics(head + "R[a,b,i,j] += t[a,c,i,k] * v[c,d,k,l] * t[d,b,k,j];\n"),
            (std::vector<std::string>{
                "7:41: summed index 'k' appears in 3 operands; every split of the product into binary contractions "
                "keeps it in both operands of one (a batch index); a summed index may appear in at most two operands",
                "7:28: index 'l' is summed but appears in only one operand; reduce it in a separate statement (not "
                "yet supported)"}));
  // A repeated index within one tensor, as before.
  EXPECT_EQ(diagnostics(head + "R[a,b,i,j] += t[a,c,i,k] * v[c,c,k,l] * t[d,b,l,j];\n"),
            (std::vector<std::string>{"7:32: index 'c' appears more than once in 'v[c,c,k,l]'"}));
  // Every tree needs an intermediate of 2^80 elements: X·Y keeps {q,x,r,y}, X·Z {p,x,r,z}, Y·Z
  // {p,y,q,z}; each tensor here has 2^60 elements (2^63 bytes, the most that fits).
  EXPECT_EQ(diagnostics(R"(range N = 1048576;
index p, q, r, x, y, z : N;
tensor X[N,N,N] input; tensor Y[N,N,N] input; tensor Z[N,N,N] input;
tensor W[N,N,N] output;
W[x,y,z] = X[p,q,x] * Y[p,r,y] * Z[q,r,z];
)"),
            (std::vector<std::string>{"5:1: every split of this product of 3 operands into binary contractions "
                                      "needs an intermediate tensor whose size overflows 64 bits"}));
  // Rendered like every other diagnostic.
  auto r = parse_source("e.tce", head + "R[a,b,i,j] += t[a,c,i,k] * v[c,d,k,l] * t[d,b,l,i];\n", {});
  EXPECT_NE(r.diagnostics.render().find("e.tce:7:41: error: index 'i' is in the result and in 2 operands"),
            std::string::npos)
      << r.diagnostics.render();
}

// `tcec --dry-run` on a file with a three-operand term lists the two contractions.
TEST(SplitTerms, DryRunShowsBothContractions) {
  const std::string tcec = std::string(TCEC_BINARY_DIR) + "/bin/tcec";
  if (!std::filesystem::exists(tcec)) GTEST_SKIP() << tcec << " is not built";
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem = "split_terms_" + std::to_string(getpid());
  const std::string in = (dir / (stem + ".tce")).string(), out = (dir / (stem + ".out")).string();
  std::ofstream(in) << kCcd;
  const int status = std::system((tcec + " --dry-run " + in + " >" + out + " 2>&1").c_str());
  std::ifstream f(out);
  std::stringstream text;
  text << f.rdbuf();
  std::filesystem::remove(in);
  std::filesystem::remove(out);
  EXPECT_EQ(status, 0) << text.str();
  const std::string s = text.str();
  const auto first = s.find(in +
                            ":7: R[a,b,i,j] += t[a,c,i,k] * v[c,d,k,l] * t[d,b,l,j]   [split 1 of 2: "
                            "_t1[a,i,d,l] = t[a,c,i,k] * v[c,d,k,l]]\n"
                            "  _t1(I,J) = A(I,K) * B(J,K) with A = t, B = v; I = {a,i}, J = {d,l}, K = {c,k}\n");
  const auto second = s.find(in +
                             ":7: R[a,b,i,j] += t[a,c,i,k] * v[c,d,k,l] * t[d,b,l,j]   [split 2 of 2: "
                             "R[a,b,i,j] += _t1[a,i,d,l] * t[d,b,l,j]]\n"
                             "  R(I,J) += A(I,K) * B(J,K) with A = _t1, B = t; I = {a,i}, J = {b,j}, K = {d,l}\n");
  EXPECT_NE(first, std::string::npos) << s;
  EXPECT_NE(second, std::string::npos) << s;
  EXPECT_LT(first, second);
}

}  // namespace
