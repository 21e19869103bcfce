// costmodel/program/handoff_requests.h — (private) exact disk requests per rank of the hand-off's
// moves (sequence.h): a kept tensor taken rank to rank into a later plan's layout (runtime
// placement.h move_tensor) and a kept tensor flushed to the store (runtime flush_kept).
//
// An independent count of the moves: the producer's C tiling and the consumer's array tiling
// (the runtime's tiling rule, runtime/spec/tiling.h), walked block by block and round by round
// in the order the runtime enumerates them, with the runs of adjacent file elements counted per
// run of values (never per element). Units: elements; requests are counts per rank.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "costmodel/plan.h"
#include "costmodel/program/layout.h"

namespace tcec::costmodel {

/// A tensor stored as a distributed tiled matrix X(rows, cols) (runtime TiledMatrix, one per
/// rank): the two groups' tilings, each split over `row_parts` / `col_parts` grid parts (1: not
/// split; a group without a distribution index is never split), the parts (pr, pc) each rank
/// holds (-1: the whole group; nullopt: nothing) and, per position of the matrix's group order
/// (the row group's indices, then the column group's), the tensor dimension it is. Every
/// tensor element is held by exactly one rank.
struct TiledPlacement {
  GroupTiling rows, cols;
  std::int64_t row_parts = 1, col_parts = 1;
  std::vector<std::optional<std::array<std::int64_t, 2>>> parts;  ///< per rank (size P)
  std::vector<int> perm;
};

/// Where array `array` of Gao plan `plan` lies on the ranks, as the runtime's GaoGemm
/// places it (gao.h grid_parts() and rank_parts(): rotation pre-skewed, a broadcast operand
/// each rank's K piece, C on rank 0 only under accumulation), for a tensor whose dimension
/// perm[p] holds GEMM position p of [I,K] (A), [J,K] (B), [I,J] (C) (ir MacroIndexGemm perm_X).
/// Precondition: the plan is a Gao plan (Method::has_layout) that passes check_valid().
TiledPlacement array_placement(const Plan& plan, GemmArray array, const std::vector<int>& perm);

/// The elements one round of a move holds, summed over all holders, on a machine with
/// `memory_bytes` per rank, all free when the move runs (it runs in the load stage, before the
/// step's buffers): ⌊memory / 24⌋, at least 1 (three 8-byte buffers per element: the sender's
/// blocks, the values it sends, those it receives); 2^22 when memory_bytes is 0 (unlimited).
/// runtime/spec/step_memory.h handoff_round_elements() of `memory_bytes` (0 = unlimited), the
/// runtime's own rule.
std::uint64_t handoff_round_elements(double memory_bytes);

/// Disk requests per rank (index = rank) of moving a tensor from placement `from` to placement
/// `to` (same tensor, same P) in rounds of at most `round_elements` elements (runtime
/// move_tensor): finest blocks (f, h) of `from` in row-major order are gathered into rounds while
/// their elements (over all holders) fit; a block that alone exceeds a round goes one holder's
/// part at a time, in pieces of whole runs of its storage order that fit. Per round, a rank that
/// holds any element of it reads them with one request; a rank that receives writes one request
/// per run of consecutive elements of its target file in the order it receives them (senders in
/// rank order, then the round's blocks, each enumerated in the target's tile order per tensor
/// dimension), runs never continuing into the next round. Exact; the work is per run of values
/// of a dimension within one target part (and per meeting of two target blocks where the outer
/// dimensions' target parts hold one value each), not per element.
/// Precondition: both describe one tensor on the same P ranks; round_elements >= 1.
std::vector<std::uint64_t> move_requests(const TiledPlacement& from, const TiledPlacement& to,
                                         std::uint64_t round_elements);

/// An upper bound of move_requests()'s work for a move out of `from` in rounds of
/// `round_elements`, in (sender, receiver) pairs of a block (about 25 ns each): P² per finest
/// block of `from` plus 4·P per round of a piece (none when no block exceeds a round, else at
/// most 2·elements / round_elements + P per block). Cheap (no walk): the sequence plans no hand-off whose count would take long
/// (sequence.h).
std::uint64_t move_work(const TiledPlacement& from, std::uint64_t round_elements);

/// Disk requests per rank of writing a tensor kept in the C layout of Gao plan `producer` to the
/// store (runtime flush_kept → store_version): what the producer's stage 3 would have made, per
/// block the rank holds one read of the block plus one write per run of adjacent elements in the
/// tensor's file (gao.h gao_stage_requests() with only the result stored). perm_C as
/// array_placement(). Precondition: as array_placement().
std::vector<std::uint64_t> flush_requests(const Plan& producer, const std::vector<int>& perm_C);

}  // namespace tcec::costmodel
