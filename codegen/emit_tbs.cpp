// codegen/emit_tbs.cpp — the tbs emitter: the plan's triangle blocks (costmodel/schedules.h,
// TbsSchedule), each with its rank, written into the GemmSpec as a tcert::TbsSpec, and the compute
// phase running this rank's blocks through tcert::TbsGemm (runtime/spec/tbs_spec.h THE SCHEDULE).
#include "codegen/emit_tbs.h"

#include "costmodel/schedules.h"

namespace tcec::codegen {

namespace {

class TbsEmitter final : public MethodEmitter {
 public:
  void fill_spec(const costmodel::Plan& plan, const costmodel::Machine&, tcert::GemmSpec& spec) const override {
    const costmodel::TbsSchedule s = costmodel::tbs_schedule(plan);
    tcert::TbsSpec& part = spec.method.emplace<tcert::TbsSpec>();
    part.chunk = costmodel::tbs_plan(plan).chunk;
    part.panel_rows = s.buffer_rows(part.chunk);
    part.block_elements = s.block_elements;
    for (const costmodel::TbsBlock& b : s.blocks)
      part.blocks.push_back({b.rank, b.diagonal, b.starts, b.lengths, b.stream});
  }

  void emit_spec_schedule(CodeWriter& w, const tcert::GemmSpec& spec) const override {
    const tcert::TbsSpec& part = std::get<tcert::TbsSpec>(spec.method);
    w.line("tcert::TbsSpec& tbs = spec.method.emplace<tcert::TbsSpec>();  // run by tcert::TbsGemm");
    w.line("tbs.chunk = {};  // K columns per A panel", part.chunk);
    w.line("tbs.panel_rows = {};  // rows of the largest block's A panel", part.panel_rows);
    w.line("tbs.block_elements = {};  // elements of the largest C block", part.block_elements);
    w.line("// Triangle blocks: {{rank, diagonal, first rows of R_0 .. R_k-1, their lengths[, stream]}}; C[R_u,R_v]");
    w.line("// for u > v (and the lower triangles of C[R_u,R_u] when diagonal); a stream block: C[R_u,R_0] only.");
    w.open("tbs.blocks =");
    for (const tcert::TbsBlock& b : part.blocks)
      w.line("{{{}, {}, {}, {}{}}},", b.rank, b.diagonal ? "true" : "false", braced_list(b.starts),
             braced_list(b.lengths), b.stream ? ", true" : "");
    w.close(";");
  }

  /// TbsGemm sizes its C block and A panel from the spec's schedule.
  void emit_spec_buffers(CodeWriter&, const tcert::GemmSpec&) const override {}

  void emit_executor(CodeWriter& w, const costmodel::Plan& plan) const override {
    const costmodel::TbsSchedule s = costmodel::tbs_schedule(plan);
    w.line("tcert::TbsGemm x(run, std::move(spec));");
    w.open("x.compute([&]");
    w.line("// TBS (Beaumont et al. SPAA'22 Algorithm 4, tiled): {} triangle blocks over {} ranks; each reads its",
           s.blocks.size(), plan.processors);
    w.line("// rows of A in panels of {} K columns and writes its tiles and their mirrors into C's file",
           costmodel::tbs_plan(plan).chunk);
    w.line("for (std::int64_t b = 0; b < x.blocks(); ++b) x.run_block(b);");
    w.close(");");
  }
};

}  // namespace

const MethodEmitter& emitter_for(const costmodel::TbsPlan&) {
  static const TbsEmitter kEmitter;
  return kEmitter;
}

}  // namespace tcec::codegen
