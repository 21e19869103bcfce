// tests/frontend/nwchem_test.cpp — NWChem TCE equation-tree import (--from nwchem):
// P( n ) expansion (by statement and by value), the P count on every equation line
// of the NWChem file in data/, nesting, the antisymmetry of the imported residuals
// evaluated on small dense tensors, and error messages with file:line:col.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "frontend/frontend.h"

namespace {

using tcec::frontend::InputFormat;
using tcec::frontend::Options;
using tcec::frontend::parse_source;
using tcec::ir::Program;
using tcec::ir::TensorRole;

const std::string kData = std::string(TCEC_DATA_DIR) + "/nwchem_tce_equation_trees.txt";

Options nwchem(const std::string& section = "", std::uint64_t o = 3, std::uint64_t v = 4) {
  Options options;
  options.format = InputFormat::Nwchem;
  options.defines = {"O=" + std::to_string(o), "V=" + std::to_string(v)};
  options.section = section;
  return options;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The NAME of every `### file: .../NAME.F` header, in file order.
std::vector<std::string> sections_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("### file:", 0) != 0) continue;
    std::string path = line.substr(line.find_last_of('/') + 1);
    out.push_back(path.substr(0, path.find_last_of('.')));
  }
  return out;
}

std::string statement(const Program& p, std::size_t k) { return tcec::ir::format_statement(p, p.statements.at(k)); }

// ---- a dense evaluator of imported programs (small extents) ----

// Spin-orbital tensors over N = O + V orbitals with the symmetries of CC theory:
// f symmetric; rank 4 antisymmetric within (0,1) and (2,3), v also pair-symmetric;
// rank 6 antisymmetric within (0,1,2) and (3,4,5); rank 2 and 0 otherwise arbitrary.
class Orbitals {
 public:
  Orbitals(std::size_t o, std::size_t v) : o_(o), n_(o + v) {}

  double value(const std::string& input, const Program& p, int tensor, const std::vector<std::size_t>& at) {
    const auto& dims = p.tensors[tensor].dims;
    const std::string name = input.substr(0, input.find('_'));
    const std::vector<double>& full = tensor_of(name, dims.size());
    std::size_t offset = 0;
    for (std::size_t d = 0; d < dims.size(); ++d) offset = offset * n_ + (dims[d] == 0 ? at[d] : o_ + at[d]);
    return full[offset];
  }

 private:
  const std::vector<double>& tensor_of(const std::string& name, std::size_t rank) {
    auto key = std::make_pair(name, rank);
    auto it = full_.find(key);
    if (it != full_.end()) return it->second;
    std::mt19937_64 rng(std::hash<std::string>{}(name) + rank);
    std::uniform_real_distribution<double> u(-1, 1);
    std::size_t size = 1;
    for (std::size_t d = 0; d < rank; ++d) size *= n_;
    std::vector<double> raw(size);
    for (double& x : raw) x = u(rng);
    std::vector<double> out(size, 0.0);
    std::vector<std::size_t> idx(rank, 0);
    auto offset = [&](const std::vector<std::size_t>& i) {
      std::size_t o = 0;
      for (std::size_t x : i) o = o * n_ + x;
      return o;
    };
    // signed permutations within each half
    std::vector<std::pair<std::vector<int>, int>> perms;
    const int h = static_cast<int>(rank) / 2;
    std::vector<int> up(h), lo(h);
    for (int k = 0; k < h; ++k) up[k] = k, lo[k] = h + k;
    auto parity = [](std::vector<int> v) {
      int s = 1;
      for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j)
          if (v[i] > v[j]) s = -s;
      return s;
    };
    if (rank >= 4) {
      do {
        std::vector<int> l = lo;
        do {
          std::vector<int> p = up;
          p.insert(p.end(), l.begin(), l.end());
          perms.push_back({p, parity(up) * parity(l)});
        } while (std::next_permutation(l.begin(), l.end()));
      } while (std::next_permutation(up.begin(), up.end()));
    } else if (rank == 2 && name == "f") {
      perms = {{{0, 1}, 1}, {{1, 0}, 1}};
    } else {
      std::vector<int> id(rank);
      for (std::size_t k = 0; k < rank; ++k) id[k] = static_cast<int>(k);
      perms = {{id, 1}};
    }
    for (std::size_t o = 0; o < size; ++o) {
      std::size_t rest = o;
      for (std::size_t d = rank; d-- > 0;) idx[d] = rest % n_, rest /= n_;
      for (const auto& [perm, sign] : perms) {
        std::vector<std::size_t> from(rank);
        for (std::size_t d = 0; d < rank; ++d) from[d] = idx[perm[d]];
        out[o] += sign * raw[offset(from)];
      }
    }
    if (rank == 4 && name == "v") {  // v[pqrs] = v[rspq]
      std::vector<double> sym(size);
      for (std::size_t o = 0; o < size; ++o) {
        std::size_t rest = o;
        for (std::size_t d = 4; d-- > 0;) idx[d] = rest % n_, rest /= n_;
        sym[o] = out[o] + out[offset({idx[2], idx[3], idx[0], idx[1]})];
      }
      out = sym;
    }
    return full_.emplace(key, std::move(out)).first->second;
  }

  std::size_t o_, n_;
  std::map<std::pair<std::string, std::size_t>, std::vector<double>> full_;
};

// Runs every statement of `p` in order on dense tensors (inputs from `orbitals`,
// everything else starting at zero); returns all tensors, row-major.
std::vector<std::vector<double>> evaluate(const Program& p, Orbitals& orbitals) {
  std::vector<std::vector<double>> data(p.tensors.size());
  for (std::size_t t = 0; t < p.tensors.size(); ++t) {
    data[t].assign(p.elements(static_cast<int>(t)), 0.0);
    if (p.tensors[t].role != TensorRole::Input) continue;
    std::vector<std::size_t> at(p.tensors[t].dims.size(), 0);
    for (std::size_t o = 0; o < data[t].size(); ++o) {
      std::size_t rest = o;
      for (std::size_t d = at.size(); d-- > 0;) {
        const std::size_t e = p.ranges[p.tensors[t].dims[d]].extent;
        at[d] = rest % e, rest /= e;
      }
      data[t][o] = orbitals.value(p.tensors[t].name, p, static_cast<int>(t), at);
    }
  }
  for (const auto& s : p.statements) {
    EXPECT_NE(s.op, tcec::ir::AssignOp::Subtract);
    if (s.op == tcec::ir::AssignOp::Assign) std::fill(data[s.result.tensor].begin(), data[s.result.tensor].end(), 0.0);
    std::vector<int> all = s.result.indices;
    for (const auto& op : s.operands)
      for (int x : op.indices)
        if (std::find(all.begin(), all.end(), x) == all.end()) all.push_back(x);
    std::vector<std::size_t> value(p.indices.size(), 0);
    auto offset = [&](const tcec::ir::TensorRef& r) {
      std::size_t o = 0;
      for (int x : r.indices) o = o * p.extent(x) + value[x];
      return o;
    };
    for (;;) {
      double term = s.coefficient;
      for (const auto& op : s.operands) term *= data[op.tensor][offset(op)];
      data[s.result.tensor][offset(s.result)] += term;
      std::size_t k = all.size();
      while (k > 0 && ++value[all[k - 1]] == p.extent(all[k - 1])) value[all[--k]] = 0;
      if (k == 0) break;
    }
  }
  return data;
}

// Largest |x + x'| over the swaps of two same-type positions within a half of the
// output, relative to the largest |x|: 0 for an antisymmetric result.
double antisymmetry_defect(const Program& p, int tensor, const std::vector<double>& x) {
  const auto& dims = p.tensors[tensor].dims;
  const std::size_t rank = dims.size();
  std::vector<std::size_t> ext(rank);
  for (std::size_t d = 0; d < rank; ++d) ext[d] = p.ranges[dims[d]].extent;
  double scale = 0, worst = 0;
  for (double v : x) scale = std::max(scale, std::abs(v));
  std::vector<std::size_t> at(rank);
  for (std::size_t o = 0; o < x.size(); ++o) {
    std::size_t rest = o;
    for (std::size_t d = rank; d-- > 0;) at[d] = rest % ext[d], rest /= ext[d];
    for (std::size_t a = 0; a < rank; ++a) {
      for (std::size_t b = a + 1; b < rank; ++b) {
        if (dims[a] != dims[b] || (a < rank / 2) != (b < rank / 2)) continue;
        std::vector<std::size_t> sw = at;
        std::swap(sw[a], sw[b]);
        std::size_t o2 = 0;
        for (std::size_t d = 0; d < rank; ++d) o2 = o2 * ext[d] + sw[d];
        worst = std::max(worst, std::abs(x[o] + x[o2]));
      }
    }
  }
  return scale == 0 ? 1.0 : worst / scale;
}

// The example, with i1 defined by one deeper line.
const char* kPTwo =
    "C     i0 ( p3 p4 h1 h2 )_vt + = -1 * P( 2 ) * Sum ( h10 ) * t ( p3 h10 )_t * i1 ( h10 p4 h1 h2 )_v   DONE\n"
    "C         i1 ( h10 p3 h1 h2 )_v + = 1 * v ( h10 p3 h1 h2 )_v\n";

TEST(Nwchem, PTwoFoldsTheProductIntoTwoSignedPermutedAdditions) {
  auto r = parse_source("p2.txt", kPTwo, nwchem());
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const Program& p = *r.program;
  ASSERT_EQ(p.statements.size(), 4u);
  EXPECT_EQ(statement(p, 0), "i1_L2[h10,p3,h1,h2] += 1 * v_hphh[h10,p3,h1,h2]");
  EXPECT_EQ(statement(p, 1), "X_L1[p3,p4,h1,h2] = -1 * t_ph[p3,h10] * i1_L2[h10,p4,h1,h2]");
  EXPECT_EQ(statement(p, 2), "i0[p3,p4,h1,h2] += X_L1[p3,p4,h1,h2]");
  EXPECT_EQ(statement(p, 3), "i0[p4,p3,h1,h2] += -1 * X_L1[p3,p4,h1,h2]");
  EXPECT_EQ(p.statements[1].coefficient, -1.0);
  EXPECT_EQ(p.statements[2].coefficient, 1.0);
  EXPECT_EQ(p.statements[3].coefficient, -1.0);
  EXPECT_EQ(p.tensors.at(p.find_tensor("X_L1")).role, TensorRole::Intermediate);
  for (std::size_t k = 1; k < 4; ++k) EXPECT_EQ(p.statements[k].loc, (tcec::ir::SourceLocation{1, 7}));
  EXPECT_EQ(p.statements[1].source_text,
            "X_L1[p3,p4,h1,h2] = -1 * t_ph[p3,h10] * i1_L2[h10,p4,h1,h2]   [P( 2 ) product]");
  EXPECT_EQ(p.statements[3].source_text, "i0[p4,p3,h1,h2] += -1 * X_L1[p3,p4,h1,h2]   [P( 2 ) term 2 of 2]");

  // By value: i0[a,b,c,d] = -(X[a,b,c,d] - X[b,a,c,d]), X[a,b,c,d] = sum_h t[a,h] i1[h,b,c,d].
  Orbitals orbitals(3, 4);
  auto data = evaluate(p, orbitals);
  const auto& t = data[p.find_tensor("t_ph")];
  const auto& i1 = data[p.find_tensor("i1_L2")];
  const auto& i0 = data[p.find_tensor("i0")];
  const std::size_t O = 3, V = 4;
  auto X = [&](std::size_t a, std::size_t b, std::size_t c, std::size_t d) {
    double s = 0;
    for (std::size_t h = 0; h < O; ++h) s += t[a * O + h] * i1[((h * V + b) * O + c) * O + d];
    return s;
  };
  for (std::size_t a = 0; a < V; ++a)
    for (std::size_t b = 0; b < V; ++b)
      for (std::size_t c = 0; c < O; ++c)
        for (std::size_t d = 0; d < O; ++d)
          EXPECT_NEAR(i0[((a * V + b) * O + c) * O + d], -(X(a, b, c, d) - X(b, a, c, d)), 1e-12);
}

TEST(Nwchem, PThreeAndPNinePlaceTheFirstOperandsIndices) {
  // P( 9 ): p4 | p5 p6 in the upper half, h1 | h2 h3 in the lower: 3 x 3 terms, the
  // cyclic placements (p5,p6,p4) with sign +.
  auto r =
      parse_source("t3.txt", "i0 ( p4 p5 p6 h1 h2 h3 ) + = 1 * P( 9 ) * t ( p4 h1 ) * v ( p5 p6 h2 h3 )\n", nwchem());
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const Program& p = *r.program;
  ASSERT_EQ(p.statements.size(), 10u);
  EXPECT_EQ(statement(p, 0), "X_L1[p4,p5,p6,h1,h2,h3] = 1 * t_ph[p4,h1] * v_pphh[p5,p6,h2,h3]");
  std::set<std::string> terms;
  for (std::size_t k = 1; k < 10; ++k) terms.insert(statement(p, k));
  EXPECT_EQ(statement(p, 1), "i0[p4,p5,p6,h1,h2,h3] += X_L1[p4,p5,p6,h1,h2,h3]");
  EXPECT_TRUE(terms.count("i0[p5,p6,p4,h1,h2,h3] += X_L1[p4,p5,p6,h1,h2,h3]"));
  EXPECT_TRUE(terms.count("i0[p5,p4,p6,h1,h2,h3] += -1 * X_L1[p4,p5,p6,h1,h2,h3]"));
  EXPECT_TRUE(terms.count("i0[p5,p6,p4,h2,h3,h1] += X_L1[p4,p5,p6,h1,h2,h3]"));
  EXPECT_TRUE(terms.count("i0[p5,p4,p6,h2,h3,h1] += -1 * X_L1[p4,p5,p6,h1,h2,h3]"));
  EXPECT_EQ(terms.size(), 9u);
  Orbitals orbitals(3, 3);
  auto small = parse_source("t3.txt", "i0 ( p4 p5 p6 h1 h2 h3 ) + = 1 * P( 9 ) * t ( p4 h1 ) * v ( p5 p6 h2 h3 )\n",
                            nwchem("", 3, 3));
  ASSERT_TRUE(small.ok());
  auto data = evaluate(*small.program, orbitals);
  EXPECT_LT(antisymmetry_defect(*small.program, 0, data[0]), 1e-12);
}

// Every equation line of every tree in data/'s file passes the P( n ) count;
// every tree imports (no other errors either), and the P lines all became terms.
TEST(Nwchem, PCountHoldsOnEveryLineOfTheDataFile) {
  const std::string text = read(kData);
  ASSERT_FALSE(text.empty()) << kData;
  const auto sections = sections_of(text);
  ASSERT_EQ(sections.size(), 16u);
  int p_lines_in_file = 0;
  {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) p_lines_in_file += line.find("P( ") != std::string::npos;
  }
  int p_lines_imported = 0;
  for (const std::string& name : sections) {
    auto r = parse_source(kData, text, nwchem(name));
    for (const auto& d : r.diagnostics.all()) EXPECT_NE(d.id, "err_nwchem_p_count") << name << ": " << d.message;
    EXPECT_TRUE(r.ok()) << "section " << name << " does not import:\n" << r.diagnostics.render();
    if (!r.ok()) continue;
    const Program& p = *r.program;
    std::set<int> p_lines, lines;
    int intermediates = 0, contractions = 0;
    for (const auto& s : p.statements) {
      lines.insert(s.loc.line);
      contractions += s.operands.size() == 2;
      if (s.source_text.find("[P( ") != std::string::npos) p_lines.insert(s.loc.line);
    }
    for (const auto& t : p.tensors) intermediates += t.role == TensorRole::Intermediate;
    p_lines_imported += static_cast<int>(p_lines.size());
    std::cout << "[ section  ] " << name << ": " << lines.size() << " equation lines, " << p.statements.size()
              << " statements (" << contractions << " contractions), " << intermediates << " intermediates, "
              << p_lines.size() << " lines with P\n";
  }
  EXPECT_EQ(p_lines_in_file, 82);
  EXPECT_EQ(p_lines_imported, p_lines_in_file);
}

TEST(Nwchem, StandardTreesHaveTheExpectedSize) {
  const std::string text = read(kData);
  struct Expect {
    const char* section;
    std::size_t statements, intermediates;
  };
  for (const Expect& e :
       {Expect{"ccsd_e", 4, 1}, Expect{"ccsd_t1", 19, 5}, Expect{"ccsd_t2", 64, 22}, Expect{"ccd_t2", 22, 7}}) {
    auto r = parse_source(kData, text, nwchem(e.section));
    ASSERT_TRUE(r.ok()) << e.section << "\n" << r.diagnostics.render();
    std::size_t intermediates = 0;
    for (const auto& t : r.program->tensors) intermediates += t.role == TensorRole::Intermediate;
    EXPECT_EQ(r.program->statements.size(), e.statements) << e.section;
    EXPECT_EQ(intermediates, e.intermediates) << e.section;
    EXPECT_EQ(r.program->tensors.at(r.program->find_tensor("i0")).role, TensorRole::Output) << e.section;
  }
}

// The residuals of rank 4 and 6, evaluated with antisymmetric amplitudes and
// integrals, are antisymmetric: P( n ) expansion, nesting and signs agree.
TEST(Nwchem, ImportedResidualsAreAntisymmetric) {
  const std::string text = read(kData);
  for (const char* name : {"ccsd_t2", "ccd_t2", "ccsd_t_singles", "ccsd_t_doubles", "ccsdt_t2", "ccsdt_t3",
                           "eomccsd_x2", "eomccsd_y2", "mbpt2_t2"}) {
    auto r = parse_source(kData, text, nwchem(name, 3, 3));  // O >= 3: rank-6 amplitudes are not zero
    ASSERT_TRUE(r.ok()) << name << "\n" << r.diagnostics.render();
    Orbitals orbitals(3, 3);
    auto data = evaluate(*r.program, orbitals);
    const int out = r.program->find_tensor("i0");
    double norm = 0;
    for (double x : data[out]) norm = std::max(norm, std::abs(x));
    EXPECT_GT(norm, 1e-3) << name;
    EXPECT_LT(antisymmetry_defect(*r.program, out, data[out]), 1e-10) << name;
  }
}

// Two levels of intermediates: definitions before their use, each block its own tensor.
TEST(Nwchem, NestingGivesStatementsInDependencyOrder) {
  const char* tree =
      "# a hand-written tree\n"                                                                           // 1
      "C     i0 ( p2 h1 )_tf + = -1 * Sum ( h7 ) * t ( p2 h7 )_t * i1 ( h7 h1 )_f     DONE\n"             // 2
      "C         i1 ( h7 h1 )_f + = 1 * f ( h7 h1 )_f\n"                                                  // 3
      "C         i1 ( h7 h1 )_ft + = 1 * Sum ( p3 ) * t ( p3 h1 )_t * i2 ( h7 p3 )_f\n"                   // 4
      "C             i2 ( h7 p3 )_f + = 1 * f ( h7 p3 )_f\n"                                              // 5
      "C             i2 ( h7 p3 )_vt + = -1 * Sum ( h6 p5 ) * t ( p5 h6 )_t * v ( h6 h7 p3 p5 )_v\n"      // 6
      "C         i1 ( h7 h1 )_vt + = -1/2 * Sum ( h5 p4 ) * t ( p4 h5 )_t * v ( h5 h7 h1 p4 )_v  NOPE\n"  // 7
      "\n"                                                                                                // 8
      "c     i0 ( p2 h1 )_vt + = -1 * Sum ( h4 p3 ) * t ( p3 h4 )_t * i1 ( h4 p2 h1 p3 )_v\n"             // 9
      "c         i1 ( h4 p2 h1 p3 )_v + = 1 * v ( h4 p2 h1 p3 )_v   UNUSED (NOPE)\n";                     // 10
  auto r = parse_source("tree.txt", tree, nwchem("", 10, 30));
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const Program& p = *r.program;
  ASSERT_EQ(p.ranges.size(), 2u);
  EXPECT_EQ(p.ranges[0].name, "O");
  EXPECT_EQ(p.ranges[0].extent, 10u);
  EXPECT_EQ(p.ranges[1].name, "V");
  EXPECT_EQ(p.ranges[1].extent, 30u);
  const std::vector<std::string> expected = {
      "i1_L3[h7,h1] += 1 * f_hh[h7,h1]",
      "i2_L5[h7,p3] += 1 * f_hp[h7,p3]",
      "i2_L5[h7,p3] += -1 * t_ph[p5,h6] * v_hhpp[h6,h7,p3,p5]",
      "i1_L3[h7,h1] += 1 * t_ph[p3,h1] * i2_L5[h7,p3]",
      "i1_L3[h7,h1] += -1/2 * t_ph[p4,h5] * v_hhhp[h5,h7,h1,p4]",
      "i0[p2,h1] += -1 * t_ph[p2,h7] * i1_L3[h7,h1]",
      "i1_L10[h4,p2,h1,p3] += 1 * v_hphp[h4,p2,h1,p3]",
      "i0[p2,h1] += -1 * t_ph[p3,h4] * i1_L10[h4,p2,h1,p3]",
  };
  ASSERT_EQ(p.statements.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(statement(p, k), expected[k]) << k;
  const std::vector<int> lines = {3, 5, 6, 4, 7, 2, 10, 9};
  for (std::size_t k = 0; k < lines.size(); ++k) EXPECT_EQ(p.statements[k].loc.line, lines[k]) << k;
  EXPECT_EQ(p.statements[0].loc.column, 11);
  EXPECT_EQ(p.statements[4].coefficient, -0.5);

  struct T {
    std::string name;
    std::vector<int> dims;  // 0 = O, 1 = V
    TensorRole role;
  };
  const std::vector<T> tensors = {
      {"i0", {1, 0}, TensorRole::Output},
      {"t_ph", {1, 0}, TensorRole::Input},
      {"i1_L3", {0, 0}, TensorRole::Intermediate},
      {"f_hh", {0, 0}, TensorRole::Input},
      {"i2_L5", {0, 1}, TensorRole::Intermediate},
      {"f_hp", {0, 1}, TensorRole::Input},
      {"v_hhpp", {0, 0, 1, 1}, TensorRole::Input},
      {"v_hhhp", {0, 0, 0, 1}, TensorRole::Input},
      {"i1_L10", {0, 1, 0, 1}, TensorRole::Intermediate},
      {"v_hphp", {0, 1, 0, 1}, TensorRole::Input},
  };
  ASSERT_EQ(p.tensors.size(), tensors.size());
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    EXPECT_EQ(p.tensors[k].name, tensors[k].name) << k;
    EXPECT_EQ(p.tensors[k].dims, tensors[k].dims) << tensors[k].name;
    EXPECT_EQ(p.tensors[k].role, tensors[k].role) << tensors[k].name;
  }
  EXPECT_EQ(p.elements(p.find_tensor("i1_L10")), 10u * 30 * 10 * 30);
  // Every index over its range by its first letter.
  for (const auto& index : p.indices) EXPECT_EQ(index.range, index.name[0] == 'h' ? 0 : 1) << index.name;
}

TEST(Nwchem, LineFormsAccepted) {
  // No prefix, '!' prefix, '+=' without a blank, a scalar result, a fraction, tags, no coefficient.
  const char* tree =
      "     i0 ( )_tf += 1/4 * Sum ( h3 h4 p1 p2 ) * t ( p1 p2 h3 h4 )_t * v ( h3 h4 p1 p2 )_v\n"
      "!    i0 ( ) + = Sum ( p5 h6 ) * t ( p5 h6 ) * f ( h6 p5 )   DONE\n";
  auto r = parse_source("forms.txt", tree, nwchem());
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const Program& p = *r.program;
  ASSERT_EQ(p.statements.size(), 2u);
  EXPECT_EQ(statement(p, 0), "i0[] += 1/4 * t_pphh[p1,p2,h3,h4] * v_hhpp[h3,h4,p1,p2]");
  EXPECT_EQ(p.statements[0].coefficient, 0.25);
  EXPECT_EQ(statement(p, 1), "i0[] += 1 * t_ph[p5,h6] * f_hp[h6,p5]");
  EXPECT_EQ(p.tensors[0].dims.size(), 0u);
}

// ---- errors ----

struct ErrorCase {
  std::string text;
  std::string rendered;  // the first diagnostic, rendered (file:line:col, source line, caret)
};

std::string first_error(const std::string& text, const Options& options = nwchem()) {
  auto r = parse_source("e.txt", text, options);
  EXPECT_FALSE(r.ok()) << text;
  EXPECT_FALSE(r.program.has_value());
  if (r.diagnostics.all().empty()) return "";
  // render() of the first diagnostic only
  std::string all = r.diagnostics.render();
  const auto& d = r.diagnostics.all()[0];
  if (d.loc.line == 0) return all.substr(0, all.find('\n') + 1);
  std::size_t end = 0;
  for (int k = 0; k < 3; ++k) end = all.find('\n', end) + 1;
  return all.substr(0, end);
}

TEST(NwchemErrors, WrongPCount) {
  EXPECT_EQ(first_error(
                "C     i0 ( p3 p4 h1 h2 )_vt + = -1 * P( 4 ) * Sum ( h10 ) * t ( p3 h10 )_t * v ( h10 p4 h1 h2 )_v\n"),
            "e.txt:1:38: error: P( 4 ) announces 4 terms, but antisymmetrising the left-hand side over the two "
            "operands gives 2: ( p3 | p4 ) 2 ways, ( | h1 h2 ) 1 way (first operand's | second operand's indices "
            "per group)\n"
            "C     i0 ( p3 p4 h1 h2 )_vt + = -1 * P( 4 ) * Sum ( h10 ) * t ( p3 h10 )_t * v ( h10 p4 h1 h2 )_v\n"
            "                                     ^\n");
  EXPECT_EQ(first_error("i0 ( p1 h1 h2 ) + = P( 2 ) * t ( p1 h1 ) * f ( h2 )\n"),
            "e.txt:1:21: error: P( 2 ) needs a left-hand side of even rank (an upper and a lower half); "
            "'i0 ( p1 h1 h2 )' has rank 3\n"
            "i0 ( p1 h1 h2 ) + = P( 2 ) * t ( p1 h1 ) * f ( h2 )\n"
            "                    ^\n");
}

TEST(NwchemErrors, UnknownSectionListsTheAvailableOnes) {
  auto r = parse_source(kData, read(kData), nwchem("ccsdt_q"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.render(),
            "tcec: error: no section 'ccsdt_q' in '" + kData +
                "'; available sections: ccsd_e, ccsd_t1, ccsd_t2, ccd_t2, ccsd_t_singles, ccsd_t_doubles, ccsdt_e, "
                "ccsdt_t1, ccsdt_t2, ccsdt_t3, eomccsd_x1, eomccsd_x2, eomccsd_y1, eomccsd_y2, mbpt2_e, mbpt2_t2\n");
  auto none = parse_source(kData, read(kData), nwchem());
  EXPECT_EQ(none.diagnostics.all().at(0).message.rfind("'" + kData +
                                                           "' holds 16 equation trees; choose one with "
                                                           "--section NAME: ccsd_e, ccsd_t1, ",
                                                       0),
            0u)
      << none.diagnostics.render();
  auto plain = parse_source("plain.txt", kPTwo, nwchem("ccsd_t2"));
  EXPECT_EQ(plain.diagnostics.render(),
            "tcec: error: no section 'ccsd_t2' in 'plain.txt'; available sections: none (no '### file: "
            ".../NAME.F' headers)\n");
}

TEST(NwchemErrors, MalformedLines) {
  for (const ErrorCase& c : std::vector<ErrorCase>{
           {"C     i0 ( p2 h1 ) = 1 * f ( p2 h1 )\n",
            "e.txt:1:20: error: expected '+ =' before '='\nC     i0 ( p2 h1 ) = 1 * f ( p2 h1 )\n                   "
            "^\n"},
           {"C     this is not an equation\n",
            "e.txt:1:12: error: expected '(' before 'is'\nC     this is not an equation\n           ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * f ( p2 h1 ) * \n",
            "e.txt:1:42: error: expected an operand such as 't ( p3 h1 )' before end of line\n"
            "C     i0 ( p2 h1 ) + = 1 * f ( p2 h1 ) * \n                                         ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * f ( p2 h1 ) t ( p2 h1 )\n",
            "e.txt:1:40: error: expected '*' or end of line before 't' (only words such as DONE or UNUSED (NOPE) "
            "may follow the last operand)\nC     i0 ( p2 h1 ) + = 1 * f ( p2 h1 ) t ( p2 h1 )\n"
            "                                       ^\n"},
           {"C     i0 ( p2 h1 ) + = 1/0 * f ( p2 h1 )\n",
            "e.txt:1:26: error: division by zero in coefficient '1/0'\nC     i0 ( p2 h1 ) + = 1/0 * f ( p2 h1 )\n"
            "                         ^\n"},
           {"C     i0 ( p2 x1 ) + = 1 * f ( p2 x1 )\n",
            "e.txt:1:15: error: index 'x1' must start with 'h' (occupied, range O) or 'p' (virtual, range V)\n"
            "C     i0 ( p2 x1 ) + = 1 * f ( p2 x1 )\n              ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * Sum ( h3 ) * t ( p2 h1 ) * f ( h1 h3 )\n",
            "e.txt:1:59: error: index 'h1' is in the result and in both operands (a batch index); this is not "
            "supported\nC     i0 ( p2 h1 ) + = 1 * Sum ( h3 ) * t ( p2 h1 ) * f ( h1 h3 )\n"
            "                                                          ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * Sum ( h3 ) * t ( p2 h3 ) * f ( h3 h3 h1 )\n",
            "e.txt:1:62: error: index 'h3' appears more than once in 'f ( h3 h3 h1 )'\n"
            "C     i0 ( p2 h1 ) + = 1 * Sum ( h3 ) * t ( p2 h3 ) * f ( h3 h3 h1 )\n"
            "                                                             ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * Sum ( h4 ) * t ( p2 h3 ) * f ( h3 h1 )\n",
            "e.txt:1:28: error: Sum ( h4 ) does not match the indices the operands sum over: ( h3 )\n"
            "C     i0 ( p2 h1 ) + = 1 * Sum ( h4 ) * t ( p2 h3 ) * f ( h3 h1 )\n                           ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * t ( p2 h1 ) * f ( h3 h1 ) * f ( h3 h1 )\n",
            "e.txt:1:56: error: a product of 3 operands is not yet supported (at most 2)\n"
            "C     i0 ( p2 h1 ) + = 1 * t ( p2 h1 ) * f ( h3 h1 ) * f ( h3 h1 )\n"
            "                                                       ^\n"},
       }) {
    EXPECT_EQ(first_error(c.text), c.rendered) << c.text;
  }
}

TEST(NwchemErrors, NestingErrors) {
  for (const ErrorCase& c : std::vector<ErrorCase>{
           {"C     i0 ( p2 h1 ) + = 1 * Sum ( h7 ) * t ( p2 h7 ) * i1 ( h7 h1 )\n",
            "e.txt:1:55: error: intermediate 'i1' is used but not defined: no deeper-indented lines follow\n"
            "C     i0 ( p2 h1 ) + = 1 * Sum ( h7 ) * t ( p2 h7 ) * i1 ( h7 h1 )\n"
            "                                                      ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * f ( p2 h1 )\nC         i1 ( h7 h1 ) + = 1 * f ( h7 h1 )\n",
            "e.txt:2:11: error: this line is indented deeper than line 1, which uses no intermediate ('i1', "
            "'i2', ...) for it to define\nC         i1 ( h7 h1 ) + = 1 * f ( h7 h1 )\n          ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * Sum ( h7 ) * t ( p2 h7 ) * i1 ( h7 h1 )\n"
            "C         i1 ( h7 p1 ) + = 1 * f ( h7 p1 )\n",
            "e.txt:2:11: error: 'i1' is used as 'i1 ( h7 h1 )' on line 1 (index types hh), but defined here as "
            "'i1 ( h7 p1 )' (index types hp)\nC         i1 ( h7 p1 ) + = 1 * f ( h7 p1 )\n          ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * Sum ( h7 ) * t ( p2 h7 ) * i1 ( h7 h1 )\n"
            "C         i2 ( h7 h1 ) + = 1 * f ( h7 h1 )\n",
            "e.txt:2:11: error: this line defines 'i2', but line 1 uses 'i1'\n"
            "C         i2 ( h7 h1 ) + = 1 * f ( h7 h1 )\n          ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * Sum ( h7 ) * t ( p2 h7 ) * i1 ( h7 h1 )\n"
            "C             i1 ( h7 h1 ) + = 1 * f ( h7 h1 )\n"
            "C         i1 ( h7 h1 ) + = 1 * f ( h7 h1 )\n",
            "e.txt:3:11: error: the indentation of this line (column 11) matches no enclosing line (columns 7, 15)\n"
            "C         i1 ( h7 h1 ) + = 1 * f ( h7 h1 )\n          ^\n"},
           {"C     i0 ( p2 h1 ) + = 1 * f ( p2 h1 )\nC     i0 ( h1 p2 ) + = 1 * f ( h1 p2 )\n",
            "e.txt:2:7: error: the result is 'i0 ( p2 h1 )' (line 1), but this line writes 'i0 ( h1 p2 )'\n"
            "C     i0 ( h1 p2 ) + = 1 * f ( h1 p2 )\n      ^\n"},
       }) {
    EXPECT_EQ(first_error(c.text), c.rendered) << c.text;
  }
}

TEST(NwchemErrors, RangesComeFromTheCommandLine) {
  Options none;
  none.format = InputFormat::Nwchem;
  auto r = parse_source("e.txt", kPTwo, none);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.render(),
            "tcec: error: range 'O' has no extent: NWChem equations do not give sizes; pass -D O=N (the number "
            "of occupied orbitals, indices 'h...')\n"
            "tcec: error: range 'V' has no extent: NWChem equations do not give sizes; pass -D V=N (the number "
            "of virtual orbitals, indices 'p...')\n");
  Options extra = nwchem();
  extra.defines.push_back("N=4");
  EXPECT_EQ(parse_source("e.txt", kPTwo, extra).diagnostics.render(), "tcec: error: -D N=4: no range named 'N'\n");
  Options tce;
  tce.section = "ccsd_t2";
  EXPECT_EQ(parse_source("e.txt", "", tce).diagnostics.render(),
            "tcec: error: --section ccsd_t2 applies to --from nwchem only\n");
  EXPECT_EQ(parse_source("e.txt", "# nothing\n", nwchem()).diagnostics.render(),
            "e.txt:1:1: error: 'e.txt' holds no equation lines\n# nothing\n^\n");
}

TEST(NwchemErrors, HostileInputDoesNotCrash) {
  std::mt19937 rng(7);
  const std::string pieces[] = {"C ",   "i0", "i1", " ( ",  " )", "_vt", " + = ", "*",   " P( 2 ) ", "Sum",  "p3", "h1",
                                "-1/2", "\t", "\n", "    ", "x",  "(",   ")",     "1/0", "P(",       "DONE", "!"};
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (int k = 0; k < 60; ++k) text += pieces[rng() % std::size(pieces)];
    auto r = parse_source("fuzz.txt", text, nwchem());
    if (!r.ok()) {
      EXPECT_TRUE(r.diagnostics.has_errors());
    }
    EXPECT_NO_THROW(r.diagnostics.render());
  }
}

}  // namespace
