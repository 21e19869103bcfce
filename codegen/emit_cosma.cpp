// codegen/emit_cosma.cpp — the compute phase of a cosma plan: COSMA's Algorithm 1 (Kwasniewski
// et al. SC'19) through tcert::CosmaGemm, in the schedule of costmodel/cosma.h.
#include "codegen/emit.h"

namespace tcec::codegen {

void emit_cosma_compute(CodeWriter& w, const costmodel::Plan& plan) {
  const costmodel::CosmaGrid& g = plan.cosma;
  w.open("x.compute([&]");
  w.line("// COSMA: grid {}x{}x{} (pm x pn x pk; {} idle ranks), {} round{} along K", g.pm, g.pn, g.pk,
         plan.processors - g.used(), g.rounds, g.rounds == 1 ? "" : "s");
  w.line("x.read_slices(0);   // round 0: this rank's pieces of the A and B slices (in memory since the load)");
  w.line("x.allgather_B();    // round 0's B slice: ring all-gather among the pm ranks (*,y,z)");
  w.open("for (std::int64_t round = 0; round < x.rounds(); ++round)");
  w.line("// Ring all-gather of the A slice among the pn ranks (x,*,z), overlapped with C block +=");
  w.line("// alpha * A slice * B slice^T; meanwhile the next round's pieces are read and its B slice");
  w.line("// is gathered into the other buffers (double buffering)");
  w.line("x.gather_A_and_multiply();");
  w.close();
  w.line("x.reduce_scatter_C();  // ring reduce-scatter of the partial C blocks among the pk ranks (x,y,*);");
  w.line("                       // this rank's piece stays in memory until finish() writes it");
  w.close(");");
}

}  // namespace tcec::codegen
