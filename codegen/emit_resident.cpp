// codegen/emit_resident.cpp — the resident accumulation emitter (emit_resident.h).
#include "codegen/emit_resident.h"

namespace tcec::codegen {

namespace {

class ResidentEmitter final : public MethodEmitter {
 public:
  void fill_spec(const costmodel::Plan&, const costmodel::Machine&, tcert::GemmSpec&) const override {}

  void emit_spec_schedule(CodeWriter& w, const tcert::GemmSpec& spec) const override {
    const tcert::ResidentSpec& part = std::get<tcert::ResidentSpec>(spec.method);
    w.line(
        "tcert::ResidentSpec& resident = spec.method.emplace<tcert::ResidentSpec>();  // run by tcert::ResidentGemm");
    w.line("resident.split = {};  // {}'s stored dimension whose ranges the ranks hold in memory", part.split,
           comment_text(spec.C.shape.name));
    w.line("resident.ranks = {};", part.ranks);
    w.line("resident.chunk = {};  // K columns per panel", part.chunk);
    w.line("resident.first = {};  // the group's first step: the block starts here", part.first ? "true" : "false");
    w.line("resident.last = {};  // the group's last step: the block is written here", part.last ? "true" : "false");
  }

  /// ResidentGemm sizes its block, product and panels from the spec.
  void emit_spec_buffers(CodeWriter&, const tcert::GemmSpec&) const override {}

  void emit_executor(CodeWriter& w, const costmodel::Plan&) const override {
    w.line("tcert::ResidentGemm x(run, std::move(spec));");
    w.open("x.compute([&]");
    w.line("// Resident accumulation: this rank's block of the result stays in memory across the group's");
    w.line("// statements; A and B are read in panels along K, their product added into the block");
    w.line("for (std::int64_t c = 0; c < x.chunks(); ++c) x.run_chunk(c);");
    w.close(");");
  }
};

}  // namespace

std::string resident_plan_text(const costmodel::ResidentStep& step, std::int64_t processors) {
  return fmt::format("resident split={} chunk={} P={}{}{}", step.split, step.chunk, processors,
                     step.first ? " first" : "", step.last ? " last" : "");
}

void fill_resident_spec(const costmodel::ResidentStep& step, std::int64_t processors, tcert::GemmSpec& spec) {
  tcert::ResidentSpec& part = spec.method.emplace<tcert::ResidentSpec>();
  part.split = step.split, part.ranks = processors, part.chunk = step.chunk;
  part.first = step.first, part.last = step.last;
}

const MethodEmitter& resident_emitter() {
  static const ResidentEmitter kEmitter;
  return kEmitter;
}

}  // namespace tcec::codegen
