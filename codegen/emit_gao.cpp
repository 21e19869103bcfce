// codegen/emit_gao.cpp — the Gao methods' emitter: their schedule in the GemmSpec
// (communication, algorithm, broadcast operand, order, tile capacities) and
// tcert::GaoGemm running the loop nest of emit_nest.cpp.
#include "codegen/emit_gao.h"

#include <cctype>

namespace tcec::codegen {

namespace {

/// The enumerator of a value named `name` (runtime/spec/vocabulary.h to_string()): the name
/// capitalized, "inside" -> "Inside".
std::string enumerator(const char* name) {
  std::string out(name);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

class GaoEmitter final : public MethodEmitter {
 public:
  void fill_spec(const costmodel::Plan& plan, const costmodel::Machine& machine, tcert::GemmSpec& spec) const override {
    const costmodel::GaoPlan& g = std::get<costmodel::GaoPlan>(plan.method);
    tcert::GaoSpec& part = spec.method.emplace<tcert::GaoSpec>();
    part.comm = g.comm, part.algorithm = g.algorithm, part.broadcast = g.replicated, part.order = g.order;
    const costmodel::TileBytes tb = costmodel::tile_bytes(plan, machine.element_size_bytes);
    const auto e = static_cast<std::uint64_t>(machine.element_size_bytes);
    part.capacity_A = tb.A / e, part.capacity_B = tb.B / e, part.capacity_C = tb.C / e;
    part.overlap = g.overlap;
  }

  void emit_spec_schedule(CodeWriter& w, const tcert::GemmSpec& spec) const override {
    const tcert::GaoSpec& part = std::get<tcert::GaoSpec>(spec.method);
    w.line("tcert::GaoSpec& gao = spec.method.emplace<tcert::GaoSpec>();  // run by tcert::GaoGemm");
    w.line("gao.comm = tcert::Communication::{};", enumerator(tcert::to_string(part.comm)));
    w.line("gao.algorithm = tcert::Algorithm::{};", enumerator(tcert::to_string(part.algorithm)));
    if (part.algorithm == tcert::Algorithm::Replication)
      w.line("gao.broadcast = tcert::Operand::{};", tcert::to_string(part.broadcast));
    w.line("gao.order = tcert::PlacementOrder::{};  // the loop nest's disk placement order",
           tcert::to_string(part.order));
  }

  void emit_spec_buffers(CodeWriter& w, const tcert::GemmSpec& spec) const override {
    const tcert::GaoSpec& part = std::get<tcert::GaoSpec>(spec.method);
    w.line("gao.capacity_A = {};  // tile buffer elements per rank", part.capacity_A);
    w.line("gao.capacity_B = {};", part.capacity_B);
    w.line("gao.capacity_C = {};", part.capacity_C);
    if (part.overlap)
      w.line("gao.overlap = true;  // a second buffer of each: the I/O thread reads ahead and writes behind");
  }

  void emit_executor(CodeWriter& w, const costmodel::Plan& plan) const override {
    w.line("tcert::GaoGemm x(run, std::move(spec));");
    emit_compute(w, plan);
  }
};

}  // namespace

const MethodEmitter& emitter_for(const costmodel::GaoPlan&) {
  static const GaoEmitter kEmitter;
  return kEmitter;
}

}  // namespace tcec::codegen
