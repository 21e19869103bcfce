// codegen/emit_contraction.cpp — one contraction's function: the plan as GemmSpec
// constants (runtime/spec/gemm_spec.h), then its method's executor and compute phase (emit.h
// MethodEmitter).
#include <algorithm>
#include <utility>

#include "codegen/emit.h"
#include "codegen/emit_resident.h"

namespace tcec::codegen {

namespace {

using costmodel::GroupTiling;

/// "5" when every rank has 5, else "3 .. 5" (min .. max over ranks).
std::string range_text(const std::vector<std::uint64_t>& v) {
  if (v.empty()) return "-";
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo == *hi ? fmt::format("{}", *lo) : fmt::format("{} .. {}", *lo, *hi);
}

/// `{{{/*i*/ 4000, 2, 1}, ...}, dist}`: GroupSpec{IndexTiling{extent, t1, t2}..., dist}, with the
/// index names of `g` in comments.
std::string group_spec_text(const tcert::GroupSpec& spec, const GroupTiling& g) {
  std::vector<std::string> indices;
  for (std::size_t k = 0; k < spec.indices.size(); ++k) {
    const tcert::IndexTiling& x = spec.indices[k];
    indices.push_back(fmt::format("{{/*{}*/ {}, {}, {}}}", comment_text(g.indices[k].name), x.extent, x.t1, x.t2));
  }
  return fmt::format("{{{{{}}}, {}}}", fmt::join(indices, ", "), spec.dist);
}

std::string group_comment(char name, const GroupTiling& g) {
  if (g.dist < 0) return fmt::format("{}: not split over the grid", name);
  return fmt::format("{}: distributed over {}", name, comment_text(g.indices[g.dist].name));
}

tcert::GroupSpec group_spec(const GroupTiling& g) {
  tcert::GroupSpec out;
  for (const costmodel::IndexTiles& x : g.indices) out.indices.push_back(x.tiling());
  out.dist = g.dist;
  return out;
}

tcert::TensorShape tensor_shape(const ir::Program& program, const ir::TensorRef& ref) {
  return codegen::tensor_shape(program, ref.tensor);
}

/// `{{"A", {4000, 4000}}, {0, 1}}`: TensorBinding{TensorShape{name, stored extents}, perm}.
std::string tensor_binding_text(const tcert::TensorBinding& b) {
  return fmt::format("{{{}, {}}}", tensor_shape_text(b.shape), braced_list(b.perm));
}

/// The emitter of sp's step: its method's, or resident accumulation's.
const MethodEmitter& step_emitter(const costmodel::StatementPlan& sp) {
  return sp.resident ? resident_emitter() : emitter_of(sp.plan);
}

/// The plan's one-line text (Plan::to_string(), or a resident step's).
std::string plan_text(const costmodel::StatementPlan& sp) {
  return sp.resident ? resident_plan_text(*sp.resident, sp.plan.processors) : sp.plan.to_string();
}

void emit_comments(CodeWriter& w, const ir::Program& program, const costmodel::StatementPlan& sp, int number) {
  const ir::Statement& s = *sp.statement;
  const costmodel::PlanVolumes& v = sp.volumes;
  w.line("// Contraction {} ({}:{}): {}", number, comment_text(program.file), s.loc.line,
         comment_text(ir::format_statement(program, s)));
  w.line("//   {}", comment_text(ir::format_macro_gemm(program, s, sp.gemm)));
  w.line("// Plan: {}", comment_text(plan_text(sp)));
  if (sp.resident)
    w.line("// A step of resident accumulation: {} stays in memory from the group's first statement to its last",
           comment_text(program.tensors.at(sp.statement->result.tensor).name));
  w.line("// Predicted per rank (bytes): disk read {}, disk write {}, sent {}, received {}; time {:.5g} s",
         range_text(v.disk_read_bytes), range_text(v.disk_write_bytes), range_text(v.comm_sent_bytes),
         range_text(v.comm_recv_bytes), v.time_s);
  std::vector<std::string> parts;
  for (const costmodel::MemoryPart& p : sp.memory.parts)
    parts.push_back(fmt::format("{} {}{}", p.what, p.bytes, p.load_stage ? " (load stage)" : ""));
  w.line("// Memory per rank (bytes): {}; peak {}", fmt::join(parts, ", "), sp.memory.peak_bytes);
  if (!sp.taken.empty()) w.line("// Hand-off: takes {}", comment_text(fmt::format("{}", fmt::join(sp.taken, ", "))));
  if (!sp.flushed.empty())
    w.line("// Flushes to the store first (kept by earlier steps): {}",
           comment_text(fmt::format("{}", fmt::join(sp.flushed, ", "))));
  if (sp.keep_result) w.line("// Keeps its result on the ranks for a later contraction");
}

/// The statements that build `spec` (gemm_spec() of sp) in the generated function.
void emit_spec(CodeWriter& w, const costmodel::StatementPlan& sp, const tcert::GemmSpec& spec) {
  const costmodel::Plan& p = sp.plan;
  const MethodEmitter& method = step_emitter(sp);
  w.line("tcert::GemmSpec spec;");
  w.line("spec.statement = {};", cpp_string_literal(spec.statement));
  w.line("spec.plan = {};", cpp_string_literal(spec.plan));
  method.emit_spec_schedule(w, spec);
  w.line("// Macro-indices: per index {{extent, t1, t2}}, then the position of the distribution index (-1: none).");
  w.line("spec.I = {};  // {}", group_spec_text(spec.I, p.I), group_comment('I', p.I));
  w.line("spec.J = {};  // {}", group_spec_text(spec.J, p.J), group_comment('J', p.J));
  w.line("spec.K = {};  // {}", group_spec_text(spec.K, p.K), group_comment('K', p.K));
  w.line("// Tensors: name and stored extents, then the stored dimension of each position of [I,K], [J,K], [I,J].");
  w.line("spec.A = {};", tensor_binding_text(spec.A));
  w.line("spec.B = {};", tensor_binding_text(spec.B));
  w.line("spec.C = {};", tensor_binding_text(spec.C));
  const bool subtract = sp.statement->op == ir::AssignOp::Subtract;
  w.line("spec.alpha = {};  // coefficient{}", spec.alpha, subtract ? ", negated for -=" : "");
  if (spec.accumulate)
    w.line("spec.accumulate = true;  // C starts from {}'s current value (an earlier statement wrote it)",
           comment_text(spec.C.shape.name));
  for (auto [take, array] : {std::pair{spec.take_A, 'A'}, std::pair{spec.take_B, 'B'}, std::pair{spec.take_C, 'C'}})
    if (take) w.line("spec.take_{} = true;  // taken rank to rank from where an earlier step kept it", array);
  if (spec.keep_result)
    w.line("spec.keep_result = true;  // {} stays on the ranks for a later contraction (not stored)",
           comment_text(spec.C.shape.name));
  for (auto [direct, array] : {std::pair{spec.direct_A, 'A'}, std::pair{spec.direct_B, 'B'}})
    if (direct) w.line("spec.direct_{} = true;  // the compute stage reads its tiles straight from the tensor", array);
  if (spec.direct_C)
    w.line("spec.direct_C = true;  // the compute stage reads and writes C's tiles in its new file in the store");
  method.emit_spec_buffers(w, spec);
  w.line("spec.planned_memory_bytes = {};  // the plan's peak per rank; the runtime refuses to need more",
         spec.planned_memory_bytes);
  w.line("// The model's volumes per rank: the compute stage, then stages 1 and 3 (and flushes).");
  for (const tcert::VolumeField& f : tcert::kVolumeFields)
    if (!tcert::optional_field(f) || !(spec.predicted.*f.member).empty())
      w.line("spec.predicted.{} = {};", f.name, braced_list(spec.predicted.*f.member));
  w.line("spec.predicted_seconds = {};  // the model's wall time for the compute stage", spec.predicted_seconds);
  for (const tcert::VolumeField& f : tcert::kStageVolumeFields)
    if (!(spec.predicted_redistribution.*f.member).empty())
      w.line("spec.predicted_redistribution.{} = {};", f.name, braced_list(spec.predicted_redistribution.*f.member));
  w.line("spec.predicted_redistribution_seconds = {};", spec.predicted_redistribution_seconds);
}

}  // namespace

tcert::GemmSpec gemm_spec(const ir::Program& program, const costmodel::Machine& machine,
                          const costmodel::StatementPlan& sp, bool accumulate) {
  TCEC_ASSERT(sp.feasible && sp.statement != nullptr, "gemm_spec needs a feasible plan");
  const ir::Statement& s = *sp.statement;
  const costmodel::Plan& p = sp.plan;
  tcert::GemmSpec spec;
  spec.statement = ir::format_statement(program, s);
  spec.plan = plan_text(sp);
  if (sp.resident)
    fill_resident_spec(*sp.resident, p.processors, spec);
  else
    emitter_of(p).fill_spec(p, machine, spec);
  spec.I = group_spec(p.I), spec.J = group_spec(p.J), spec.K = group_spec(p.K);
  spec.A = {tensor_shape(program, s.operands.at(0)), sp.gemm.perm_A};
  spec.B = {tensor_shape(program, s.operands.at(1)), sp.gemm.perm_B};
  spec.C = {tensor_shape(program, s.result), sp.gemm.perm_C};
  spec.alpha = s.coefficient * (s.op == ir::AssignOp::Subtract ? -1.0 : 1.0);
  spec.accumulate = accumulate;
  spec.take_A = sp.take_A, spec.take_B = sp.take_B, spec.take_C = sp.take_C, spec.keep_result = sp.keep_result;
  spec.direct_A = sp.direct_A, spec.direct_B = sp.direct_B, spec.direct_C = sp.direct_C;
  spec.planned_memory_bytes = sp.memory.peak_bytes;
  const costmodel::PlanVolumes& v = sp.volumes;
  spec.predicted = costmodel::rank_volumes(v);
  spec.predicted_seconds = v.wall_s;
  spec.predicted_redistribution = costmodel::stage_volumes(sp.redistribution);
  spec.predicted_redistribution_seconds = sp.redistribution.time_s;
  return spec;
}

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
  w.line("spec.out = {};", tensor_shape_text(tensor_shape(program, s.result)));
  w.line("spec.in = {};", tensor_shape_text(tensor_shape(program, in)));
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
  emit_spec(w, sp, gemm_spec(program, machine, sp, accumulate));
  step_emitter(sp).emit_executor(w, sp.plan);
  w.line("x.finish();");
  w.close();
}

tcert::TensorShape tensor_shape(const ir::Program& program, int tensor) {
  const ir::Tensor& t = program.tensors.at(tensor);
  tcert::TensorShape out{t.name, {}};
  for (int range : t.dims) out.extents.push_back(program.ranges.at(range).extent);
  return out;
}

std::string tensor_shape_text(const tcert::TensorShape& shape) {
  return fmt::format("{{{}, {}}}", cpp_string_literal(shape.name), braced_list(shape.extents));
}

}  // namespace tcec::codegen
