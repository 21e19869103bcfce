// costmodel/methods/gao/plan_search.h — (private) integer plans: per-index tile counts that
// fit memory and minimise the exact predicted time of one method × order.
#pragma once

#include <string>

#include "costmodel/method_model.h"
#include "costmodel/plan.h"

namespace tcec::costmodel {

/// Searches integer per-index tile counts for comm × algorithm × order
/// (× replicated) on `machine`: distribution indices are the largest-extent
/// index of each group the method splits over the grid; the search starts from
/// `hint` (the model optimum's real tile counts) spread over the indices, and
/// descends on the exact time (plan_volumes(), fullest rank) by moves of one or
/// two per-index counts (±1, ×2, ÷2) among the loop levels the order uses,
/// keeping check_valid(). Infeasible (with reason) when the method cannot run:
/// Rotation on a non-square P, no index large enough to distribute, or no
/// tiling fits the memory. With Machine::disk_latency_s > 0 and `analysis` given, the descent's
/// plan is then improved by swaps of two indices' counts within a group and level, scored with
/// the disk requests of a lone step (lone_step_access(), plan_requests()): the descent's
/// objective counts bytes only, so it cannot tell a cut along the innermost stored index (short
/// runs, many requests) from one along an outer index of the same size.
PlannedCandidate plan_candidate(const Groups& groups, const Machine& machine, Communication comm, Algorithm algorithm,
                                PlacementOrder order, Operand replicated, MemorySplit split, const TileCounts& hint,
                                bool accumulate = false, const ContractionAnalysis* analysis = nullptr);

}  // namespace tcec::costmodel
