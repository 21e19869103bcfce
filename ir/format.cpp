// ir/format.cpp — canonical text forms of IR objects for reports and diagnostics.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/ir.h"

namespace tcec::ir {

const char* to_string(TensorRole role) {
  switch (role) {
    case TensorRole::Input: return "input";
    case TensorRole::Output: return "output";
    case TensorRole::Intermediate: return "intermediate";
  }
  return "?";
}

const char* to_string(AssignOp op) {
  switch (op) {
    case AssignOp::Assign: return "=";
    case AssignOp::Add: return "+=";
    case AssignOp::Subtract: return "-=";
  }
  return "?";
}

std::string format_index_set(const Program& program, const std::vector<int>& indices) {
  std::string out = "{";
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (i) out += ",";
    out += program.indices.at(indices[i]).name;
  }
  return out + "}";
}

std::string format_ref(const Program& program, const TensorRef& ref) {
  std::string out = program.tensors.at(ref.tensor).name + "[";
  for (std::size_t i = 0; i < ref.indices.size(); ++i) {
    if (i) out += ",";
    out += program.indices.at(ref.indices[i]).name;
  }
  return out + "]";
}

std::string format_statement(const Program& program, const Statement& s) {
  std::string out = fmt::format("{} {} ", format_ref(program, s.result), to_string(s.op));
  if (!s.coefficient_text.empty()) out += s.coefficient_text + " * ";
  for (std::size_t i = 0; i < s.operands.size(); ++i) {
    if (i) out += " * ";
    out += format_ref(program, s.operands[i]);
  }
  return out;
}

std::string format_program(const Program& program) {
  std::string out;
  if (program.symmetry)
    out += fmt::format("symmetry {}{};\n", program.symmetry->name, program.symmetry->restricted ? " restricted" : "");
  for (const Range& r : program.ranges)
    out += fmt::format("range {} = {}{};\n", r.name, r.extent,
                       r.irreps.empty() ? std::string() : fmt::format(" irreps ({})", fmt::join(r.irreps, ", ")));
  for (const Index& i : program.indices)
    out += fmt::format("index {} : {};\n", i.name, program.ranges.at(i.range).name);
  for (const Tensor& t : program.tensors) {
    std::vector<std::string> dims;
    for (int d : t.dims) dims.push_back(program.ranges.at(d).name);
    std::string attributes;  // the symmetry attributes that differ from the defaults
    if (program.symmetry && t.upper >= 0) attributes += fmt::format(" upper {}", t.upper);
    if (program.symmetry && t.irrep != 0) attributes += fmt::format(" irrep {}", t.irrep);
    if (program.symmetry && t.dense) attributes += " dense";
    out += fmt::format("tensor {}[{}] {}{};\n", t.name, fmt::join(dims, ","), to_string(t.role), attributes);
  }
  for (const Statement& s : program.statements)
    out += fmt::format("{};  # line {}\n", format_statement(program, s), s.loc.line);
  if (program.machine) out += fmt::format("# machine {}: P = {}\n", program.machine->name, program.machine->processors);
  return out;
}

std::string format_macro_gemm(const Program& program, const Statement& s, const MacroIndexGemm& g) {
  return fmt::format("{}(I,J) {} A(I,K) * B(J,K) with A = {}, B = {}; I = {}, J = {}, K = {}",
                     program.tensors.at(s.result.tensor).name, to_string(s.op),
                     program.tensors.at(s.operands[0].tensor).name, program.tensors.at(s.operands[1].tensor).name,
                     format_index_set(program, g.I), format_index_set(program, g.J), format_index_set(program, g.K));
}

}  // namespace tcec::ir
