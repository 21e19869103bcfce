// frontend/tamm/build.cpp — build_program(): a TAMM function's operations (tamm::Function) in,
// ir::Program statements out. Tensor roles, input blocks NAME_TYPES, the copy of a tensor
// updated in place, and `= 0` folded into the next write, as import_tamm() (tamm.h) states them.
#include <algorithm>

#include "frontend/tamm/tamm.h"

namespace tcec::frontend::tamm {

namespace {

constexpr int kOccupied = 0;  // range ids: O first, V second
constexpr int kVirtual = 1;

// What the operations so far did to one tensor variable.
struct VarState {
  bool written = false;       // an operation wrote or cleared it (an output once a parameter is)
  bool pending_zero = false;  // `= 0` since its last write: the next write starts from zero
  ir::SourceLocation zero_loc;
  int output = -1;          // a parameter's output tensor
  std::string output_text;  // the reference that made it, for err_tamm_output_block
  int output_line = 0;
  int intermediate = -1;  // a local's tensor
};

class Builder {
 public:
  Builder(const Function& f, Reporter& r, ir::Program& p) : f_(f), r_(r), p_(p), vars_(f.tensors.size()) {}

  void run() {
    for (const Operation& op : f_.operations) {
      if (r_.full()) return;
      operation(op);
    }
    for (std::size_t v = 0; v < vars_.size(); ++v) {
      const VarState& s = vars_[v];
      if (f_.tensors[v].parameter && s.pending_zero)  // an output must end with a write
        r_.report(DiagId::err_tamm_zero_last, s.zero_loc, f_.tensors[v].name);
    }
    if (p_.statements.empty() && !r_.has_errors()) r_.report(DiagId::err_tamm_no_operations, f_.loc, f_.name);
  }

 private:
  // The range of a label (its sub-space), or -1 after reporting.
  int range_of(const Label& l) {
    if (l.space == "occ") return kOccupied;
    if (l.space == "virt") return kVirtual;
    r_.report(DiagId::err_tamm_unknown_space, l.loc, l.name, l.space);
    return -1;
  }

  // The index variable of a label (made on first use), or -1 after reporting.
  int index(const Label& l) {
    const int range = range_of(l);
    if (range < 0) return -1;
    const int id = p_.find_index(l.name);
    if (id < 0) {
      p_.indices.push_back({l.name, range, l.loc});
      return static_cast<int>(p_.indices.size()) - 1;
    }
    if (p_.indices[id].range == range) return id;
    r_.report(DiagId::err_tamm_label_respaced, l.loc, l.name, l.space, range == kOccupied ? "virt" : "occ",
              p_.indices[id].loc.line);
    return -1;
  }

  // Index ids of a use's labels; false after reporting.
  bool indices(const TensorUse& use, std::vector<int>& out) {
    bool good = true;
    for (const Label& l : use.labels) {
      out.push_back(index(l));
      good = good && out.back() >= 0;
    }
    return good;
  }

  // "hphh": one letter per label, h for O and p for V.
  std::string types(const std::vector<int>& ids) const {
    std::string out;
    for (int x : ids) out += p_.indices[x].range == kOccupied ? 'h' : 'p';
    return out;
  }

  // A new tensor of variable `var`; -1 after reporting when another variable has one of that name.
  int make_tensor(int var, const std::string& name, std::vector<int> dims, ir::TensorRole role,
                  ir::SourceLocation loc) {
    if (const int other = p_.find_tensor(name); other >= 0) {
      const TensorVar& owner = f_.tensors[owner_[other]];
      r_.report(DiagId::err_tamm_name_clash, loc, name, owner.name, owner.loc.line);
      return -1;
    }
    p_.tensors.push_back({name, std::move(dims), role, loc, {}});
    owner_.push_back(var);
    return static_cast<int>(p_.tensors.size()) - 1;
  }

  std::vector<int> ranges(const std::vector<int>& ids) const {
    std::vector<int> out;
    for (int x : ids) out.push_back(p_.indices[x].range);
    return out;
  }

  // A local's tensor, made on first use with its declared dimensions; -1 after reporting.
  int intermediate(int var) {
    VarState& s = vars_[var];
    if (s.intermediate >= 0) return s.intermediate;
    const TensorVar& v = f_.tensors[var];
    std::vector<int> dims;
    bool good = true;
    for (std::size_t d = 0; d < v.spaces.size(); ++d) {
      const std::string& space = v.spaces[d];
      if (space != "occ" && space != "virt") {
        r_.report(DiagId::err_tamm_unknown_dimension, v.loc, d + 1, v.name, space);
        good = false;
      }
      dims.push_back(space == "occ" ? kOccupied : kVirtual);
    }
    if (!good) return -1;
    return s.intermediate = make_tensor(var, v.name, std::move(dims), ir::TensorRole::Intermediate, v.loc);
  }

  // The dimensions of `tensor` against a use's labels: rank and ranges.
  bool check_shape(int tensor, const TensorUse& use, const std::vector<int>& ids) {
    const ir::Tensor& t = p_.tensors[tensor];
    if (t.dims.size() != ids.size()) {
      r_.report(DiagId::err_rank_mismatch, use.loc, t.name, t.dims.size(), ids.size(),
                ids.size() == 1 ? "label" : "labels");
      r_.report(DiagId::note_declared_here, t.loc, t.name);
      return false;
    }
    for (std::size_t d = 0; d < ids.size(); ++d) {
      if (t.dims[d] == p_.indices[ids[d]].range) continue;
      r_.report(DiagId::err_index_range_mismatch, use.labels[d].loc, use.labels[d].name,
                p_.ranges[p_.indices[ids[d]].range].name, d + 1, t.name, p_.ranges[t.dims[d]].name);
      return false;
    }
    return true;
  }

  // The tensor an operand reads; -1 after reporting.
  int read(const TensorUse& use) {
    std::vector<int> ids;
    if (!indices(use, ids)) return -1;
    const TensorVar& v = f_.tensors[use.tensor];
    VarState& s = vars_[use.tensor];
    if (s.pending_zero || (!v.parameter && !s.written)) {
      if (s.pending_zero)
        r_.report(DiagId::err_tamm_read_zeroed, use.loc, v.name, s.zero_loc.line);
      else
        r_.report(DiagId::err_tamm_read_unwritten, use.loc, v.name);
      return -1;
    }
    if (!v.parameter) {
      const int t = intermediate(use.tensor);
      return t >= 0 && check_shape(t, use, ids) ? t : -1;
    }
    if (s.written) return output_block(use, ids) ? s.output : -1;
    return input(use.tensor, ids, use.loc);
  }

  // A parameter's input block NAME_TYPES (made on first use); -1 after reporting.
  int input(int var, const std::vector<int>& ids, ir::SourceLocation loc) {
    const std::string& name = f_.tensors[var].name;
    const std::string block = ids.empty() ? name : name + "_" + types(ids);
    const int id = p_.find_tensor(block);
    if (id >= 0 && owner_[id] == var && p_.tensors[id].role == ir::TensorRole::Input) return id;
    return make_tensor(var, block, ranges(ids), ir::TensorRole::Input, loc);
  }

  // Whether a use of a parameter that has an output is that output's block.
  bool output_block(const TensorUse& use, const std::vector<int>& ids) {
    const VarState& s = vars_[use.tensor];
    const ir::Tensor& t = p_.tensors[s.output];
    bool same = t.dims.size() == ids.size();
    for (std::size_t d = 0; same && d < ids.size(); ++d) same = t.dims[d] == p_.indices[ids[d]].range;
    if (!same) r_.report(DiagId::err_tamm_output_block, use.loc, t.name, s.output_text, s.output_line, use.text);
    return same;
  }

  // The tensor an operation writes (making a parameter's output, after the copy of its input
  // block when the operation adds to its values); -1 after reporting.
  int write(const Operation& op, const std::vector<int>& ids) {
    const int var = op.lhs.tensor;
    const TensorVar& v = f_.tensors[var];
    VarState& s = vars_[var];
    if (!v.parameter) {
      const int t = intermediate(var);
      return t >= 0 && check_shape(t, op.lhs, ids) ? t : -1;
    }
    if (s.output >= 0) return output_block(op.lhs, ids) ? s.output : -1;
    s.output = make_tensor(var, v.name, ranges(ids), ir::TensorRole::Output, op.lhs.loc);
    if (s.output < 0) return -1;
    s.output_text = op.lhs.text;
    s.output_line = op.lhs.loc.line;
    if (s.written || op.kind == OpKind::Assign) return s.output;
    // Updated in place: its value so far is the input block, copied in first.
    const int block = input(var, ids, op.lhs.loc);
    if (block < 0) return -1;
    ir::Statement copy;
    copy.result = {s.output, ids, op.lhs.loc};
    copy.op = ir::AssignOp::Assign;
    copy.operands.push_back({block, ids, op.lhs.loc});
    copy.loc = op.loc;
    copy.source_text =
        ir::format_statement(p_, copy) + fmt::format("   [{} is updated in place: its input first]", v.name);
    p_.statements.push_back(std::move(copy));
    return s.output;
  }

  void zero(const Operation& op) {
    VarState& s = vars_[op.lhs.tensor];
    std::vector<int> ids;
    if (!op.lhs.labels.empty() && !indices(op.lhs, ids)) return;
    if (!op.lhs.labels.empty() && !f_.tensors[op.lhs.tensor].parameter) {
      const int t = intermediate(op.lhs.tensor);
      if (t < 0 || !check_shape(t, op.lhs, ids)) return;
    } else if (!op.lhs.labels.empty() && s.output >= 0 && !output_block(op.lhs, ids)) {
      return;
    }
    s.written = true;
    s.pending_zero = true;
    s.zero_loc = op.loc;
  }

  void operation(const Operation& op) {
    if (op.zero) return zero(op);
    if (op.operands.size() > 2) {
      r_.report(DiagId::err_too_many_operands, op.loc, op.operands.size());
      return;
    }
    std::vector<ir::TensorRef> operands;
    bool good = true;
    for (const TensorUse& use : op.operands) {
      const int t = read(use);
      good = good && t >= 0;
      operands.push_back({t, {}, use.loc});
      if (t >= 0) indices(use, operands.back().indices);
    }
    std::vector<int> ids;
    if (!good || !indices(op.lhs, ids)) return;
    VarState& s = vars_[op.lhs.tensor];
    const int result = write(op, ids);
    if (result < 0 || !check_einsum(op, result, ids, operands)) return;
    ir::Statement st;
    st.result = {result, ids, op.lhs.loc};
    st.op = op.kind == OpKind::Assign ? ir::AssignOp::Assign
            : op.kind == OpKind::Add  ? ir::AssignOp::Add
                                      : ir::AssignOp::Subtract;
    st.coefficient = op.coefficient;
    st.coefficient_text = op.has_coefficient ? fmt::format("{}", op.coefficient) : "";
    st.source_text = op.text;
    if (s.pending_zero && op.kind != OpKind::Assign) {  // `X = 0` then `X += c * A`: X = c * A
      if (op.kind == OpKind::Subtract) {
        st.coefficient = -op.coefficient;
        st.coefficient_text = fmt::format("{}", -op.coefficient);
      }
      st.op = ir::AssignOp::Assign;
      st.source_text += fmt::format("   [after '= 0' at line {}]", s.zero_loc.line);
    }
    st.operands = std::move(operands);
    st.loc = op.loc;
    p_.statements.push_back(std::move(st));
    s.written = true;
    s.pending_zero = false;
  }

  // ir::Statement's einsum rules, reported at the offending label.
  bool check_einsum(const Operation& op, int result, const std::vector<int>& c, const std::vector<ir::TensorRef>& ops) {
    const int before = r_.error_count();
    auto has = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    auto repeated = [&](const TensorUse& use, const std::vector<int>& ids) {
      for (std::size_t d = 0; d < ids.size(); ++d) {
        if (!has(std::vector<int>(ids.begin(), ids.begin() + static_cast<long>(d)), ids[d])) continue;
        r_.report(DiagId::err_repeated_index, use.labels[d].loc, use.labels[d].name, use.text);
        return;
      }
    };
    repeated(op.lhs, c);
    for (std::size_t k = 0; k < ops.size(); ++k) {
      repeated(op.operands[k], ops[k].indices);
      if (ops[k].tensor == result)
        r_.report(DiagId::err_result_aliases_operand, op.operands[k].loc, p_.tensors[result].name);
    }
    if (r_.error_count() != before) return false;
    static const std::vector<int> kNone;
    const std::vector<int>& a = ops[0].indices;
    const std::vector<int>& b = ops.size() > 1 ? ops[1].indices : kNone;
    for (std::size_t d = 0; d < c.size(); ++d) {
      if (!has(a, c[d]) && !has(b, c[d])) {
        r_.report(DiagId::err_result_index_missing, op.lhs.labels[d].loc, op.lhs.labels[d].name);
      } else if (has(a, c[d]) && has(b, c[d])) {
        const auto pos = std::find(b.begin(), b.end(), c[d]) - b.begin();
        r_.report(DiagId::err_batch_index, op.operands[1].labels[pos].loc, op.lhs.labels[d].name);
      }
    }
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const std::vector<int>& other = k == 0 ? b : a;
      for (std::size_t d = 0; d < ops[k].indices.size(); ++d) {
        const int x = ops[k].indices[d];
        if (has(c, x) || (ops.size() == 2 && has(other, x))) continue;
        r_.report(ops.size() == 1 ? DiagId::err_unary_reduction : DiagId::err_lonely_summed_index,
                  op.operands[k].labels[d].loc, op.operands[k].labels[d].name);
      }
    }
    return r_.error_count() == before;
  }

  const Function& f_;
  Reporter& r_;
  ir::Program& p_;
  std::vector<VarState> vars_;
  std::vector<int> owner_;  // per tensor of p_, its variable in f_.tensors
};

}  // namespace

bool build_program(const Function& function, Reporter& reporter, ir::Program& program) {
  const int before = reporter.error_count();
  Builder(function, reporter, program).run();
  return reporter.error_count() == before;
}

}  // namespace tcec::frontend::tamm
