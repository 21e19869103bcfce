// costmodel/methods/sfc/sfc_walk.h — (private) the schedule of an sfc plan and its walk: C's
// tile grid in the order of the generalized Hilbert curve (curve.h), cut into one contiguous
// segment per rank of a layer balanced by C's elements, each rank walking its segment over its
// layer's share of K with an LRU cache of A and B panels, and with c > 1 layers the partial
// tiles reduced over the layers, exactly as runtime/spec/sfc_spec.h's THE SCHEDULE says, so that the
// walk's counts are the runtime's. Units: elements unless a name says bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "costmodel/plan.h"
#include "costmodel/schedules.h"

namespace tcec::costmodel {

// sfc_plan(), SfcSchedule and sfc_schedule(): costmodel/schedules.h.

/// The same, computed afresh.
SfcSchedule curve_segments(const Plan& plan);

/// One rank's walk: disk reads (A and B panels missing from its cache, and C's current values
/// of its pieces when the statement adds to them), C's elements written (its pieces of its
/// tiles: all of each tile when c = 1), elements sent and received by the reductions over the
/// layers (runtime ring_reduce_scatter's counts; 0 when c = 1), disk requests (runs of adjacent
/// elements per pass, with the arrays' stored positions perm_A, perm_B, perm_C; identity when
/// empty), the page faults of its panel reads (an estimate, pass_runs.h PassRuns::faults()),
/// multiply-adds, tiles, and the cache's hits and misses.
struct SfcRankWalk {
  std::uint64_t read = 0, written = 0, sent = 0, received = 0, requests = 0, faults = 0;
  double multiply_adds = 0;
  std::int64_t tiles = 0, hits = 0, misses = 0;
};
/// Every rank's walk of `plan` (THE SCHEDULE), with an O(1) LRU per access; requests are
/// counted only with `access` (null: not counted, whatever they hold). (The last result is kept
/// per thread; a kept walk with requests also answers a call without.)
std::vector<SfcRankWalk> sfc_walk(const Plan& plan, const ArrayAccess* access);
/// The same, walked afresh.
std::vector<SfcRankWalk> walk_ranks(const Plan& plan, const ArrayAccess* access);
/// The same reads and writes by a plain replay (an LRU by timestamps over the slots, no
/// requests): the independent simulator the tests hold equal to sfc_walk().
std::vector<SfcRankWalk> sfc_replay(const Plan& plan);

/// The largest tile: ⌈|I|/tiles_I⌉ · ⌈|J|/tiles_J⌉ elements; a panel slot:
/// max(⌈|I|/tiles_I⌉, ⌈|J|/tiles_J⌉) · chunk elements; the reduction's scratch: one slot when
/// c > 1, else 0.
std::int64_t sfc_tile_elements(const Plan& plan);
std::int64_t sfc_slot_elements(const Plan& plan);
std::int64_t sfc_scratch_elements(const Plan& plan);

/// The ranks of a layer, g = P/c. Precondition: c divides P.
inline std::int64_t sfc_layer_ranks(const Plan& plan) { return plan.processors / sfc_plan(plan).layers; }

}  // namespace tcec::costmodel
