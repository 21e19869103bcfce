// costmodel/methods/gao/simulate.h — the loop-nest simulator: walks the tiled loop nest a
// plan describes (loop_nest.h, the structure code generation emits), rank by
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

}  // namespace tcec::costmodel
