// costmodel/program/node_store.cpp — the store of one directory per node (runtime TensorStore::
// per_node()): what completing a version on every node costs.
#include <algorithm>
#include <bit>

#include "costmodel/costmodel.h"
#include "costmodel/partition.h"
#include "runtime/spec/step_memory.h"

namespace tcec::costmodel {

PlanVolumes completion_volumes(std::uint64_t elements, const Machine& machine) {
  const std::int64_t P = machine.processors, R = machine.ranks_per_node, N = machine.nodes();
  const std::int64_t S = std::min(R, P - (N - 1) * R);  // the fewest ranks of a node: the last node's
  const auto P2 = static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(N)));
  const std::uint64_t rounds = static_cast<std::uint64_t>(std::countr_zero(static_cast<std::uint64_t>(P2)));
  const std::uint64_t chunk = tcert::kCompletionChunkElements;
  PlanVolumes out;
  for (std::int64_t r = 0; r < P; ++r) {
    const std::int64_t node = r / R, j = r % R;
    const auto m = j < S ? static_cast<std::uint64_t>(piece(static_cast<std::int64_t>(elements), S, j)) : 0;
    // runtime allreduce(): recursive doubling among the first P' nodes, the others folded in
    const std::uint64_t net = node < P2 ? m * rounds + (node + P2 < N ? m : 0) : m;
    append_rank(out, 1.0, machine, m, m, net, net, {net, net});  // every partner is on another node
    out.disk_requests.push_back(2 * ((m + chunk - 1) / chunk));
  }
  out.time_s = 0;
  for (std::int64_t r = 0; r < P; ++r)
    out.time_s = std::max(out.time_s, rank_time_s(1.0, machine, out.disk_read_bytes[r], out.disk_write_bytes[r],
                                                  out.comm_recv_bytes[r], out.internode_recv_bytes[r]) +
                                          machine.disk_latency_s * static_cast<double>(out.disk_requests[r]));
  return out;
}

}  // namespace tcec::costmodel
