// costmodel/methods/gao/plan_volumes.cpp — exact per-rank volumes of a plan in closed form:
// loop counts of the order (Gao et al. Fig. 3(b)) times each rank's share of
// every array, plus the collectives of the method (§2.1–§2.2).
#include <algorithm>
#include <bit>
#include <vector>

#include "costmodel/method_model.h"
#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/gao/volumes.h"
#include "costmodel/partition.h"
#include "costmodel/plan.h"

namespace tcec::costmodel {

namespace {

using u64 = std::uint64_t;

/// The ranks rank p exchanges its whole buffer with (sends it and receives as much) in the
/// recursive-doubling all-reduce of runtime/comm/comm.h: with P' = 2^⌊log2 P⌋, a rank p ≥ P'
/// only with p − P'; a rank p < P' with p XOR 2^i in each of the log2 P' rounds, and with p + P'
/// (its pre/post exchange) when that rank exists.
std::vector<std::int64_t> allreduce_partners(std::int64_t P, std::int64_t p) {
  const auto Pp = static_cast<std::int64_t>(std::bit_floor(static_cast<u64>(P)));
  if (p >= Pp) return {p - Pp};
  std::vector<std::int64_t> out;
  if (p + Pp < P) out.push_back(p + Pp);
  for (std::int64_t d = 1; d < Pp; d *= 2) out.push_back(p ^ d);
  return out;
}

struct RankVolumes {
  u64 read = 0, write = 0, sent = 0, recv = 0;  // elements
  u64 sent_apart = 0, recv_apart = 0;           // of sent and recv, to and from other nodes
  u64 read_C = 0;                               // of read, C's (PlanVolumes::disk_read_C_bytes)
};

/// Adds `out` elements sent to rank `to` and `in` received from rank `from` by rank `rank`.
void message(RankVolumes& v, const Machine& m, std::int64_t rank, std::int64_t to, u64 out, std::int64_t from, u64 in) {
  v.sent += out, v.recv += in;
  if (m.apart(rank, to)) v.sent_apart += out;
  if (m.apart(rank, from)) v.recv_apart += in;
}

/// Cannon's neighbours on the g × g grid (runtime/methods/gao/gao.cpp cannon_multiply()): A
/// goes left and comes from the right, B goes up and comes from below.
struct Neighbours {
  std::int64_t left, right, up, down;
};
Neighbours neighbours(std::int64_t rank, std::int64_t g) {
  const std::int64_t r = rank / g, c = rank % g;
  return {r * g + (c + g - 1) % g, r * g + (c + 1) % g, ((r + g - 1) % g) * g + c, ((r + 1) % g) * g + c};
}

struct Counts {
  u64 pA, pB, pC, tiles_I, tiles_J;
  /// Passes over C that read it: pC, less the first when C starts from zero (its first visit
  /// of each tile reads nothing).
  u64 pC_read;
};

Counts counts_of(const Plan& plan) {
  const LoopNestCounts n = loop_nest_counts(gao(plan).order, plan.tile_counts());
  auto u = [](double v) { return static_cast<u64>(v); };
  const u64 pC = u(n.passes_C);
  return {u(n.passes_A), u(n.passes_B), pC, u(n.tiles_I), u(n.tiles_J), plan.accumulate ? pC : pC - 1};
}

RankVolumes rotation(const Plan& plan, const Machine& m, const Counts& n, std::int64_t rank) {
  const GridParts parts = grid_parts(plan);
  const std::int64_t g = parts.grid_cols;
  const RankParts rp = rank_parts(plan, rank);
  const u64 Ir = group_share(plan.I, g, rp.C_rows), Jc = group_share(plan.J, g, rp.C_cols);
  const u64 Kk = group_share(plan.K, g, rp.A_cols), K = plan.K.extent();
  RankVolumes v;
  if (gao(plan).comm == Communication::Inside) {  // A, B read at home; each body cycles its blocks once
    v.read_C = n.pC_read * Ir * Jc;
    v.read = n.pA * Ir * Kk + n.pB * Jc * Kk + v.read_C;
    v.write = n.pC * Ir * Jc;
    if (g > 1) {  // one rank: no shifts
      const Neighbours x = neighbours(rank, g);
      message(v, m, rank, x.left, n.tiles_J * Ir * K, x.right, n.tiles_J * Ir * K);
      message(v, m, rank, x.up, n.tiles_I * Jc * K, x.down, n.tiles_I * Jc * K);
    }
    return v;
  }
  // Outside: g rounds of the local out-of-core product, each followed by a disk-to-disk shift.
  const u64 shifted = g > 1 ? Ir * K + Jc * K : 0;
  // C: pC passes in each of the g rounds; only the very first visit of a tile may skip its read.
  v.read_C = (n.pC * static_cast<u64>(g) - (n.pC - n.pC_read)) * Ir * Jc;
  v.read = n.pA * Ir * K + n.pB * Jc * K + v.read_C + shifted;
  v.write = n.pC * static_cast<u64>(g) * Ir * Jc + shifted;
  if (g > 1) {
    const Neighbours x = neighbours(rank, g);
    message(v, m, rank, x.left, Ir * K, x.right, Ir * K);
    message(v, m, rank, x.up, Jc * K, x.down, Jc * K);
  }
  return v;
}

RankVolumes replication(const Plan& plan, const Machine& m, const Counts& n, std::int64_t rank) {
  const std::int64_t P = plan.processors;
  const bool bcast_A = gao(plan).replicated == Operand::A;
  // Written for broadcast operand X (rows R) and the other operand Y (rows S); C is (R, S) or (S, R).
  const GroupTiling& R = bcast_A ? plan.I : plan.J;
  const GroupTiling& S = bcast_A ? plan.J : plan.I;
  const u64 pX = bcast_A ? n.pA : n.pB, pY = bcast_A ? n.pB : n.pA;
  const u64 whole = R.extent() * plan.K.extent();
  const u64 own = R.extent() * group_share(plan.K, P, rank);
  const u64 next = R.extent() * group_share(plan.K, P, (rank + 1) % P);
  const u64 Y = group_share(S, P, rank) * plan.K.extent();
  const u64 C = group_share(S, P, rank) * R.extent();
  RankVolumes v;
  v.write = n.pC * C;
  v.read_C = n.pC_read * C;
  const std::int64_t to = (rank + 1) % P, from = (rank + P - 1) % P;  // the ring
  if (gao(plan).comm == Communication::Inside) {  // collective read of X's pieces, ring all-gather per tile
    v.read = pX * own + pY * Y + v.read_C;
    message(v, m, rank, to, pX * (whole - next), from, pX * (whole - own));
    return v;
  }
  // Outside: one out-of-core ring all-gather into a whole local copy of X.
  v.read = pX * whole + pY * Y + v.read_C + (whole - next);
  v.write += whole - own;
  message(v, m, rank, to, whole - next, from, whole - own);
  return v;
}

RankVolumes accumulation(const Plan& plan, const Machine& m, const Counts& n, std::int64_t rank) {
  const std::int64_t P = plan.processors;
  const u64 Kp = group_share(plan.K, P, rank);
  const u64 C = plan.I.extent() * plan.J.extent();
  const std::vector<std::int64_t> partners = allreduce_partners(P, rank);
  const auto across = std::count_if(partners.begin(), partners.end(), [&](std::int64_t q) { return m.apart(rank, q); });
  const u64 reduce = C * partners.size(), apart = C * static_cast<u64>(across);
  RankVolumes v;
  v.read = n.pA * plan.I.extent() * Kp + n.pB * plan.J.extent() * Kp;
  if (gao(plan).comm == Communication::Inside) {  // C lives on rank 0; partial tiles all-reduced per pass
    v.sent = v.recv = n.pC * reduce;
    v.sent_apart = v.recv_apart = n.pC * apart;
    if (rank == 0) v.read_C = n.pC_read * C, v.read += v.read_C, v.write = n.pC * C;
    return v;
  }
  // Outside: every rank accumulates a local partial C (ranks > 0 start from zero
  // and skip the first read, and so does rank 0 unless C starts from its current values),
  // then one out-of-core all-reduce into rank 0's C.
  v.sent = v.recv = reduce;
  v.sent_apart = v.recv_apart = apart;
  v.read_C = (rank == 0 ? n.pC_read : n.pC - 1) * C + C;
  v.read += v.read_C;
  v.write = n.pC * C + (rank == 0 ? C : 0);
  return v;
}

}  // namespace

PlanVolumes gao_volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank, std::int64_t end_rank) {
  const double factor = model_of(plan).collective_factor(plan, machine);
  const Counts n = counts_of(plan);
  PlanVolumes out;
  for (std::int64_t rank = first_rank; rank < end_rank; ++rank) {
    RankVolumes v;
    switch (gao(plan).algorithm) {
      case Algorithm::Rotation: v = rotation(plan, machine, n, rank); break;
      case Algorithm::Replication: v = replication(plan, machine, n, rank); break;
      case Algorithm::Accumulation: v = accumulation(plan, machine, n, rank); break;
    }
    append_rank(out, factor, machine, v.read, v.write, v.sent, v.recv, {v.sent_apart, v.recv_apart});
    out.disk_read_C_bytes.push_back(v.read_C * static_cast<u64>(machine.element_size_bytes));
  }
  return out;
}

}  // namespace tcec::costmodel
