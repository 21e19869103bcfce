// codegen/emit_contraction.cpp — one contraction's function: the plan as GemmSpec
// constants (runtime/gemm.h), then the DistributedGemm and its loop nest.
#include <algorithm>
#include <utility>

#include "codegen/emit.h"

namespace tcec::codegen {

namespace {

using costmodel::Algorithm;
using costmodel::CommMethod;
using costmodel::GroupTiling;

/// "5" when every rank has 5, else "3 .. 5" (min .. max over ranks).
std::string range_text(const std::vector<std::uint64_t>& v) {
  if (v.empty()) return "-";
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo == *hi ? fmt::format("{}", *lo) : fmt::format("{} .. {}", *lo, *hi);
}

/// `{{{/*i*/ 4000, 2, 1}, ...}, dist}`: GroupSpec{IndexTiling{extent, t1, t2}..., dist}.
std::string group_spec(const GroupTiling& g) {
  std::vector<std::string> indices;
  for (const costmodel::IndexTiles& x : g.indices)
    indices.push_back(fmt::format("{{/*{}*/ {}, {}, {}}}", comment_text(x.name), x.extent, x.t1, x.t2));
  return fmt::format("{{{{{}}}, {}}}", fmt::join(indices, ", "), g.dist);
}

std::string group_comment(char name, const GroupTiling& g) {
  if (g.dist < 0) return fmt::format("{}: not split over the grid", name);
  return fmt::format("{}: distributed over {}", name, comment_text(g.indices[g.dist].name));
}

/// `{"A", {4000, 4000}}`: TensorShape{name, stored extents}.
std::string tensor_shape(const ir::Program& program, const ir::TensorRef& ref) {
  const ir::Tensor& t = program.tensors.at(ref.tensor);
  std::vector<std::uint64_t> extents;
  for (int range : t.dims) extents.push_back(program.ranges.at(range).extent);
  return fmt::format("{{{}, {}}}", cpp_string_literal(t.name), braced_list(extents));
}

/// `{{"A", {4000, 4000}}, {0, 1}}`: TensorBinding{TensorShape{name, stored extents}, perm}.
std::string tensor_binding(const ir::Program& program, const ir::TensorRef& ref, const std::vector<int>& perm) {
  return fmt::format("{{{}, {}}}", tensor_shape(program, ref), braced_list(perm));
}

const char* comm_enum(CommMethod c) { return c == CommMethod::Inside ? "Inside" : "Outside"; }

const char* algorithm_enum(Algorithm a) {
  switch (a) {
    case Algorithm::Rotation: return "Rotation";
    case Algorithm::Replication: return "Replication";
    case Algorithm::Accumulation: return "Accumulation";
    case Algorithm::Cosma: return "Cosma";
  }
  return "?";
}

void emit_comments(CodeWriter& w, const ir::Program& program, const costmodel::StatementPlan& sp, int number) {
  const ir::Statement& s = *sp.statement;
  const costmodel::PlanVolumes& v = sp.volumes;
  w.line("// Contraction {} ({}:{}): {}", number, comment_text(program.file), s.loc.line,
         comment_text(ir::format_statement(program, s)));
  w.line("//   {}", comment_text(ir::format_macro_gemm(program, s, sp.gemm)));
  w.line("// Plan: {}", comment_text(sp.plan.to_string()));
  w.line("// Predicted per rank (bytes): disk read {}, disk write {}, sent {}, received {}; time {:.5g} s",
         range_text(v.disk_read_bytes), range_text(v.disk_write_bytes), range_text(v.comm_sent_bytes),
         range_text(v.comm_recv_bytes), v.time_s);
  if (!sp.taken.empty()) w.line("// Hand-off: takes {}", comment_text(fmt::format("{}", fmt::join(sp.taken, ", "))));
  if (!sp.flushed.empty())
    w.line("// Flushes to the store first (kept by earlier steps): {}", comment_text(fmt::format("{}", fmt::join(sp.flushed, ", "))));
  if (sp.keep_result) w.line("// Keeps its result on the ranks for a later contraction");
}

void emit_spec(CodeWriter& w, const ir::Program& program, const costmodel::Machine& machine,
               const costmodel::StatementPlan& sp, bool accumulate) {
  const ir::Statement& s = *sp.statement;
  const costmodel::Plan& p = sp.plan;
  const costmodel::PlanVolumes& v = sp.volumes;
  w.line("tcert::GemmSpec spec;");
  w.line("spec.statement = {};", cpp_string_literal(ir::format_statement(program, s)));
  w.line("spec.plan = {};", cpp_string_literal(p.to_string()));
  w.line("spec.order = \"{}\";", p.algorithm == Algorithm::Cosma ? "-" : costmodel::to_string(p.order));
  w.line("spec.comm = tcert::Communication::{};", comm_enum(p.comm));
  w.line("spec.algorithm = tcert::Algorithm::{};", algorithm_enum(p.algorithm));
  if (p.algorithm == Algorithm::Replication)
    w.line("spec.broadcast = tcert::Operand::{};", costmodel::to_string(p.replicated));
  if (p.algorithm == Algorithm::Cosma) {
    w.line("spec.cosma_grid[0] = {};  // pm: ranks along I", p.cosma.pm);
    w.line("spec.cosma_grid[1] = {};  // pn: ranks along J", p.cosma.pn);
    w.line("spec.cosma_grid[2] = {};  // pk: ranks along K", p.cosma.pk);
    w.line("spec.cosma_rounds = {};  // t: rounds along K", p.cosma.rounds);
  }
  w.line("// Macro-indices: per index {{extent, t1, t2}}, then the position of the distribution index (-1: none).");
  w.line("spec.I = {};  // {}", group_spec(p.I), group_comment('I', p.I));
  w.line("spec.J = {};  // {}", group_spec(p.J), group_comment('J', p.J));
  w.line("spec.K = {};  // {}", group_spec(p.K), group_comment('K', p.K));
  w.line("// Tensors: name and stored extents, then the stored dimension of each position of [I,K], [J,K], [I,J].");
  w.line("spec.A = {};", tensor_binding(program, s.operands.at(0), sp.gemm.perm_A));
  w.line("spec.B = {};", tensor_binding(program, s.operands.at(1), sp.gemm.perm_B));
  w.line("spec.C = {};", tensor_binding(program, s.result, sp.gemm.perm_C));
  const double sign = s.op == ir::AssignOp::Subtract ? -1.0 : 1.0;
  w.line("spec.alpha = {};  // coefficient{}", s.coefficient * sign, s.op == ir::AssignOp::Subtract ? ", negated for -=" : "");
  if (accumulate)
    w.line("spec.accumulate = true;  // C starts from {}'s current value (an earlier statement wrote it)",
           comment_text(program.tensors.at(s.result.tensor).name));
  for (auto [take, array] : {std::pair{sp.take_A, 'A'}, std::pair{sp.take_B, 'B'}, std::pair{sp.take_C, 'C'}})
    if (take) w.line("spec.take_{} = true;  // taken rank to rank from where an earlier step kept it", array);
  if (sp.keep_result)
    w.line("spec.keep_result = true;  // {} stays on the ranks for a later contraction (not stored)",
           comment_text(program.tensors.at(s.result.tensor).name));
  if (p.algorithm != Algorithm::Cosma) {   // CosmaGemm sizes its block and slices itself
    const costmodel::TileBytes tb = costmodel::tile_bytes(p, machine.element_size_bytes);
    const auto e = static_cast<std::uint64_t>(machine.element_size_bytes);
    w.line("spec.capacity_A = {};  // tile buffer elements per rank", tb.A / e);
    w.line("spec.capacity_B = {};", tb.B / e);
    w.line("spec.capacity_C = {};", tb.C / e);
  }
  w.line("spec.predicted[0] = {};  // disk read bytes per rank", braced_list(v.disk_read_bytes));
  w.line("spec.predicted[1] = {};  // disk write bytes per rank", braced_list(v.disk_write_bytes));
  w.line("spec.predicted[2] = {};  // bytes sent per rank", braced_list(v.comm_sent_bytes));
  w.line("spec.predicted[3] = {};  // bytes received per rank", braced_list(v.comm_recv_bytes));
  w.line("spec.predicted_seconds = {};  // the model's time for these bytes", v.time_s);
  const costmodel::PlanVolumes& r = sp.redistribution;
  w.line("spec.predicted_redistribution[0] = {};  // bytes read per rank laying out the operands and storing C (and flushes)",
         braced_list(r.disk_read_bytes));
  w.line("spec.predicted_redistribution[1] = {};  // bytes written per rank", braced_list(r.disk_write_bytes));
  w.line("spec.predicted_redistribution_seconds = {};", r.time_s);
}

}  // namespace

void emit_copy(CodeWriter& w, const ir::Program& program, const ir::Statement& s, int number, bool accumulate) {
  const ir::TensorRef& in = s.operands.at(0);
  std::vector<int> in_dim_of_out;
  for (int index : s.result.indices) {
    const auto at = std::find(in.indices.begin(), in.indices.end(), index);
    TCEC_ASSERT(at != in.indices.end(), "a one-operand statement has the same indices on both sides");
    in_dim_of_out.push_back(static_cast<int>(at - in.indices.begin()));
  }
  const double sign = s.op == ir::AssignOp::Subtract ? -1.0 : 1.0;
  w.line("// Copy {} ({}:{}): {}", number, comment_text(program.file), s.loc.line,
         comment_text(ir::format_statement(program, s)));
  w.open("void copy_{}(tcert::Run& run)", number);
  w.line("tcert::CopySpec spec;");
  w.line("spec.statement = {};", cpp_string_literal(ir::format_statement(program, s)));
  w.line("spec.out = {};", tensor_shape(program, s.result));
  w.line("spec.in = {};", tensor_shape(program, in));
  w.line("spec.in_dim_of_out = {};  // per dimension of out, the dimension of in with its index",
         braced_list(in_dim_of_out));
  w.line("spec.alpha = {};", s.coefficient * sign);
  if (accumulate) w.line("spec.accumulate = true;  // out starts from its current value");
  w.line("tcert::copy_step(run, spec);  // every rank a balanced range of out's elements");
  w.close();
}

void emit_contraction(CodeWriter& w, const ir::Program& program, const costmodel::Machine& machine,
                      const costmodel::StatementPlan& sp, int number, bool accumulate) {
  TCEC_ASSERT(sp.feasible && sp.statement != nullptr, "check_program rejects infeasible plans");
  emit_comments(w, program, sp, number);
  w.open("void contraction_{}(tcert::Run& run)", number);
  emit_spec(w, program, machine, sp, accumulate);
  if (sp.plan.algorithm == Algorithm::Cosma) {
    w.line("tcert::CosmaGemm x(run, std::move(spec));");
    emit_cosma_compute(w, sp.plan);
  } else {
    w.line("tcert::DistributedGemm x(run, std::move(spec));");
    emit_compute(w, sp.plan);
  }
  w.line("x.finish();");
  w.close();
}

}  // namespace tcec::codegen
