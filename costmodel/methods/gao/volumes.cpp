// costmodel/methods/gao/volumes.cpp — the model's volume expressions at given tile counts.
// Source: Gao et al. (seed 003) §3–§5, corrected as in docs/model.md ("Per-pass volumes").
#include "costmodel/methods/gao/volumes.h"
#include "costmodel/reasons.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace tcec::costmodel {

LoopNestCounts loop_nest_counts(PlacementOrder order, const TileCounts& t) {
  LoopNestCounts n;
  switch (order) {
    case PlacementOrder::ABC:  // It1,Kt1 → A; Jt1 → B; It2 → C
      n = {1, t.It1, t.Kt1, t.It1 * t.It2, t.Jt1, t.It1 * t.Kt1, t.Jt1 * t.Kt1, t.It1 * t.It2 * t.Jt1};
      break;
    case PlacementOrder::ACB:  // It1,Kt1 → A; Jt1,It2 → C; Kt2 → B
      n = {1, t.It1 * t.It2, t.Kt1, t.It1 * t.It2, t.Jt1, t.It1 * t.Kt1, t.Jt1 * t.Kt1 * t.Kt2, t.It1 * t.It2 * t.Jt1};
      break;
    case PlacementOrder::BAC:  // Jt1,Kt1 → B; It1 → A; Jt2 → C
      n = {t.Jt1, 1, t.Kt1, t.It1, t.Jt1 * t.Jt2, t.It1 * t.Kt1, t.Jt1 * t.Kt1, t.It1 * t.Jt1 * t.Jt2};
      break;
    case PlacementOrder::BCA:  // Jt1,Kt1 → B; It1,Jt2 → C; Kt2 → A
      n = {t.Jt1 * t.Jt2, 1, t.Kt1, t.It1, t.Jt1 * t.Jt2, t.It1 * t.Kt1 * t.Kt2, t.Jt1 * t.Kt1, t.It1 * t.Jt1 * t.Jt2};
      break;
    case PlacementOrder::CAB:  // It1,Jt1 → C; Kt1 → A; Jt2 → B
      n = {t.Jt1, t.It1, 1, t.It1, t.Jt1 * t.Jt2, t.It1 * t.Kt1, t.Jt1 * t.Jt2 * t.Kt1, t.It1 * t.Jt1};
      break;
    case PlacementOrder::CBA:  // It1,Jt1 → C; Kt1 → B; It2 → A
      n = {t.Jt1, t.It1, 1, t.It1 * t.It2, t.Jt1, t.It1 * t.It2 * t.Kt1, t.Jt1 * t.Kt1, t.It1 * t.Jt1};
      break;
  }
  return n;
}

namespace {

// Replication of A as in the notes' table; replication of B is its mirror.
MethodVolumes replication_volumes(double bcast, double other, double C, double P, double f_rep, Communication comm) {
  MethodVolumes v;
  v.read_per_pass_A = comm == Communication::Outside ? bcast : bcast / P;
  v.read_per_pass_B = other / P;
  v.read_per_pass_C = v.write_per_pass_C = C / P;
  if (comm == Communication::Outside) {
    v.one_time_write = bcast;         // D1: the received copy is written (Table 3)
    v.one_time_comm = f_rep * bcast;  // V = f_rep·A (Table 3, notes)
  } else {
    v.comm_per_pass_A = f_rep * bcast;  // f_rep·A per pass over A (Table 6, notes)
  }
  return v;
}

MethodVolumes mirror_operands(MethodVolumes v) {
  std::swap(v.read_per_pass_A, v.read_per_pass_B);
  std::swap(v.comm_per_pass_A, v.comm_per_pass_B);
  return v;
}

}  // namespace

MethodVolumes method_volumes(const Problem& pr, const Machine& m, Communication comm, Algorithm algorithm,
                             Operand replicated) {
  const double P = static_cast<double>(m.processors);
  const double sqrtP = std::sqrt(P);
  MethodVolumes v;
  switch (algorithm) {
    case Algorithm::Rotation:
      if (comm == Communication::Outside) {  // Table 2: √P rounds over local A/P, B/P, C/P
        v.read_per_pass_A = pr.A / sqrtP;
        v.read_per_pass_B = pr.B / sqrtP;
        v.read_per_pass_C = v.write_per_pass_C = pr.C / sqrtP;
        v.one_time_read = v.one_time_write = (pr.A + pr.B) / sqrtP;  // D1 = 2(A+B)/√P
        v.one_time_comm = (pr.A + pr.B) / sqrtP;                     // V = (A+B)/√P
      } else {  // Table 5 / notes: V = (A·(J tiles) + B·(I tiles))/√P
        v.read_per_pass_A = pr.A / P;
        v.read_per_pass_B = pr.B / P;
        v.read_per_pass_C = v.write_per_pass_C = pr.C / P;
        v.comm_per_tile_J = pr.A / sqrtP;
        v.comm_per_tile_I = pr.B / sqrtP;
      }
      return v;
    case Algorithm::Replication:
      if (replicated == Operand::A) return replication_volumes(pr.A, pr.B, pr.C, P, m.replication_factor, comm);
      return mirror_operands(replication_volumes(pr.B, pr.A, pr.C, P, m.replication_factor, comm));
    case Algorithm::Accumulation: {  // Tables 4 and 7: C replicated, all-reduce f_red·C·log2 P
      const double reduce = m.reduction_factor * pr.C * std::log2(P);
      v.read_per_pass_A = pr.A / P;
      v.read_per_pass_B = pr.B / P;
      v.read_per_pass_C = v.write_per_pass_C = pr.C;
      if (comm == Communication::Outside) {
        v.one_time_write = pr.C;  // D1 = C
        v.one_time_comm = reduce;
      } else {
        v.comm_per_pass_C = reduce;  // per pass over C
      }
      return v;
    }
  }
  return v;
}

TileThresholds tile_thresholds(const Problem& pr, const Machine& m, Algorithm algorithm, Operand replicated) {
  const double M = m.array_memory_bytes();
  const double MP = M * static_cast<double>(m.processors);
  switch (algorithm) {
    case Algorithm::Rotation: return {pr.A / MP, pr.B / MP, pr.C / MP};  // Eqs. 4.1–4.3
    case Algorithm::Replication:                                         // Eqs. 4.6–4.8 and mirror
      if (replicated == Operand::A) return {pr.A / M, pr.B / MP, pr.C / MP};
      return {pr.A / MP, pr.B / M, pr.C / MP};
    case Algorithm::Accumulation: return {pr.A / MP, pr.B / MP, pr.C / M};  // Eqs. 4.11–4.13
  }
  return {};
}

bool is_perfect_square(std::int64_t processors) {
  auto s = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(processors))));
  return s * s == processors;
}

ModelPoint evaluate_volumes(const MethodVolumes& v, const Machine& m, PlacementOrder order, const TileCounts& tiles) {
  const LoopNestCounts n = loop_nest_counts(order, tiles);
  ModelPoint point;
  point.order = order;
  point.tiles = tiles;
  point.disk_read_bytes = v.one_time_read + v.read_per_pass_A * n.passes_A + v.read_per_pass_B * n.passes_B +
                          v.read_per_pass_C * n.passes_C;
  point.disk_write_bytes = v.one_time_write + v.write_per_pass_C * n.passes_C;
  point.comm_bytes = v.one_time_comm + v.comm_per_pass_A * n.passes_A + v.comm_per_pass_B * n.passes_B +
                     v.comm_per_pass_C * n.passes_C + v.comm_per_tile_I * n.tiles_I + v.comm_per_tile_J * n.tiles_J;
  point.time_s = point.disk_read_bytes / m.disk_read_bytes_per_s + point.disk_write_bytes / m.disk_write_bytes_per_s +
                 point.comm_bytes / m.network_bytes_per_s;
  return point;
}

ModelPoint evaluate_model(const Problem& problem, const Machine& machine, Communication comm, Algorithm algorithm,
                          PlacementOrder order, Operand replicated, const TileCounts& tiles) {
  ModelPoint point =
      evaluate_volumes(method_volumes(problem, machine, comm, algorithm, replicated), machine, order, tiles);
  point.comm = comm;
  point.algorithm = algorithm;
  point.replicated = replicated;
  if (algorithm == Algorithm::Rotation && !is_perfect_square(machine.processors)) {
    point.feasible = false;
    point.reason = reason_text(ReasonId::p_not_square, machine.processors);
  }
  return point;
}

bool fits_memory(const Problem& problem, const Machine& machine, Algorithm algorithm, PlacementOrder order,
                 Operand replicated, const TileCounts& t, std::string* reason) {
  constexpr double kSlack = 1 - 1e-12;
  const double counts[] = {t.It1, t.It2, t.Jt1, t.Jt2, t.Kt1, t.Kt2};
  const char* names[] = {"It1", "It2", "Jt1", "Jt2", "Kt1", "Kt2"};
  for (int i = 0; i < 6; ++i) {
    if (counts[i] >= kSlack) continue;
    if (reason) *reason = reason_text(ReasonId::tile_count_below_one, names[i], counts[i]);
    return false;
  }
  const LoopNestCounts n = loop_nest_counts(order, t);
  const TileThresholds th = tile_thresholds(problem, machine, algorithm, replicated);
  const double cuts[] = {n.cuts_A, n.cuts_B, n.cuts_C};
  const double least[] = {th.a, th.b, th.c};
  for (int i = 0; i < 3; ++i) {
    if (cuts[i] >= least[i] * kSlack) continue;
    if (reason)
      *reason = reason_text(ReasonId::array_too_few_tiles, "ABC"[i], cuts[i], least[i], machine.array_memory_bytes());
    return false;
  }
  return true;
}

}  // namespace tcec::costmodel
