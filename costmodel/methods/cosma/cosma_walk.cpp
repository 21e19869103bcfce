// costmodel/methods/cosma/cosma_walk.cpp — cosma_walk(): the COSMA schedule of cosma.h walked message by
// message, independently of the closed form in cosma.cpp (the tests hold them equal).
#include <algorithm>
#include <tuple>
#include <vector>

#include "costmodel/methods/cosma/cosma.h"
#include "costmodel/partition.h"
#include "ir/ir.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;

i64 mod(i64 a, i64 q) { return ((a % q) + q) % q; }

struct Counters {
  const Machine& machine;
  std::vector<i64> read, write, sent, recv;
  std::vector<i64> sent_apart, recv_apart;  // of sent and recv, to and from ranks on other nodes
  Counters(const Machine& m, i64 P) : machine(m), read(P), write(P), sent(P), recv(P), sent_apart(P), recv_apart(P) {}
};

/// A message of `elements` from rank `from` to rank `to`.
void message(Counters& n, i64 from, i64 to, i64 elements) {
  n.sent[from] += elements;
  n.recv[to] += elements;
  if (n.machine.apart(from, to)) n.sent_apart[from] += elements, n.recv_apart[to] += elements;
}

/// Ring all-gather among ranks[0..q) of pieces sizes[0..q): step by step, each rank forwards
/// the piece runtime/comm/comm.h says, which it must already hold; at the end all hold all.
void ring_allgather(Counters& n, const std::vector<i64>& ranks, const std::vector<i64>& sizes) {
  const i64 q = static_cast<i64>(ranks.size());
  std::vector<std::vector<bool>> holds(q, std::vector<bool>(q, false));
  for (i64 r = 0; r < q; ++r) holds[r][r] = true;
  for (i64 s = 0; s + 1 < q; ++s) {
    std::vector<std::pair<i64, i64>> arrivals;  // (receiver position, piece)
    for (i64 r = 0; r < q; ++r) {
      const i64 p = mod(r - s, q), to = (r + 1) % q;
      TCEC_ASSERT(holds[r][p], "a ring all-gather forwards only pieces it holds");
      TCEC_ASSERT(p == mod(to - s - 1, q), "the receiver expects the piece sent");
      message(n, ranks[r], ranks[to], sizes[p]);
      arrivals.emplace_back(to, p);
    }
    for (auto [r, p] : arrivals) holds[r][p] = true;
  }
  for (i64 r = 0; r < q; ++r)
    TCEC_ASSERT(std::all_of(holds[r].begin(), holds[r].end(), [](bool b) { return b; }),
                "a ring all-gather ends with every piece on every rank");
}

/// Ring reduce-scatter among ranks[0..q) of pieces sizes[0..q): contributions[r][p] counts
/// whose partial sums of piece p rank r holds; at the end rank r holds all q of piece r.
void ring_reduce_scatter(Counters& n, const std::vector<i64>& ranks, const std::vector<i64>& sizes) {
  const i64 q = static_cast<i64>(ranks.size());
  std::vector<std::vector<std::vector<bool>>> has(q, std::vector<std::vector<bool>>(q, std::vector<bool>(q, false)));
  for (i64 r = 0; r < q; ++r)
    for (i64 p = 0; p < q; ++p) has[r][p][r] = true;  // its own partial of every piece
  for (i64 s = 0; s + 1 < q; ++s) {
    std::vector<std::tuple<i64, i64, std::vector<bool>>> arrivals;
    for (i64 r = 0; r < q; ++r) {
      const i64 p = mod(r - s - 1, q), to = (r + 1) % q;
      TCEC_ASSERT(p == mod(to - s - 2, q), "the receiver expects the piece sent");
      message(n, ranks[r], ranks[to], sizes[p]);
      arrivals.emplace_back(to, p, has[r][p]);
    }
    for (auto& [r, p, from] : arrivals)
      for (i64 c = 0; c < q; ++c) {
        TCEC_ASSERT(!(from[c] && has[r][p][c]), "a reduce-scatter adds each partial once");
        has[r][p][c] = has[r][p][c] || from[c];
      }
  }
  for (i64 r = 0; r < q; ++r)
    TCEC_ASSERT(std::all_of(has[r][r].begin(), has[r][r].end(), [](bool b) { return b; }),
                "a ring reduce-scatter ends with the full sum of piece r on rank r");
}

}  // namespace

PlanVolumes cosma_walk(const CosmaGrid& g, std::int64_t m, std::int64_t n, std::int64_t k, const Machine& machine) {
  const i64 P = machine.processors;
  TCEC_ASSERT(g.used() <= P, "the grid fits the machine");
  Counters c(machine, P);
  auto rank = [&](i64 x, i64 y, i64 z) { return x * g.pn * g.pk + y * g.pk + z; };
  for (i64 x = 0; x < g.pm; ++x)
    for (i64 y = 0; y < g.pn; ++y)
      for (i64 z = 0; z < g.pk; ++z) {
        const i64 Kz = piece(k, g.pk, z);
        for (i64 j = g.buffers(); j < g.rounds; ++j) {  // own pieces of the streamed rounds
          const i64 kj = piece(Kz, g.rounds, j);
          c.read[rank(x, y, z)] += piece(piece(m, g.pm, x) * kj, g.pn, y) + piece(piece(n, g.pn, y) * kj, g.pm, x);
        }
      }
  for (i64 z = 0; z < g.pk; ++z) {
    const i64 Kz = piece(k, g.pk, z);
    for (i64 j = 0; j < g.rounds; ++j) {
      const i64 kj = piece(Kz, g.rounds, j);
      for (i64 x = 0; x < g.pm; ++x) {  // A slice (x, z, j) among (x, ·, z)
        std::vector<i64> ranks, sizes;
        for (i64 y = 0; y < g.pn; ++y)
          ranks.push_back(rank(x, y, z)), sizes.push_back(piece(piece(m, g.pm, x) * kj, g.pn, y));
        ring_allgather(c, ranks, sizes);
      }
      for (i64 y = 0; y < g.pn; ++y) {  // B slice (y, z, j) among (·, y, z)
        std::vector<i64> ranks, sizes;
        for (i64 x = 0; x < g.pm; ++x)
          ranks.push_back(rank(x, y, z)), sizes.push_back(piece(piece(n, g.pn, y) * kj, g.pm, x));
        ring_allgather(c, ranks, sizes);
      }
    }
  }
  for (i64 x = 0; x < g.pm; ++x)
    for (i64 y = 0; y < g.pn; ++y) {  // C block (x, y) among (x, y, ·); pieces stay in memory
      const i64 block = piece(m, g.pm, x) * piece(n, g.pn, y);
      std::vector<i64> ranks, sizes;
      for (i64 z = 0; z < g.pk; ++z) ranks.push_back(rank(x, y, z)), sizes.push_back(piece(block, g.pk, z));
      ring_reduce_scatter(c, ranks, sizes);
    }
  const auto e = static_cast<std::uint64_t>(machine.element_size_bytes);
  PlanVolumes out;
  for (i64 r = 0; r < P; ++r) {
    out.disk_read_bytes.push_back(static_cast<std::uint64_t>(c.read[r]) * e);
    out.disk_write_bytes.push_back(static_cast<std::uint64_t>(c.write[r]) * e);
    out.comm_sent_bytes.push_back(static_cast<std::uint64_t>(c.sent[r]) * e);
    out.comm_recv_bytes.push_back(static_cast<std::uint64_t>(c.recv[r]) * e);
    if (machine.nodes() > 1) {
      out.internode_sent_bytes.push_back(static_cast<std::uint64_t>(c.sent_apart[r]) * e);
      out.internode_recv_bytes.push_back(static_cast<std::uint64_t>(c.recv_apart[r]) * e);
    }
    out.time_s =
        std::max(out.time_s, rank_time_s(1.0, machine, out.disk_read_bytes.back(), out.disk_write_bytes.back(),
                                         out.comm_recv_bytes.back(), internode_recv(out, static_cast<std::size_t>(r))));
  }
  return out;
}

}  // namespace tcec::costmodel
