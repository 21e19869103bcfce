// costmodel/methods/gao/accumulation.cpp — closed-form model optimum of Accumulation (A and
// B split by K, every rank holds a partial C, then all-reduce), outside and
// inside. Source: Gao et al. §4.3, §5.3, Tables 4 and 7, corrected by
// docs/model.md ("Table 4", "Table 7"). Units: bytes, bytes per second, seconds.
#include <cmath>

#include "costmodel/methods/gao/model_optimum.h"

namespace tcec::costmodel::detail {

// Per-pass and one-time times; Gao et al. Tables 4 and 7 as corrected (notes
// table "Per-pass volumes per processor"), with the all-reduce volume
// f_red·C·log2 P (log2 1 = 0):
//   outside: A/P, B/P, 2C per pass (C read and written in full); D1 = C
//     (written); V = f_red·C·log2 P once.
//     Table 4 ABC ⟨1⟩: It1 = I√(2/M), Kt1 = K/(P√(2M)), D2 = A/P + √(8ABC/M)/P.
//     Table 4 ABC ⟨3⟩: It1 = A/(MP), Kt1 = 1, D2 = A/P + AB/(MP²) + 2C.
//   inside: the same passes; V = f_red·C·log2 P per pass over C, so the C pass
//     costs C/B_dr + C/B_dw + f_red·C·log2 P/B_c, i.e. EffVol weight
//     C(2 + R log P) (Table 7).
//     Table 7 ABC ⟨1⟩: It1 = I√((2+R log P)/M), Kt1 = K/(P√(M(2+R log P))),
//       EffVol = A/P + 2√(ABC(2+R log P)/(MP²)).
//     Table 7 ABC ⟨3⟩: EffVol = A/P + AB/(MP²) + C(2 + R log P).
// The trade-off itself is solved once, in model_optimum.cpp.
ModelPoint accumulation_optimum(const Problem& problem, const Machine& machine, Communication comm,
                                PlacementOrder order) {
  const double P = static_cast<double>(machine.processors);
  const double read = 1 / machine.disk_read_bytes_per_s;
  const double write = 1 / machine.disk_write_bytes_per_s;
  const double reduce = machine.reduction_factor * problem.C * std::log2(P) / machine.network_bytes_per_s;
  PassTimes t;
  t.pass_A_s = problem.A / P * read;
  t.pass_B_s = problem.B / P * read;
  t.pass_C_s = problem.C * (read + write);
  if (comm == Communication::Outside) {
    t.const_s = problem.C * write + reduce;
  } else {
    t.pass_C_s += reduce;
  }
  return pass_form_optimum(problem, machine, comm, Algorithm::Accumulation, order, Operand::A, t);
}

}  // namespace tcec::costmodel::detail
