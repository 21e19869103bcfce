// runtime/spec/spec_check.h — what a contraction's plan asks of a rank before it runs: the checks
// every method's executor makes in its constructor (process grid, tilings, rounds; each
// method's part of the spec has its own, gemm_spec.h MethodSpec) and the memory per rank by
// buffer, as plain functions of a GemmSpec (no MPI). The constructors call
// check_spec() first, so a test that calls it on the spec the compiler emits (codegen
// gemm_spec()) holds the planner to the very rule the generated program enforces.
// Units: bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/spec/gemm_spec.h"
#include "runtime/spec/step_memory.h"  // MemoryPart, StepMemory, handoff_round_bytes()

namespace tcert {

/// The buffers `spec` allocates on its fullest rank (every rank's are sized for it) with
/// `memory_bytes` of tile memory per rank (0 = unlimited), in the order the step allocates them:
///  * hand-off rounds (load stage; only when the spec takes a tensor rank to rank): at most
///    handoff_round_bytes(memory_bytes, E) (step_memory.h), E the most elements of a taken tensor;
///  * the method's buffers, method_buffers() of spec.method's part (e.g. gao_spec.h: the tiles
///    of A, B and C, 8 · capacity_A, _B, _C).
/// Does not validate the spec (check_spec() does).
StepMemory step_memory(const GemmSpec& spec, std::uint64_t memory_bytes);

/// ⌊√ranks⌋: the side of rotation's √P × √P grid (check_spec() refuses a P that is not a square).
std::int64_t rotation_grid_side(std::int64_t ranks);

/// Checks that `spec` can run on `ranks` ranks with `memory_bytes` of tile memory per rank
/// (0 = unlimited) and returns step_memory(). Throws Error with the reason when it cannot:
///  * the method's own rules, check_method() of spec.method's part (e.g. gao_spec.h: "rotation
///    needs a square number of ranks, not 6", "invalid group layout: ...");
///  * "the plan needs N bytes per rank (PARTS) but the memory per rank is L bytes";
///  * "internal error: the plan said N bytes per rank but the step needs M (PARTS)" when
///    spec.planned_memory_bytes is set and below the need (the planner and the runtime disagree).
StepMemory check_spec(const GemmSpec& spec, std::int64_t ranks, std::uint64_t memory_bytes);

/// "tile of A 1152000 + tile of B 576000 + tile of C 5760000; hand-off rounds 8000000 (load stage)".
std::string parts_text(const StepMemory& memory);

}  // namespace tcert
