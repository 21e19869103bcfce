// costmodel/methods/gao/replication.cpp — closed-form model optimum of Replication (one
// operand broadcast to every rank; the other and C split P ways), outside and
// inside. Source: Gao et al. §4.2, §5.2, Tables 3 and 6, corrected by
// docs/model.md ("Table 3", "Table 6"). Units: bytes, bytes per second, seconds.
//
// Replicating B is the mirror of replicating A (swap A↔B and I↔J, orders
// ABC↔BAC, ACB↔BCA, CAB↔CBA); it is written here directly, by swapping the two
// operands' per-pass times, so the case ids keep the numbering of the order
// actually used (model_optimum.h).
#include <cmath>
#include <utility>

#include "costmodel/methods/gao/model_optimum.h"

namespace tcec::costmodel::detail {

namespace {

// Per-pass and one-time times with A broadcast; Gao et al. Tables 3 and 6 as
// corrected (notes table "Per-pass volumes per processor"):
//   outside: A, B/P, 2C/P per pass; D1 = A (written); V = f_rep·A.
//     Table 3 ABC ⟨1⟩: It1 = I√(2/M), Kt1 = K/√(2M), D2 = A + √(8ABC/M)/P.
//     Table 3 CAB ⟨1⟩: It1 = I/√M, Jt1 = J/(P√M), D2 = 2C/P + √(4ABC/M)/P.
//   inside: A/P, B/P, 2C/P per pass; V = f_rep·A per pass over A, so the A pass
//     costs A/(P·B_dr) + f_rep·A/B_c, i.e. EffVol weight A(1+PR)/P (Table 6).
//     Table 6 CAB ⟨1⟩: It1 = I√((1+PR)/(MP)), Jt1 = J/√(MP(1+PR)).
// In the paper's units (M in elements, one bandwidth B_d, f_rep = 1) these are
// the entries of the tables; with bytes and separate read/write bandwidths the
// same trade-off (model_optimum.cpp) gives them.
PassTimes broadcast_a_times(double A, double B, double C, const Machine& m, Communication comm) {
  const double P = static_cast<double>(m.processors);
  const double read = 1 / m.disk_read_bytes_per_s, write = 1 / m.disk_write_bytes_per_s;
  const double net = 1 / m.network_bytes_per_s;
  const double bcast = m.replication_factor * A * net;
  PassTimes t;
  t.pass_B_s = B / P * read;
  t.pass_C_s = C / P * (read + write);
  if (comm == Communication::Outside) {
    t.pass_A_s = A * read;
    t.const_s = A * write + bcast;
  } else {
    t.pass_A_s = A / P * read + bcast;
  }
  return t;
}

}  // namespace

ModelPoint replication_optimum(const Problem& problem, const Machine& machine, Communication comm, PlacementOrder order,
                               Operand replicated) {
  PassTimes t;
  if (replicated == Operand::A) {
    t = broadcast_a_times(problem.A, problem.B, problem.C, machine, comm);
  } else {
    t = broadcast_a_times(problem.B, problem.A, problem.C, machine, comm);
    std::swap(t.pass_A_s, t.pass_B_s);
  }
  return pass_form_optimum(problem, machine, comm, Algorithm::Replication, order, replicated, t);
}

}  // namespace tcec::costmodel::detail
