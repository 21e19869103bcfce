// costmodel/methods/gao/simulate.h — the loop-nest simulator: walks the tiled loop nest a
// plan describes (schedules.h loop_nest(), the structure code generation emits), rank by
// rank, and counts every byte each rank reads, writes, sends and receives.
#pragma once

#include "costmodel/plan.h"

namespace tcec::costmodel {

/// Volumes of a Gao `plan` counted by walking its loop nest and simulating its
/// collectives step by step (Cannon shifts, ring all-gather, recursive-doubling
/// all-reduce, out-of-core streams), with tile sizes enumerated part by part.
/// Independent of plan_volumes()'s closed forms; tests assert they are equal.
/// Cost: O(P · loop iterations · grid steps); meant for tests and small plans.
/// Precondition: check_valid(plan) passes. time_s as in plan_volumes().
PlanVolumes gao_simulate(const Plan& plan, const Machine& machine);

/// Disk requests per rank of a Gao `plan`'s compute stage (plan.h PlanVolumes::disk_requests)
/// counted by the same walk: every block a visit of a tile reads or writes is one request in a
/// tiled copy, and in a tensor's file (the arrays `access` marks direct) its elements are
/// enumerated in the runtime's order (rows outer; in each group the distribution index first,
/// the last fastest) and every element not adjacent to the one before starts a request; plus
/// the file collectives' chunks of 2^16 elements (runtime/comm/comm.h). Independent of
/// requests.cpp's closed form; tests assert they are equal. Cost: O(P · loop iterations) block
/// visits plus each distinct block's elements once; meant for tests and small plans.
std::vector<std::uint64_t> gao_simulate_requests(const Plan& plan, const ArrayAccess& access);

}  // namespace tcec::costmodel
