// codegen/emit_cosma.cpp — the cosma emitter: its grid and rounds in the GemmSpec, and the
// compute phase of COSMA's Algorithm 1 (Kwasniewski et al. SC'19) through tcert::CosmaGemm, in
// the schedule of costmodel/methods/cosma/cosma.h.
#include "codegen/emit_cosma.h"

namespace tcec::codegen {

namespace {

class CosmaEmitter final : public MethodEmitter {
 public:
  void fill_spec(const costmodel::Plan& plan, const costmodel::Machine&, tcert::GemmSpec& spec) const override {
    const costmodel::CosmaGrid& g = std::get<costmodel::CosmaGrid>(plan.method);
    tcert::CosmaSpec& part = spec.method.emplace<tcert::CosmaSpec>();
    part.grid[0] = g.pm, part.grid[1] = g.pn, part.grid[2] = g.pk;
    part.rounds = g.rounds;
  }

  void emit_spec_schedule(CodeWriter& w, const tcert::GemmSpec& spec) const override {
    const tcert::CosmaSpec& part = std::get<tcert::CosmaSpec>(spec.method);
    w.line("tcert::CosmaSpec& cosma = spec.method.emplace<tcert::CosmaSpec>();  // run by tcert::CosmaGemm");
    w.line("cosma.grid[0] = {};  // pm: ranks along I", part.grid[0]);
    w.line("cosma.grid[1] = {};  // pn: ranks along J", part.grid[1]);
    w.line("cosma.grid[2] = {};  // pk: ranks along K", part.grid[2]);
    w.line("cosma.rounds = {};  // t: rounds along K", part.rounds);
  }

  /// CosmaGemm sizes its block and slices itself.
  void emit_spec_buffers(CodeWriter&, const tcert::GemmSpec&) const override {}

  void emit_executor(CodeWriter& w, const costmodel::Plan& plan) const override {
    const costmodel::CosmaGrid& g = std::get<costmodel::CosmaGrid>(plan.method);
    w.line("tcert::CosmaGemm x(run, std::move(spec));");
    w.open("x.compute([&]");
    w.line("// COSMA: grid {}x{}x{} (pm x pn x pk; {} idle ranks), {} round{} along K", g.pm, g.pn, g.pk,
           plan.processors - g.used(), g.rounds, g.rounds == 1 ? "" : "s");
    w.line("// The first round: 0, or where a run resumed inside this step continues (--checkpoint-every)");
    w.line("x.read_slices(x.first_round());  // this rank's pieces of its A and B slices");
    w.line("x.allgather_B();                 // its B slice: ring all-gather among the pm ranks (*,y,z)");
    w.open("for (std::int64_t round = x.first_round(); round < x.rounds(); ++round)");
    w.line("// Ring all-gather of the A slice among the pn ranks (x,*,z), overlapped with C block +=");
    w.line("// alpha * A slice * B slice^T; meanwhile the next round's pieces are read and its B slice");
    w.line("// is gathered into the other buffers (double buffering)");
    w.line("x.gather_A_and_multiply();");
    w.close();
    w.line("x.reduce_scatter_C();  // ring reduce-scatter of the partial C blocks among the pk ranks (x,y,*);");
    w.line("                       // this rank's piece stays in memory until finish() writes it");
    w.close(");");
  }
};

}  // namespace

const MethodEmitter& emitter_for(const costmodel::CosmaGrid&) {
  static const CosmaEmitter kEmitter;
  return kEmitter;
}

}  // namespace tcec::codegen
