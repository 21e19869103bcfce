// frontend/sema.cpp — semantic checks of a .tce parse tree, building ir::Program.
//
// Declarations are checked in source order (declare before use). Statements
// are checked against ir::Statement's invariants (ir/ir.h); each violation
// gets its own diagnostic from diagnostics.def, with a note at the related
// declaration where there is one. A product of three or more operands is
// checked by the same einsum rules, generalised (check_indices), and its
// contraction tree is chosen in source order (split_terms.h); once the whole
// file is read, each is replaced by its binary statements, so that the names
// of the new intermediates avoid every user tensor, even one declared later.
#include "frontend/sema.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "frontend/machine.h"
#include "frontend/split_terms.h"
#include "frontend/syntax.h"
#include "runtime/spec/units.h"

namespace tcec::frontend {

namespace {

using grammar::TceParser;

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Parses an integer literal; nullopt if it does not fit in 64 bits.
std::optional<std::uint64_t> parse_u64(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0') return std::nullopt;
  return v;
}

class Sema {
 public:
  Sema(Reporter& r, const std::map<std::string, std::uint64_t>& defines, ir::Program& p)
      : r_(r), defines_(defines), p_(p) {}

  void run(TceParser::ProgramContext& tree, const std::function<void(const ir::Program&)>& before_split) {
    for (auto* item : tree.item()) {
      if (r_.full()) break;
      if (auto* d = item->rangeDecl())
        range_decl(*d);
      else if (auto* d = item->symmetryDecl())
        symmetry_decl(*d);
      else if (auto* d = item->indexDecl())
        index_decl(*d);
      else if (auto* d = item->tensorDecl())
        for (auto* def : d->tensorDef()) tensor_decl(*def);
      else if (auto* d = item->machineBlock())
        machine_block(*d);
      else if (auto* d = item->distributeDecl())
        distribute_decl(*d);
      else if (auto* s = item->statement())
        statement(*s);
    }
    check_symmetry_ranges();
    if (before_split && !r_.has_errors()) before_split(p_);
    split_products();
  }

 private:
  // A name must be new within its kind; reports the clash and a note.
  template <typename T>
  bool is_new(const std::vector<T>& items, antlr4::Token* name, DiagId clash) {
    for (const T& item : items) {
      if (item.name != name->getText()) continue;
      r_.report(clash, location_of(name), item.name);
      r_.report(DiagId::note_previous_definition, item.loc);
      return false;
    }
    return true;
  }

  void range_decl(TceParser::RangeDeclContext& decl) {
    for (auto* def : decl.rangeDef()) {
      antlr4::Token* name = def->ID(0)->getSymbol();
      if (!is_new(p_.ranges, name, DiagId::err_duplicate_range)) continue;
      const std::string digits = def->INT(0)->getText();
      const auto loc = location_of(def->MINUS() ? def->MINUS()->getSymbol() : def->INT(0)->getSymbol());
      auto value = parse_u64(digits);
      if (def->MINUS() || (value && *value == 0)) {
        r_.report(DiagId::err_range_not_positive, loc, name->getText(), (def->MINUS() ? "-" : "") + digits);
        continue;
      }
      if (!value || *value > ir::kMaxRangeExtent) {
        r_.report(DiagId::err_range_too_large, loc, name->getText(), digits);
        continue;
      }
      auto override = defines_.find(name->getText());
      ir::Range range{name->getText(), override != defines_.end() ? override->second : *value, location_of(name), {}};
      if (def->irrepsWord && !irreps_of(*def, range)) continue;
      p_.ranges.push_back(std::move(range));
    }
  }

  // `irreps (n0, n1, ...)` of a range definition into range.irreps; false after an error. Checked
  // against the point group once the whole file is read (check_symmetry_ranges()).
  bool irreps_of(TceParser::RangeDefContext& def, ir::Range& range) {
    if (def.irrepsWord->getText() != "irreps") {
      r_.report(DiagId::err_irreps_word, location_of(def.irrepsWord), def.irrepsWord->getText());
      return false;
    }
    const auto ints = def.INT();
    for (std::size_t q = 1; q < ints.size(); ++q) {  // ints[0] is the extent
      const auto n = parse_u64(ints[q]->getText());
      if (!n || *n > ir::kMaxRangeExtent) {
        r_.report(DiagId::err_range_too_large, location_of(ints[q]->getSymbol()), range.name, ints[q]->getText());
        return false;
      }
      range.irreps.push_back(*n);
    }
    irreps_locs_.push_back(location_of(def.irrepsWord));
    return true;
  }

  // `symmetry NAME [restricted];` -> Program::symmetry.
  void symmetry_decl(TceParser::SymmetryDeclContext& decl) {
    const ir::SourceLocation loc = location_of(decl.getStart());
    if (p_.symmetry) {
      r_.report(DiagId::err_duplicate_symmetry, loc);
      r_.report(DiagId::note_previous_definition, p_.symmetry->loc);
      return;
    }
    const std::optional<int> irreps = ir::point_group_irreps(decl.group->getText());
    if (!irreps) {
      r_.report(DiagId::err_unknown_point_group, location_of(decl.group), decl.group->getText());
      return;
    }
    if (decl.shell && decl.shell->getText() != "restricted") {
      r_.report(DiagId::err_symmetry_mode, location_of(decl.shell), decl.shell->getText());
      return;
    }
    p_.symmetry = ir::PointGroup{decl.group->getText(), *irreps, decl.shell != nullptr, loc};
  }

  // Once the file is read: every range's irreps fit the point group and its extent, and every
  // range of a symmetry-blocked tensor has them.
  void check_symmetry_ranges() {
    std::size_t with = 0;  // ranges with irreps, in order (irreps_locs_)
    for (const ir::Range& range : p_.ranges) {
      if (range.irreps.empty()) continue;
      const ir::SourceLocation loc = irreps_locs_.at(with++);
      if (!p_.symmetry) {
        r_.report(DiagId::err_irreps_without_symmetry, loc, range.name);
        continue;
      }
      if (static_cast<int>(range.irreps.size()) != p_.symmetry->irreps) {
        r_.report(DiagId::err_irreps_count, loc, range.name, range.irreps.size(), p_.symmetry->name,
                  p_.symmetry->irreps);
        continue;
      }
      std::uint64_t spatial = 0;
      for (std::uint64_t n : range.irreps) spatial += n;
      if (2 * spatial != range.extent)
        r_.report(DiagId::err_irreps_extent, loc, range.name, range.extent, spatial, 2 * spatial);
    }
    if (!p_.symmetry) return;
    for (const ir::Tensor& t : p_.tensors) {
      if (t.dense) continue;
      for (int r : t.dims)
        if (p_.ranges[static_cast<std::size_t>(r)].irreps.empty()) {
          r_.report(DiagId::err_range_without_irreps, t.loc, t.name, p_.symmetry->name,
                    p_.ranges[static_cast<std::size_t>(r)].name);
          break;
        }
    }
  }

  // Range id of `name`, or -1 after reporting it undeclared.
  int lookup_range(antlr4::Token* name) {
    int id = p_.find_range(name->getText());
    if (id < 0) r_.report(DiagId::err_undeclared_range, location_of(name), name->getText());
    return id;
  }

  void index_decl(TceParser::IndexDeclContext& decl) {
    auto ids = decl.ID();
    antlr4::Token* range_name = ids.back()->getSymbol();
    int range = lookup_range(range_name);
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
      antlr4::Token* name = ids[i]->getSymbol();
      if (!is_new(p_.indices, name, DiagId::err_duplicate_index) || range < 0) continue;
      p_.indices.push_back({name->getText(), range, location_of(name)});
    }
  }

  // A tensor's attributes into t: its role (the first word, if any, that is not a symmetry
  // attribute: input, output or intermediate) and `upper N`, `irrep N`, `dense`. False after an error.
  bool attributes_of(TceParser::TensorDefContext& decl, ir::Tensor& t) {
    std::vector<std::string> seen;
    bool role_given = false;
    for (auto* attr : decl.tensorAttr()) {
      const std::string word = attr->word->getText();
      const ir::SourceLocation loc = location_of(attr->word);
      const bool symmetry = word == "upper" || word == "irrep" || word == "dense";
      const bool role = word == "input" || word == "output" || word == "intermediate";
      if (!symmetry && !role) {
        // The first word alone is read as a role, as before symmetry attributes existed.
        if (!role_given && seen.empty() && attr->value == nullptr)
          r_.report(DiagId::err_unknown_role, loc, word);
        else
          r_.report(DiagId::err_unknown_tensor_attribute, loc, word);
        return false;
      }
      const std::string kind = role ? "role" : word;
      if (std::find(seen.begin(), seen.end(), kind) != seen.end()) {
        r_.report(DiagId::err_duplicate_tensor_attribute, loc, role ? "input/output/intermediate" : word);
        return false;
      }
      seen.push_back(kind);
      if (role) {
        role_given = true;
        t.role = word == "input"    ? ir::TensorRole::Input
                 : word == "output" ? ir::TensorRole::Output
                                    : ir::TensorRole::Intermediate;
        if (attr->value) {
          r_.report(DiagId::err_tensor_attribute_value, location_of(attr->value), word, "takes no value");
          return false;
        }
        continue;
      }
      if (!p_.symmetry) {
        r_.report(DiagId::err_symmetry_attribute_without_group, loc, word);
        return false;
      }
      if (word == "dense") {
        if (attr->value) {
          r_.report(DiagId::err_tensor_attribute_value, location_of(attr->value), word, "takes no value");
          return false;
        }
        t.dense = true;
        continue;
      }
      const std::optional<std::uint64_t> n = attr->value ? parse_u64(attr->value->getText()) : std::nullopt;
      const std::uint64_t limit = word == "upper" ? t.dims.size() : static_cast<std::uint64_t>(p_.symmetry->irreps) - 1;
      if (!n || *n > limit) {
        r_.report(DiagId::err_tensor_attribute_value, attr->value ? location_of(attr->value) : loc, word,
                  fmt::format(
                      "takes a number from 0 to {}{}", limit,
                      word == "upper" ? " (the tensor's rank)" : fmt::format(" (point group {})", p_.symmetry->name)));
        return false;
      }
      (word == "upper" ? t.upper : t.irrep) = static_cast<int>(*n);
    }
    return true;
  }

  void tensor_decl(TceParser::TensorDefContext& decl) {
    antlr4::Token* name = decl.ID()->getSymbol();
    ir::Tensor t{name->getText(), {}, ir::TensorRole::Intermediate, location_of(name), {}};
    bool ok = is_new(p_.tensors, name, DiagId::err_duplicate_tensor);
    if (auto* dims = decl.idList()) {
      for (auto* dim : dims->ID()) {
        int range = lookup_range(dim->getSymbol());
        ok = ok && range >= 0;
        t.dims.push_back(range);
      }
    }
    if (!ok || !attributes_of(decl, t)) return;
    unsigned __int128 bytes = tcert::kElementBytes;
    for (int r : t.dims) {
      bytes *= p_.ranges[r].extent;
      if (bytes >> 64) {
        r_.report(DiagId::err_tensor_too_large, location_of(name), t.name, element_count(t), tcert::kElementBytes);
        return;
      }
    }
    p_.tensors.push_back(std::move(t));
  }

  // The element count of `t` as decimal text (may exceed 64 bits).
  std::string element_count(const ir::Tensor& t) const {
    long double n = 1;
    for (int r : t.dims) n *= static_cast<long double>(p_.ranges[r].extent);
    return fmt::format("{:.4g}", static_cast<double>(n));
  }

  void machine_block(TceParser::MachineBlockContext& block) {
    if (machine_loc_) {
      r_.report(DiagId::err_duplicate_machine, location_of(block.getStart()));
      r_.report(DiagId::note_previous_definition, *machine_loc_);
      return;
    }
    machine_loc_ = location_of(block.getStart());
    ir::MachineDesc m;
    if (check_machine_block(block, r_, m)) p_.machine = m;
  }

  // True when `word` (a keyword of the distribute declaration kept out of the lexer) reads `expected`.
  bool is_word(antlr4::Token* word, const char* expected) {
    if (word->getText() == expected) return true;
    r_.report(DiagId::err_distribute_word, location_of(word), expected, word->getText());
    return false;
  }

  // `distribute T[i,k] over (i, k) [grid (2, 2)];` -> Tensor::distribution (ir.h).
  void distribute_decl(TceParser::DistributeDeclContext& decl) {
    if (!is_word(decl.over, "over") || (decl.gridWord && !is_word(decl.gridWord, "grid"))) return;
    auto ref = tensor_ref(*decl.tensorRef());
    if (!ref) return;
    ir::Tensor& t = p_.tensors[ref->tensor];
    if (t.role == ir::TensorRole::Intermediate) {
      r_.report(DiagId::err_distribute_intermediate, ref->loc, t.name);
      r_.report(DiagId::note_declared_here, t.loc, t.name);
      return;
    }
    if (t.distribution) {
      r_.report(DiagId::err_duplicate_distribution, ref->loc, t.name);
      r_.report(DiagId::note_previous_definition, t.distribution->loc);
      return;
    }
    ir::Distribution dist{{}, {}, location_of(decl.getStart())};
    for (auto* id : decl.idList()->ID()) {
      const auto at = std::find_if(ref->indices.begin(), ref->indices.end(),
                                   [&](int x) { return p_.indices[x].name == id->getText(); });
      if (at == ref->indices.end()) {
        r_.report(DiagId::err_distribute_not_in_ref, location_of(id->getSymbol()), id->getText(),
                  decl.tensorRef()->getText());
        return;
      }
      const int dim = static_cast<int>(at - ref->indices.begin());
      if (contains(dist.dims, dim)) {
        r_.report(DiagId::err_distribute_repeated, location_of(id->getSymbol()), id->getText());
        return;
      }
      dist.dims.push_back(dim);
    }
    if (dist.dims.size() > 3) {
      r_.report(DiagId::err_distribute_too_many, location_of(decl.idList()->getStart()), dist.dims.size());
      return;
    }
    if (decl.gridWord) {
      const auto sizes = decl.INT();
      if (sizes.size() != dist.dims.size()) {
        r_.report(DiagId::err_distribute_grid_count, location_of(decl.gridWord), sizes.size(), dist.dims.size());
        return;
      }
      for (auto* size : sizes) {
        const auto value = parse_u64(size->getText());
        if (!value || *value == 0 || *value > ir::kMaxRangeExtent) {
          r_.report(DiagId::err_not_positive, location_of(size->getSymbol()), "grid dimension", size->getText());
          return;
        }
        dist.grid.push_back(static_cast<std::int64_t>(*value));
      }
    }
    t.distribution = std::move(dist);
  }

  // Resolves `ref` against the declarations; nullopt after reporting.
  std::optional<ir::TensorRef> tensor_ref(TceParser::TensorRefContext& ref) {
    antlr4::Token* name = ref.ID()->getSymbol();
    ir::TensorRef out{p_.find_tensor(name->getText()), {}, location_of(name)};
    bool ok = true;
    if (out.tensor < 0) {
      r_.report(DiagId::err_undeclared_tensor, out.loc, name->getText());
      ok = false;
    }
    std::vector<antlr4::Token*> index_tokens;
    if (auto* list = ref.idList()) {
      for (auto* id : list->ID()) index_tokens.push_back(id->getSymbol());
    }
    for (antlr4::Token* id : index_tokens) {
      int index = p_.find_index(id->getText());
      if (index < 0) r_.report(DiagId::err_undeclared_index, location_of(id), id->getText());
      ok = ok && index >= 0;
      out.indices.push_back(index);
    }
    if (!ok) return std::nullopt;
    const ir::Tensor& t = p_.tensors[out.tensor];
    if (t.dims.size() != out.indices.size()) {
      r_.report(DiagId::err_rank_mismatch, out.loc, t.name, t.dims.size(), out.indices.size(),
                out.indices.size() == 1 ? "index" : "indices");
      r_.report(DiagId::note_declared_here, t.loc, t.name);
      return std::nullopt;
    }
    for (std::size_t d = 0; d < t.dims.size(); ++d) {
      const ir::Index& index = p_.indices[out.indices[d]];
      if (index.range == t.dims[d]) continue;
      r_.report(DiagId::err_index_range_mismatch, location_of(index_tokens[d]), index.name, p_.ranges[index.range].name,
                d + 1, t.name, p_.ranges[t.dims[d]].name);
      r_.report(DiagId::note_declared_here, t.loc, t.name);
      ok = false;
    }
    for (std::size_t d = 0; d < out.indices.size() && ok; ++d) {
      for (std::size_t e = 0; e < d; ++e) {
        if (out.indices[e] != out.indices[d]) continue;
        r_.report(DiagId::err_repeated_index, location_of(index_tokens[d]), p_.indices[out.indices[d]].name,
                  ref.getText());
        ok = false;
        break;
      }
    }
    return ok ? std::optional(out) : std::nullopt;
  }

  // Value of a number literal, or nullopt after reporting it.
  std::optional<double> number(TceParser::NumberContext& n) {
    double v = std::strtod(n.getText().c_str(), nullptr);
    if (std::isfinite(v)) return v;
    r_.report(DiagId::err_bad_number, location_of(n.getStart()), n.getText());
    return std::nullopt;
  }

  bool coefficient(TceParser::RhsContext& rhs, ir::Statement& s) {
    const bool negative = rhs.sign && rhs.sign->getText() == "-";
    std::string text = negative ? "-" : "";
    double value = 1.0;
    if (auto* c = rhs.coefficient()) {
      auto num = number(*c->numerator);
      if (!num) return false;
      value = *num;
      if (c->denominator) {
        auto den = number(*c->denominator);
        if (!den) return false;
        if (*den == 0.0) {
          r_.report(DiagId::err_division_by_zero, location_of(c->denominator->getStart()), c->getText());
          return false;
        }
        value /= *den;
      }
      text += c->getText();
    } else if (negative) {
      text += "1";
    }
    s.coefficient = negative ? -value : value;
    s.coefficient_text = text;
    return true;
  }

  void statement(TceParser::StatementContext& st) {
    ir::Statement s;
    s.loc = location_of(st.getStart());
    s.source_text = st.getStart()->getInputStream()->getText(
        antlr4::misc::Interval(st.getStart()->getStartIndex(), st.getStop()->getStopIndex()));
    const std::string op = st.assignOp()->getText();
    s.op = op == "=" ? ir::AssignOp::Assign : op == "+=" ? ir::AssignOp::Add : ir::AssignOp::Subtract;
    auto refs = st.rhs()->tensorRef();
    auto result = tensor_ref(*st.result);
    bool ok = result.has_value();
    for (auto* ref : refs) {
      auto operand = tensor_ref(*ref);
      ok = ok && operand.has_value();
      if (operand) s.operands.push_back(*operand);
    }
    ok = coefficient(*st.rhs(), s) && ok;
    if (!ok) return;
    s.result = *result;
    if (!check_roles(s) || !check_indices(s)) return;
    if (s.operands.size() > 2) {
      auto plan = plan_split(p_, s);
      if (!plan) {
        r_.report(DiagId::err_split_too_large, s.loc, s.operands.size());
        return;
      }
      splits_.emplace_back(p_.statements.size(), std::move(*plan));
    }
    p_.statements.push_back(std::move(s));
  }

  // Replaces each product of three or more operands by its binary statements (split_terms.h).
  void split_products() {
    if (splits_.empty()) return;
    std::vector<ir::Statement> out;
    auto next = splits_.begin();
    for (std::size_t i = 0; i < p_.statements.size(); ++i) {
      if (next == splits_.end() || next->first != i) {
        out.push_back(std::move(p_.statements[i]));
        continue;
      }
      for (auto& b : apply_split(p_, p_.statements[i], next->second)) out.push_back(std::move(b));
      ++next;
    }
    p_.statements = std::move(out);
    splits_.clear();
  }

  bool check_roles(const ir::Statement& s) {
    const ir::Tensor& t = p_.tensors[s.result.tensor];
    if (t.role == ir::TensorRole::Input) {
      r_.report(DiagId::err_assign_to_input, s.result.loc, t.name);
      r_.report(DiagId::note_declared_here, t.loc, t.name);
      return false;
    }
    for (const auto& operand : s.operands) {
      if (operand.tensor != s.result.tensor) continue;
      r_.report(DiagId::err_result_aliases_operand, operand.loc, t.name);
      return false;
    }
    return true;
  }

  // Einsum rules of ir::Statement: every result index on the right, no batch
  // index, summed indices in both operands (or none, for one operand). For n >= 3
  // operands, the rules that make every split into binary contractions valid
  // (split_terms.h): a result index in exactly one operand (in two or more, any
  // split has a pair holding it on both sides: a batch index), a summed index in
  // exactly two (in one, the pair that reads it would sum it on one side only, as
  // for two operands; in three or more, the pair that first joins two of its holders
  // keeps it for the third: a batch index).
  bool check_indices(const ir::Statement& s) {
    const int errors_before = r_.error_count();
    const auto& c = s.result.indices;
    const std::size_t n = s.operands.size();
    // Positions of the operands that hold `x`, in order.
    auto holders = [&](int x) {
      std::vector<std::size_t> out;
      for (std::size_t k = 0; k < n; ++k) {
        if (contains(s.operands[k].indices, x)) out.push_back(k);
      }
      return out;
    };
    for (int x : c) {
      const auto at = holders(x);
      if (at.empty()) {
        r_.report(DiagId::err_result_index_missing, s.result.loc, p_.indices[x].name);
      } else if (at.size() >= 2 && n == 2) {
        r_.report(DiagId::err_batch_index, s.operands[1].loc, p_.indices[x].name);
      } else if (at.size() >= 2) {
        r_.report(DiagId::err_split_batch_index, s.operands[at[1]].loc, p_.indices[x].name, at.size());
      }
    }
    std::vector<int> summed;  // each summed index once, in order of first appearance
    for (std::size_t k = 0; k < n; ++k) {
      for (int x : s.operands[k].indices) {
        if (contains(c, x) || contains(summed, x)) continue;
        summed.push_back(x);
        const auto at = holders(x);
        if (at.size() == 1) {
          r_.report(n == 1 ? DiagId::err_unary_reduction : DiagId::err_lonely_summed_index, s.operands[k].loc,
                    p_.indices[x].name);
        } else if (at.size() >= 3) {
          r_.report(DiagId::err_split_shared_summed_index, s.operands[at[2]].loc, p_.indices[x].name, at.size());
        }
      }
    }
    return r_.error_count() == errors_before;
  }

  Reporter& r_;
  const std::map<std::string, std::uint64_t>& defines_;
  ir::Program& p_;
  std::optional<ir::SourceLocation> machine_loc_;
  std::vector<ir::SourceLocation>
      irreps_locs_;  // each range's `irreps`, for the ranges that have them  // the first machine block, even if it had errors
  // Products of three or more operands: position in p_.statements and the chosen tree.
  std::vector<std::pair<std::size_t, SplitPlan>> splits_;
};

}  // namespace

void check_program(TceParser::ProgramContext& tree, const std::map<std::string, std::uint64_t>& defines,
                   Reporter& reporter, ir::Program& program,
                   const std::function<void(const ir::Program&)>& before_split) {
  Sema(reporter, defines, program).run(tree, before_split);
}

}  // namespace tcec::frontend
