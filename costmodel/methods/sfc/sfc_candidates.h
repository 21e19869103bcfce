// costmodel/methods/sfc/sfc_candidates.h — (private) the sfc plans the planner tries (tile
// grids, K chunks, cache slots, replication c along K) with a cheap estimate of each one's time,
// so that only the best few are walked exactly (sfc_walk.h). Units: elements unless a name says
// bytes or seconds.
#pragma once

#include <cstdint>
#include <vector>

#include "costmodel/methods/sfc/sfc_plan.h"
#include "costmodel/model.h"

namespace tcec::costmodel {

/// One plan tried and its estimated time (seconds): the fullest rank of a layer walks
/// ⌈T/g⌉ tiles (T = tiles_I·tiles_J, g = P/c) of the largest size, reading each tile's A and B
/// panels whole over its layer's ⌈|K|/c⌉ columns but for the cache's hits at the turns (the
/// panel two neighbouring tiles share, for its last ⌊slots/2⌋ chunks), writing (and, accumulating,
/// reading) its ⌈rows/c⌉ rows of each tile and receiving the rest of each tile in the
/// reduction over the c layers, multiplying, and, with Machine::page_fault_s, the page faults of
/// its panels' rows as if A and B were stored with K last (pass_runs.h run_faults(),
/// capped_faults()); all at the machine's bandwidths and rate.
struct SfcCandidate {
  double estimate_s = 0;
  SfcPlan plan;
};

/// The candidates for C(m × n) (+)= A(m × k)·B(n × k)ᵀ on `machine` (P ranks of
/// memory_bytes / element_size_bytes = S elements each), in no order:
///   replication c: every divisor of P with c <= k (c = 1: none);
///   grids: tiles of shares of S (square, or as wide as C when C is narrower) split until each
///     of the g = P/c ranks of a layer has 1, 2 or 4; and for t = t0 … t0 + 8 tiles per rank
///     (t0: the fewest whose tiles fit S) and every tiles_I (sampled to about 1.5% steps above
///     64), tiles_J = ⌊t·g/tiles_I⌋, the widest tiles that give no rank more than t of them (and
///     every rank at least one);
///   chunks: all of a layer's share of K, and 2048, 512, 128, 32, 8, 2, 1 when shorter, with at
///     most 4096 chunks per tile;
///   slots: as many as the memory left after the C tile (and the reduction's scratch of one slot
///     when c > 1) holds; a candidate with fewer than 2 is dropped.
/// Candidates whose walk would take more than 10^6 panel uses are dropped and set *too_long.
std::vector<SfcCandidate> sfc_candidates(std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate,
                                         const Machine& machine, bool* too_long);

}  // namespace tcec::costmodel
