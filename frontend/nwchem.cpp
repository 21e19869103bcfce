// frontend/nwchem.cpp — NWChem TCE equation-tree import (the format and its
// semantics: frontend/nwchem.h). Three passes: a Scanner turns each line into an
// Equation, link() builds the tree from the indentation, and a Builder checks every
// equation against ir::Statement's rules, expands P( n ) and emits each definition
// block's statements before the statement that reads the block.
#include "frontend/nwchem.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <tuple>

#include "frontend/defines.h"
#include "frontend/diagnostics.h"
#include "runtime/spec/units.h"

namespace tcec::frontend {

namespace {

constexpr int kOccupied = 0;  // range ids: O first, V second
constexpr int kVirtual = 1;

struct Label {
  std::string name;
  int col = 0;
};

// A tensor as written: `t ( p3 h10 )_t` (the tag is dropped).
struct Ref {
  std::string name;
  int col = 0;
  std::vector<Label> labels;

  std::string text() const {
    std::string out = name + " (";
    for (const Label& l : labels) out += " " + l.name;
    return out + " )";
  }
  // One letter per index, "hphh"; the first letter of each label.
  std::string types() const {
    std::string out;
    for (const Label& l : labels) out += l.name[0];
    return out;
  }
};

// One equation line.
struct Equation {
  int line = 0;
  int col = 0;      // column of the left-hand side (1-based, bytes)
  int indent = 0;   // visual column of the same (tabs to multiples of 8): the nesting depth
  bool ok = false;  // scanned without errors
  Ref lhs;
  std::string coef_text = "1";
  double coef = 1.0;
  bool has_p = false;
  int p_terms = 0;  // n of P( n )
  int p_col = 0;
  bool has_sum = false;
  int sum_col = 0;
  std::vector<Label> sum;
  std::vector<Ref> operands;
  std::vector<int> children;  // the lines that define this line's intermediate
};

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// Reads one equation line into an Equation, reporting the first problem.
class Scanner {
 public:
  Scanner(const std::string& text, std::size_t start, int line, Reporter& r)
      : s_(text), i_(start), line_(line), r_(r) {}

  bool equation(Equation& eq) {
    blanks();
    eq.line = line_;
    eq.col = col();
    eq.indent = visual_column();
    if (!ref(eq.lhs, "a left-hand side such as 'i0 ( p2 h1 )'")) return false;
    blanks();
    if (peek() != '+') return expected("'+ ='");
    ++i_;
    blanks();
    if (peek() != '=') return expected("'+ ='");
    ++i_;
    blanks();
    if (is_digit(peek()) || ((peek() == '-' || peek() == '+') && is_digit(peek(1)))) {
      if (!coefficient(eq)) return false;
      blanks();
      if (peek() != '*') return expected("'*'");
      ++i_;
    }
    for (;;) {
      blanks();
      if (!factor(eq)) return false;
      blanks();
      if (peek() != '*') break;
      ++i_;
    }
    if (eq.operands.empty()) return expected("an operand such as 't ( p3 h1 )'");
    return trailing();
  }

 private:
  char peek(std::size_t ahead = 0) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }
  bool at_end() const { return i_ >= s_.size(); }
  int col() const { return static_cast<int>(i_) + 1; }
  void blanks() {
    while (is_blank(peek())) ++i_;
  }
  int visual_column() const {
    int v = 0;
    for (std::size_t k = 0; k < i_; ++k) v = s_[k] == '\t' ? (v / 8 + 1) * 8 : v + 1;
    return v + 1;
  }
  // The next token, quoted, for "expected X before Y".
  std::string token() const {
    if (at_end()) return "end of line";
    std::size_t n = 1;
    if (is_alnum(s_[i_])) {
      while (i_ + n < s_.size() && is_alnum(s_[i_ + n])) ++n;
    }
    return fmt::format("'{}'", s_.substr(i_, n));
  }
  bool expected(const std::string& what) {
    r_.report(DiagId::err_expected, {line_, col()}, what, token());
    return false;
  }
  std::string word() {
    std::size_t b = i_;
    while (is_alnum(peek())) ++i_;
    return s_.substr(b, i_ - b);
  }

  // `( idx idx ... )`, at '('.
  bool label_list(std::vector<Label>& labels) {
    ++i_;
    for (;;) {
      blanks();
      if (peek() == ')') {
        ++i_;
        return true;
      }
      if (!is_alpha(peek())) return expected("an index or ')'");
      Label l{"", col()};
      l.name = word();
      labels.push_back(l);
    }
  }

  // `NAME ( idx ... )[_tag]`.
  bool ref(Ref& out, const char* what) {
    if (!is_alpha(peek())) return expected(what);
    out.col = col();
    out.name = word();
    blanks();
    if (peek() != '(') return expected("'('");
    if (!label_list(out.labels)) return false;
    if (peek() == '_') {
      ++i_;
      while (is_alnum(peek()) || peek() == '_') ++i_;
    }
    return true;
  }

  std::string digits() {
    std::size_t b = i_;
    while (is_digit(peek())) ++i_;
    return s_.substr(b, i_ - b);
  }

  // [+-]INT[/INT]
  bool coefficient(Equation& eq) {
    std::string text;
    if (peek() == '-' || peek() == '+') text += s_[i_++];
    const int num_col = col();
    const std::string num = digits();
    double value = std::strtod(num.c_str(), nullptr);
    text += num;
    if (peek() == '/' && is_digit(peek(1))) {
      ++i_;
      const int den_col = col();
      const std::string den = digits();
      text += "/" + den;
      const double d = std::strtod(den.c_str(), nullptr);
      if (d == 0.0) {
        r_.report(DiagId::err_division_by_zero, {line_, den_col}, text);
        return false;
      }
      value /= d;
    }
    if (!std::isfinite(value)) {
      r_.report(DiagId::err_bad_number, {line_, num_col}, text);
      return false;
    }
    if (text[0] == '+') text.erase(0, 1);
    eq.coef = text[0] == '-' ? -value : value;
    eq.coef_text = text;
    return true;
  }

  // `P( n )`, `Sum ( idx ... )` or an operand.
  bool factor(Equation& eq) {
    const std::size_t start = i_;
    if (!is_alpha(peek())) return expected("an operand such as 't ( p3 h1 )'");
    const std::string w = word();
    blanks();
    if (w == "P" && peek() == '(') {
      ++i_;
      blanks();
      if (is_digit(peek())) {
        if (eq.has_p) {
          r_.report(DiagId::err_nwchem_duplicate_factor, {line_, static_cast<int>(start) + 1}, "P( n )");
          return false;
        }
        eq.has_p = true;
        eq.p_col = static_cast<int>(start) + 1;
        const std::string n = digits();
        eq.p_terms = n.size() > 9 ? 999999999 : std::atoi(n.c_str());
        blanks();
        if (peek() != ')') return expected("')'");
        ++i_;
        return true;
      }
    } else if (w == "Sum" && peek() == '(') {
      if (eq.has_sum) {
        r_.report(DiagId::err_nwchem_duplicate_factor, {line_, static_cast<int>(start) + 1}, "Sum ( ... )");
        return false;
      }
      eq.has_sum = true;
      eq.sum_col = static_cast<int>(start) + 1;
      return label_list(eq.sum);
    }
    i_ = start;  // a tensor (possibly named P or Sum)
    Ref op;
    if (!ref(op, "an operand such as 't ( p3 h1 )'")) return false;
    eq.operands.push_back(op);
    return true;
  }

  // Annotations after the last operand: words of letters, possibly in parentheses.
  bool trailing() {
    const std::size_t start = i_;
    for (;;) {
      blanks();
      if (at_end()) return true;
      if (is_alpha(peek())) {
        while (is_alpha(peek())) ++i_;
        if (is_alnum(peek()) || peek() == '_') break;
      } else if (peek() == '(' || peek() == ')') {
        ++i_;
      } else {
        break;
      }
    }
    i_ = start;
    blanks();
    r_.report(DiagId::err_nwchem_trailing, {line_, col()}, token());
    return false;
  }

  const std::string& s_;
  std::size_t i_;
  int line_;
  Reporter& r_;
};

// Nests the equations by indentation; returns the top-level ones. A line indented
// deeper than the previous one is its child; a line at the indentation of an
// enclosing line is that line's sibling; anything else is reported.
std::vector<int> link(std::vector<Equation>& eqs, Reporter& r) {
  std::vector<int> roots, stack;
  for (int k = 0; k < static_cast<int>(eqs.size()); ++k) {
    Equation& e = eqs[k];
    std::vector<std::string> levels;
    for (int s : stack) levels.push_back(std::to_string(eqs[s].indent));
    bool dedented = false;
    while (!stack.empty() && eqs[stack.back()].indent > e.indent) {
      stack.pop_back();
      dedented = true;
    }
    if (!stack.empty() && eqs[stack.back()].indent == e.indent) {
      stack.pop_back();
    } else if (dedented) {
      r.report(DiagId::err_nwchem_indentation, {e.line, e.col}, e.indent, join(levels, ", "));
      e.ok = false;
    }
    (stack.empty() ? roots : eqs[stack.back()].children).push_back(k);
    stack.push_back(k);
  }
  return roots;
}

bool is_intermediate_name(const std::string& name) {
  return name.size() >= 2 && name[0] == 'i' &&
         std::all_of(name.begin() + 1, name.end(), [](char c) { return is_digit(c); });
}

std::uint64_t binomial(int n, int k) {
  std::uint64_t out = 1;
  for (int i = 1; i <= k; ++i) out = out * static_cast<std::uint64_t>(n - k + i) / static_cast<std::uint64_t>(i);
  return out;
}

// One term of P( n ): the result's index ids and the sign.
struct Term {
  std::vector<int> result;
  int sign = 1;
};

// Where the equations of a node go.
struct Target {
  enum Kind { Top, Block, Unknown } kind = Top;
  const Ref* use = nullptr;  // Block: the operand the block defines
  int use_line = 0;
  int tensor = -1;  // Block: the block's tensor (-1 when it could not be made)
};

class Builder {
 public:
  Builder(Reporter& r, ir::Program& p, const std::vector<Equation>& eqs, bool sized)
      : r_(r), p_(p), eqs_(eqs), sized_(sized) {}

  void run(const std::vector<int>& roots) {
    for (int e : roots) node(e, Target{});
  }

 private:
  void children(const Equation& eq, const Target& t) {
    for (int c : eq.children) node(c, t);
  }

  // One equation line and, through children(), the lines below it that define its
  // intermediate: checks it, makes its tensors and appends its statements (after those of the
  // block it reads). `target` says which tensor it writes.
  void node(int e, const Target& target) {
    if (r_.full()) return;
    const Equation& eq = eqs_[e];
    if (!eq.ok) return children(eq, Target{Target::Unknown});
    std::vector<int> lhs;
    std::vector<std::vector<int>> ops;
    bool good = resolve(eq, lhs, ops);
    const int result = result_tensor(eq, target);
    good = good && result >= 0;
    std::vector<int> inter;
    good = intermediates(eq, inter) && good;
    const bool defines = !eq.children.empty() && inter.size() == 1;
    std::vector<Term> terms;
    std::vector<std::vector<int>> unpermuted;  // P( n ): the lhs's runs it does not permute
    if (good) good = check_indices(eq, lhs, ops) && check_sum(eq, lhs, ops) && expand(eq, lhs, ops, terms, unpermuted);
    std::vector<int> tensors(eq.operands.size(), -1);
    Target block{Target::Unknown};
    good = operand_tensors(eq, defines ? inter[0] : -1, tensors, block) && good;
    children(eq, block);
    if (!good) return;
    if (terms.size() > 1 && eq.operands.size() == 2) {
      fold_terms(eq, result, lhs, ops, tensors, terms, unpermuted);
      return;
    }
    add_terms(eq, result, ops, tensors, terms);
  }

  // The index ids of the left-hand side (`lhs`) and of each operand (`ops`); false when a
  // label is not an h or p index (reported).
  bool resolve(const Equation& eq, std::vector<int>& lhs, std::vector<std::vector<int>>& ops) {
    bool good = true;
    auto ids_of = [&](const Ref& ref) {
      std::vector<int> ids;
      for (const Label& l : ref.labels) {
        ids.push_back(index(l, eq.line));
        good = good && ids.back() >= 0;
      }
      return ids;
    };
    lhs = ids_of(eq.lhs);
    for (const Ref& op : eq.operands) ops.push_back(ids_of(op));
    return good;
  }

  // The tensor `eq` writes: the output for a top-level line; for a line of a definition block,
  // the block's tensor, after checking that the line names it with its index types. -1 after
  // reporting, or for a line under a line that could not be read.
  int result_tensor(const Equation& eq, const Target& target) {
    if (target.kind == Target::Top) return output(eq);
    if (target.kind != Target::Block) return -1;
    const Ref& use = *target.use;
    if (eq.lhs.name != use.name) {
      r_.report(DiagId::err_nwchem_definition_name, {eq.line, eq.lhs.col}, eq.lhs.name, target.use_line, use.name);
      return -1;
    }
    if (eq.lhs.types() != use.types()) {
      r_.report(DiagId::err_nwchem_definition_shape, {eq.line, eq.lhs.col}, use.name, use.text(), target.use_line,
                use.types(), eq.lhs.text(), eq.lhs.types());
      return -1;
    }
    return target.tensor;
  }

  // The positions of the operands named as intermediates (i1, i2, ...) into `inter`, and the
  // checks on them: no operand is the result, at most two operands, a line with a definition
  // block reads exactly one intermediate and a line without one reads none. False after
  // reporting (a block under a line without intermediates is reported but not fatal here).
  bool intermediates(const Equation& eq, std::vector<int>& inter) {
    bool good = true;
    for (std::size_t k = 0; k < eq.operands.size(); ++k) {
      const Ref& op = eq.operands[k];
      if (output_line_ != 0 && op.name == output_ref_.name) {
        r_.report(DiagId::err_nwchem_result_as_operand, {eq.line, op.col}, op.name);
        good = false;
      } else if (is_intermediate_name(op.name)) {
        inter.push_back(static_cast<int>(k));
      }
    }
    if (eq.operands.size() > 2) {
      r_.report(DiagId::err_too_many_operands, {eq.line, eq.operands[2].col}, eq.operands.size());
      good = false;
    }
    if (!eq.children.empty() && inter.empty()) {
      const Equation& first = eqs_[eq.children[0]];
      r_.report(DiagId::err_nwchem_orphan_definition, {first.line, first.col}, eq.line);
    } else if (!eq.children.empty() && inter.size() > 1) {
      r_.report(DiagId::err_nwchem_two_intermediates, {eq.line, eq.operands[inter[1]].col}, eq.operands[inter[0]].name,
                eq.operands[inter[1]].name);
      good = false;
    } else if (eq.children.empty()) {
      for (int k : inter) {
        r_.report(DiagId::err_nwchem_undefined_intermediate, {eq.line, eq.operands[k].col}, eq.operands[k].name);
        good = false;
      }
    }
    return good;
  }

  // The tensors of the first two operands into `tensors`: inputs by name and index types, and
  // for the operand at position `defined` (-1: none) a new intermediate X_L<line of its first
  // definition line>, whose Target the definition block gets in `block`. False when an operand
  // has no tensor (reported, or an intermediate without a block).
  bool operand_tensors(const Equation& eq, int defined, std::vector<int>& tensors, Target& block) {
    bool good = true;
    for (std::size_t k = 0; k < eq.operands.size() && k < 2; ++k) {
      const Ref& op = eq.operands[k];
      if (static_cast<int>(k) == defined) {
        const Equation& first = eqs_[eq.children[0]];
        tensors[k] = make_tensor(fmt::format("{}_L{}", op.name, first.line), op, eq.line, ir::TensorRole::Intermediate);
        block = Target{Target::Block, &op, eq.line, tensors[k]};
      } else if (!is_intermediate_name(op.name)) {
        tensors[k] = input(op, eq.line);
      }
      good = good && tensors[k] >= 0;
    }
    return good;
  }

  // One statement per term of `eq` (one without P( n )): result[term] += ±coef · operands.
  void add_terms(const Equation& eq, int result, const std::vector<std::vector<int>>& ops,
                 const std::vector<int>& tensors, const std::vector<Term>& terms) {
    for (std::size_t t = 0; t < terms.size(); ++t) {
      ir::Statement s;
      s.result = {result, terms[t].result, {eq.line, eq.lhs.col}};
      s.op = ir::AssignOp::Add;
      s.coefficient = terms[t].sign * eq.coef;
      s.coefficient_text = terms[t].sign > 0        ? eq.coef_text
                           : eq.coef_text[0] == '-' ? eq.coef_text.substr(1)
                                                    : "-" + eq.coef_text;
      for (std::size_t k = 0; k < eq.operands.size(); ++k)
        s.operands.push_back({tensors[k], ops[k], {eq.line, eq.operands[k].col}});
      s.loc = {eq.line, eq.col};
      s.source_text = ir::format_statement(p_, s);
      if (eq.has_p) s.source_text += fmt::format("   [P( {} ) term {} of {}]", eq.p_terms, t + 1, terms.size());
      s.antisymmetrized = eq.has_p && terms.size() > 1;
      p_.statements.push_back(std::move(s));
    }
  }

  // P( n ) of a contraction, as the TCE evaluates it: the product once into a new intermediate
  // X_L<line> (the left-hand side's index types, the left-hand side's labels), then each term
  // adds ±X, permuted, into the result: one contraction and n copies instead of n contractions.
  // X is antisymmetric only in the runs P( n ) does not permute (`unpermuted`; symmetry blocks).
  void fold_terms(const Equation& eq, int result, const std::vector<int>& lhs, const std::vector<std::vector<int>>& ops,
                  const std::vector<int>& tensors, const std::vector<Term>& terms,
                  const std::vector<std::vector<int>>& unpermuted) {
    const int x = make_tensor(fmt::format("X_L{}", eq.line), eq.lhs, eq.line, ir::TensorRole::Intermediate);
    if (x < 0) return;
    p_.tensors[static_cast<std::size_t>(x)].antisymmetric = unpermuted;
    ir::Statement product;
    product.result = {x, lhs, {eq.line, eq.lhs.col}};
    product.op = ir::AssignOp::Assign;
    product.coefficient = eq.coef;
    product.coefficient_text = eq.coef_text;
    for (std::size_t k = 0; k < 2; ++k) product.operands.push_back({tensors[k], ops[k], {eq.line, eq.operands[k].col}});
    product.loc = {eq.line, eq.col};
    product.source_text = ir::format_statement(p_, product) + fmt::format("   [P( {} ) product]", eq.p_terms);
    p_.statements.push_back(std::move(product));
    for (std::size_t t = 0; t < terms.size(); ++t) {
      ir::Statement s;
      s.result = {result, terms[t].result, {eq.line, eq.lhs.col}};
      s.op = ir::AssignOp::Add;
      s.coefficient = terms[t].sign;
      s.coefficient_text = terms[t].sign > 0 ? "" : "-1";
      s.operands.push_back({x, lhs, {eq.line, eq.lhs.col}});
      s.loc = {eq.line, eq.col};
      s.source_text =
          ir::format_statement(p_, s) + fmt::format("   [P( {} ) term {} of {}]", eq.p_terms, t + 1, terms.size());
      s.antisymmetrized = true;
      p_.statements.push_back(std::move(s));
    }
  }

  // The index variable of a label (made on first use), or -1 after reporting.
  int index(const Label& l, int line) {
    if (l.name[0] != 'h' && l.name[0] != 'p') {
      r_.report(DiagId::err_nwchem_bad_index, {line, l.col}, l.name);
      return -1;
    }
    int id = p_.find_index(l.name);
    if (id >= 0) return id;
    p_.indices.push_back({l.name, l.name[0] == 'h' ? kOccupied : kVirtual, {line, l.col}});
    return static_cast<int>(p_.indices.size()) - 1;
  }

  // A new tensor of `ref`'s index types, or -1 after reporting its size.
  int make_tensor(const std::string& name, const Ref& ref, int line, ir::TensorRole role) {
    ir::Tensor t{name, {}, role, {line, ref.col}, {}};
    unsigned __int128 bytes = tcert::kElementBytes;
    long double elements = 1;
    bool too_large = false;
    for (const Label& l : ref.labels) {
      const int range = l.name[0] == 'h' ? kOccupied : kVirtual;
      t.dims.push_back(range);
      bytes *= p_.ranges[range].extent;
      elements *= static_cast<long double>(p_.ranges[range].extent);
      too_large = too_large || (bytes >> 64) != 0;
      if (too_large) bytes = 1;  // keep the product bounded; the flag says enough
    }
    if (too_large && sized_) {
      r_.report(DiagId::err_tensor_too_large, {line, ref.col}, name,
                fmt::format("{:.4g}", static_cast<double>(elements)), tcert::kElementBytes);
      return -1;
    }
    p_.tensors.push_back(std::move(t));
    return static_cast<int>(p_.tensors.size()) - 1;
  }

  // The input NAME_TYPES (made on first use).
  int input(const Ref& op, int line) {
    const std::string name = op.labels.empty() ? op.name : op.name + "_" + op.types();
    const int id = p_.find_tensor(name);
    if (id >= 0) {
      if (p_.tensors[id].role == ir::TensorRole::Input) return id;
      r_.report(DiagId::err_nwchem_result_as_operand, {line, op.col}, op.name);
      return -1;
    }
    return make_tensor(name, op, line, ir::TensorRole::Input);
  }

  // The output tensor: made by the first top-level line; the others must write the same.
  int output(const Equation& eq) {
    if (output_ < 0 && output_line_ == 0) {
      output_line_ = eq.line;
      output_ref_ = eq.lhs;
      output_ = make_tensor(eq.lhs.name, eq.lhs, eq.line, ir::TensorRole::Output);
      return output_;
    }
    if (eq.lhs.name != output_ref_.name || eq.lhs.types() != output_ref_.types()) {
      r_.report(DiagId::err_nwchem_result_mismatch, {eq.line, eq.lhs.col}, output_ref_.text(), output_line_,
                eq.lhs.text());
      return -1;
    }
    return output_;
  }

  // ir::Statement's einsum rules, reported at the offending index.
  bool check_indices(const Equation& eq, const std::vector<int>& c, const std::vector<std::vector<int>>& ops) {
    const int before = r_.error_count();
    auto has = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    auto repeated = [&](const Ref& ref, const std::vector<int>& ids) {
      for (std::size_t d = 0; d < ids.size(); ++d) {
        if (std::find(ids.begin(), ids.begin() + static_cast<long>(d), ids[d]) == ids.begin() + static_cast<long>(d))
          continue;
        r_.report(DiagId::err_repeated_index, {eq.line, ref.labels[d].col}, ref.labels[d].name, ref.text());
        return;
      }
    };
    repeated(eq.lhs, c);
    for (std::size_t k = 0; k < ops.size(); ++k) repeated(eq.operands[k], ops[k]);
    if (r_.error_count() != before) return false;
    static const std::vector<int> kNone;
    const auto& a = ops[0];
    const auto& b = ops.size() > 1 ? ops[1] : kNone;
    for (std::size_t d = 0; d < c.size(); ++d) {
      const int x = c[d];
      if (!has(a, x) && !has(b, x)) {
        r_.report(DiagId::err_result_index_missing, {eq.line, eq.lhs.labels[d].col}, eq.lhs.labels[d].name);
      } else if (has(a, x) && has(b, x)) {
        const auto pos = std::find(b.begin(), b.end(), x) - b.begin();
        r_.report(DiagId::err_batch_index, {eq.line, eq.operands[1].labels[pos].col}, eq.lhs.labels[d].name);
      }
    }
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const auto& other = k == 0 ? b : a;
      for (std::size_t d = 0; d < ops[k].size(); ++d) {
        const int x = ops[k][d];
        if (has(c, x) || (ops.size() == 2 && has(other, x))) continue;
        r_.report(ops.size() == 1 ? DiagId::err_unary_reduction : DiagId::err_lonely_summed_index,
                  {eq.line, eq.operands[k].labels[d].col}, eq.operands[k].labels[d].name);
      }
    }
    return r_.error_count() == before;
  }

  // `Sum ( ... )` must name exactly the indices the operands sum over.
  bool check_sum(const Equation& eq, const std::vector<int>& c, const std::vector<std::vector<int>>& ops) {
    std::vector<std::string> summed, listed;
    for (const auto& op : ops) {
      for (int x : op) {
        const std::string& name = p_.indices[x].name;
        if (std::find(c.begin(), c.end(), x) == c.end() &&
            std::find(summed.begin(), summed.end(), name) == summed.end())
          summed.push_back(name);
      }
    }
    for (const Label& l : eq.sum) listed.push_back(l.name);
    std::vector<std::string> a = summed, b = listed;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a == b) return true;
    if (!eq.has_sum) {
      r_.report(DiagId::err_nwchem_missing_sum, {eq.line, eq.operands[0].col}, join(summed, " "));
    } else {
      r_.report(DiagId::err_nwchem_sum_mismatch, {eq.line, eq.sum_col}, join(listed, " "), join(summed, " "));
    }
    return false;
  }

  // The terms of P( n ) (one term without P), and the positions of each group of two or more of
  // the left-hand side's indices that P( n ) does not permute (all from one operand: `unpermuted`);
  // false after reporting a wrong n.
  bool expand(const Equation& eq, const std::vector<int>& c, const std::vector<std::vector<int>>& ops,
              std::vector<Term>& terms, std::vector<std::vector<int>>& unpermuted) {
    if (!eq.has_p) {
      terms.push_back({c, 1});
      return true;
    }
    const int rank = static_cast<int>(c.size());
    if (rank % 2 != 0) {
      r_.report(DiagId::err_nwchem_p_odd_rank, {eq.line, eq.p_col}, eq.p_terms, eq.lhs.text(), rank);
      return false;
    }
    std::vector<PGroup> groups = p_groups(eq, c, ops);
    if (!check_p_count(eq, groups)) return false;
    for (PGroup& g : groups) place(g);
    terms = p_terms(groups, c);
    for (const PGroup& g : groups)
      if (g.positions.size() >= 2 && (g.first.empty() || g.second.empty())) unpermuted.push_back(g.positions);
    return true;
  }

  // One group of P( n ): the positions of one index type within one half of the left-hand
  // side, and where each operand's indices of that type may go.
  struct PGroup {
    std::vector<int> positions;
    std::vector<int> first, second;            // index ids from operand 0 / operand 1, in the lhs's order
    std::vector<std::vector<int>> placements;  // per placement: the ids at `positions` (place())
  };

  // The groups of the left-hand side `c` (of even rank): per half, the positions of each index
  // type in order of appearance, each index noted as the first or the second operand's.
  static std::vector<PGroup> p_groups(const Equation& eq, const std::vector<int>& c,
                                      const std::vector<std::vector<int>>& ops) {
    const int rank = static_cast<int>(c.size());
    std::vector<PGroup> groups;
    for (int half = 0; half < 2; ++half) {
      std::string seen;
      for (int d = half * rank / 2; d < (half + 1) * rank / 2; ++d) {
        const char type = eq.lhs.labels[d].name[0];
        if (seen.find(type) != std::string::npos) continue;
        seen += type;
        PGroup g;
        for (int e = d; e < (half + 1) * rank / 2; ++e) {
          if (eq.lhs.labels[e].name[0] != type) continue;
          g.positions.push_back(e);
          const bool in_first = std::find(ops[0].begin(), ops[0].end(), c[e]) != ops[0].end();
          (in_first ? g.first : g.second).push_back(c[e]);
        }
        groups.push_back(std::move(g));
      }
    }
    return groups;
  }

  // True when n of P( n ) is the number of terms the groups give (the product over groups of
  // binomial(positions, first operand's indices)); else reports err_nwchem_p_count with each
  // group's split and count.
  bool check_p_count(const Equation& eq, const std::vector<PGroup>& groups) {
    std::uint64_t count = 1;
    std::vector<std::string> described;
    for (const PGroup& g : groups) {
      // (more than 24 positions in a group: not a real tree; counted as too many)
      const std::uint64_t ways = g.positions.size() > 24
                                     ? 1ull << 40
                                     : binomial(static_cast<int>(g.positions.size()), static_cast<int>(g.first.size()));
      count = std::min<std::uint64_t>(count * ways, 1ull << 40);
      std::vector<std::string> first, second;
      for (int x : g.first) first.push_back(p_.indices[x].name);
      for (int x : g.second) second.push_back(p_.indices[x].name);
      described.push_back(fmt::format("( {}{}|{}{} ) {} way{}", join(first, " "), first.empty() ? "" : " ",
                                      second.empty() ? "" : " ", join(second, " "), ways, ways == 1 ? "" : "s"));
    }
    if (count == static_cast<std::uint64_t>(eq.p_terms)) return true;
    r_.report(DiagId::err_nwchem_p_count, {eq.line, eq.p_col}, eq.p_terms, eq.p_terms, count,
              join(described, ", ") + " (first operand's | second operand's indices per group)");
    return false;
  }

  // The group's placements: each a bit mask over its positions choosing where the first
  // operand's indices go (in order); the second's fill the rest.
  static void place(PGroup& g) {
    const int k = static_cast<int>(g.positions.size());
    for (std::uint32_t mask = 0; mask < (1u << k); ++mask) {
      if (std::popcount(mask) != static_cast<int>(g.first.size())) continue;
      std::vector<int> ids;
      std::size_t f = 0, s = 0;
      for (int j = 0; j < k; ++j) ids.push_back(mask & (1u << j) ? g.first[f++] : g.second[s++]);
      g.placements.push_back(std::move(ids));
    }
  }

  // The terms: the combinations of all groups' placements (the last group fastest). A term
  // is the arrangement Y of the left-hand side's indices: the statement
  // result[Y] += sign * A * B, the sign the parity of Y against the original order.
  // (For P(2) on i0(p3 p4 h1 h2) from t(p3 h10) * i1(h10 p4 h1 h2): Y = [p4,p3,h1,h2],
  // i.e. i0[a,b,..] += t[b,h10] * i1[h10,a,..]. For three positions with two indices
  // of the first operand it gives t[a,b]i1[c] - t[a,c]i1[b] + t[b,c]i1[a].)
  // The identity first, the others in enumeration order.
  static std::vector<Term> p_terms(const std::vector<PGroup>& groups, const std::vector<int>& c) {
    const int rank = static_cast<int>(c.size());
    std::vector<Term> terms;
    std::vector<std::size_t> pick(groups.size(), 0);
    for (;;) {
      std::vector<int> y = c;
      for (std::size_t g = 0; g < groups.size(); ++g)
        for (std::size_t j = 0; j < groups[g].positions.size(); ++j)
          y[groups[g].positions[j]] = groups[g].placements[pick[g]][j];
      std::vector<int> from(rank);  // y[i] = c[from[i]]
      for (int i = 0; i < rank; ++i) from[i] = static_cast<int>(std::find(c.begin(), c.end(), y[i]) - c.begin());
      int inversions = 0;
      for (int i = 0; i < rank; ++i)
        for (int j = i + 1; j < rank; ++j) inversions += from[i] > from[j];
      terms.push_back({std::move(y), inversions % 2 ? -1 : 1});
      std::size_t g = groups.size();
      while (g > 0 && ++pick[g - 1] == groups[g - 1].placements.size()) pick[--g] = 0;
      if (g == 0) break;
    }
    std::stable_partition(terms.begin(), terms.end(), [&](const Term& t) { return t.result == c; });
    return terms;
  }

  Reporter& r_;
  ir::Program& p_;
  const std::vector<Equation>& eqs_;
  bool sized_;
  int output_ = -1;
  int output_line_ = 0;
  Ref output_ref_;
};

struct Section {
  std::string name;  // NAME of `### file: .../NAME.F`
  int header = 0;    // line of the header
};

// The lines import_nwchem() reads, 1-based and inclusive, and what they are called in
// err_nwchem_no_equations: the file, or the chosen section (at its header).
struct LineSpan {
  int first = 1, last = 0;
  std::string what;
  std::optional<ir::SourceLocation> what_loc;
};

// The ranges O (occupied, h indices) and V (virtual, p indices) from -D, into `program`: a
// missing one is err_nwchem_needs_range (the range is then 1) and any other name
// err_define_unknown_range. True when both are given (tensor sizes can be checked).
bool nwchem_ranges(const Options& options, Reporter& reporter, ir::Program& program) {
  const auto defines = parse_defines(options.defines, reporter);
  bool sized = true;
  for (const auto& [name, kind, letter] : {std::tuple{"O", "occupied", "h"}, std::tuple{"V", "virtual", "p"}}) {
    auto d = defines.find(name);
    if (d == defines.end()) {
      reporter.report(DiagId::err_nwchem_needs_range, {}, name, name, kind, letter);
      sized = false;
    }
    program.ranges.push_back({name, d == defines.end() ? 1 : d->second, {}});
  }
  for (const auto& [name, value] : defines) {
    if (name != "O" && name != "V")
      reporter.report(DiagId::err_define_unknown_range, {}, fmt::format("{}={}", name, value), name);
  }
  return sized;
}

// The lines of `source`, without their '\n' (or "\r\n"); a final line without '\n' too.
std::vector<std::string> split_lines(const std::string& source) {
  std::vector<std::string> lines;
  for (std::size_t b = 0; b <= source.size();) {
    std::size_t e = source.find('\n', b);
    if (e == std::string::npos) e = source.size();
    std::string line = source.substr(b, e - b);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    b = e + 1;
  }
  return lines;
}

// The sections of the file: its `### file: .../NAME.F` headers, in order.
std::vector<Section> find_sections(const std::vector<std::string>& lines) {
  std::vector<Section> sections;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string t = trim(lines[k]);
    if (t.rfind("###", 0) != 0) continue;
    const std::string rest = trim(t.substr(3));
    if (rest.rfind("file:", 0) != 0) continue;
    std::string path = trim(rest.substr(5));
    path = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    sections.push_back({path.substr(0, path.find_last_of('.')), static_cast<int>(k) + 1});
  }
  return sections;
}

// The lines to read: those of --section NAME (the first section so named), of the only
// section, or the whole file when it has no sections. Nothing after reporting an unknown
// section (err_nwchem_unknown_section) or several sections and no --section
// (err_nwchem_choose_section, at the second header: where the file stops being one tree).
std::optional<LineSpan> choose_lines(const std::string& file, int line_count, const std::vector<Section>& sections,
                                     const Options& options, Reporter& reporter) {
  std::vector<std::string> section_names;
  for (const Section& s : sections) section_names.push_back(s.name);
  LineSpan span{1, line_count, "'" + file + "'", std::nullopt};
  const Section* chosen = nullptr;
  if (!options.section.empty()) {
    for (const Section& s : sections) {
      if (s.name == options.section && !chosen) chosen = &s;
    }
    if (!chosen) {
      reporter.report(DiagId::err_nwchem_unknown_section, {}, options.section, file,
                      sections.empty() ? "none (no '### file: .../NAME.F' headers)" : join(section_names, ", "));
      return std::nullopt;
    }
  } else if (sections.size() > 1) {
    reporter.report(DiagId::err_nwchem_choose_section, {sections[1].header, 1}, file, sections.size(),
                    join(section_names, ", "));
    return std::nullopt;
  } else if (sections.size() == 1) {
    chosen = &sections[0];
  }
  if (!chosen) return span;
  span.first = chosen->header + 1;
  for (const Section& s : sections) {
    if (s.header > chosen->header) {
      span.last = s.header - 1;
      break;
    }
  }
  span.what = fmt::format("section '{}'", chosen->name);
  span.what_loc = ir::SourceLocation{chosen->header, 1};
  return span;
}

// The equations of `span`: every line but blanks and '#' comments, after an optional C, c or !
// prefix, scanned (Equation::ok false after reporting); stops when the reporter is full.
std::vector<Equation> scan_equations(const std::vector<std::string>& lines, const LineSpan& span, Reporter& reporter) {
  std::vector<Equation> eqs;
  for (int n = span.first; n <= span.last && !reporter.full(); ++n) {
    const std::string& line = lines[n - 1];
    std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    if ((line[start] == 'C' || line[start] == 'c' || line[start] == '!') &&
        (start + 1 == line.size() || is_blank(line[start + 1]))) {
      ++start;
      if (line.find_first_not_of(" \t", start) == std::string::npos) continue;
    }
    Equation eq;
    eq.ok = Scanner(line, start, n, reporter).equation(eq);
    eqs.push_back(std::move(eq));
  }
  return eqs;
}

}  // namespace

Result import_nwchem(const std::string& file, std::string source, const Options& options) {
  Result result;
  result.diagnostics.add_source(file, source);
  Reporter reporter(result.diagnostics, file);
  ir::Program program;
  program.file = file;
  const bool sized = nwchem_ranges(options, reporter, program);
  const std::vector<std::string> lines = split_lines(source);
  const std::optional<LineSpan> span =
      choose_lines(file, static_cast<int>(lines.size()), find_sections(lines), options, reporter);
  if (!span) return result;
  std::vector<Equation> eqs = scan_equations(lines, *span, reporter);
  if (eqs.empty() && !reporter.full()) {
    reporter.report(DiagId::err_nwchem_no_equations, span->what_loc.value_or(ir::SourceLocation{1, 1}), span->what);
  }
  const std::vector<int> roots = link(eqs, reporter);
  Builder(reporter, program, eqs, sized).run(roots);
  if (!reporter.has_errors()) result.program = std::move(program);
  return result;
}

}  // namespace tcec::frontend
