// codegen/emit_sfc.cpp — the sfc emitter: the plan's tile grid, chunk, cache slots and the
// curve's order with each rank's segment (costmodel/schedules.h) as a tcert::SfcSpec,
// and the compute phase walking this rank's tiles through tcert::SfcGemm (runtime/spec/sfc_spec.h).
#include "codegen/emit_sfc.h"

#include "costmodel/schedules.h"

namespace tcec::codegen {

namespace {

class SfcEmitter final : public MethodEmitter {
 public:
  void fill_spec(const costmodel::Plan& plan, const costmodel::Machine&, tcert::GemmSpec& spec) const override {
    const costmodel::SfcPlan& p = costmodel::sfc_plan(plan);
    const costmodel::SfcSchedule s = costmodel::sfc_schedule(plan);
    tcert::SfcSpec& part = spec.method.emplace<tcert::SfcSpec>();
    part.tiles_I = p.tiles_I, part.tiles_J = p.tiles_J, part.chunk = p.chunk, part.slots = p.slots;
    part.layers = p.layers;
    part.order = s.order, part.segment = s.segment;
  }

  void emit_spec_schedule(CodeWriter& w, const tcert::GemmSpec& spec) const override {
    const tcert::SfcSpec& part = std::get<tcert::SfcSpec>(spec.method);
    w.line("tcert::SfcSpec& sfc = spec.method.emplace<tcert::SfcSpec>();  // run by tcert::SfcGemm");
    w.line("sfc.tiles_I = {};  // C's tile grid: balanced tiles of flat I", part.tiles_I);
    w.line("sfc.tiles_J = {};  // and of flat J", part.tiles_J);
    w.line("sfc.chunk = {};  // K columns per panel", part.chunk);
    w.line("sfc.slots = {};  // panel slots of each rank's LRU cache", part.slots);
    if (part.layers > 1) w.line("sfc.layers = {};  // replication c along K: c layers of P/c ranks", part.layers);
    w.line("sfc.order = {};  // tiles (ti * tiles_J + tj) along the generalized Hilbert curve",
           braced_list(part.order));
    w.line("sfc.segment = {};  // position q of a layer walks order[segment[q]] .. order[segment[q + 1] - 1]",
           braced_list(part.segment));
  }

  /// SfcGemm sizes its C tile, panel slots and reduction scratch from the spec.
  void emit_spec_buffers(CodeWriter&, const tcert::GemmSpec&) const override {}

  void emit_executor(CodeWriter& w, const costmodel::Plan& plan) const override {
    const costmodel::SfcPlan& p = costmodel::sfc_plan(plan);
    w.line("tcert::SfcGemm x(run, std::move(spec));");
    w.open("x.compute([&]");
    w.line("// SFC (Georganas et al.): this rank's segment of the {}x{} tiles along the curve, K in chunks of {}",
           p.tiles_I, p.tiles_J, p.chunk);
    w.line("// (back and forth), A and B panels from an LRU cache of {} slots, read from the tensors when missing",
           p.slots);
    if (p.layers > 1)
      w.line("// {} layers, each over its share of K; each tile reduced over them, every rank writing its rows",
             p.layers);
    w.line("for (std::int64_t w = 0; w < x.tiles(); ++w) x.run_tile(w);");
    w.close(");");
  }
};

}  // namespace

const MethodEmitter& emitter_for(const costmodel::SfcPlan&) {
  static const SfcEmitter kEmitter;
  return kEmitter;
}

}  // namespace tcec::codegen
