// runtime/comm/placement.h — where the parts of a tensor lie on the ranks' local disks, and moving
// a tensor from one placement to another rank to rank (Gao et al. §2.3 stages 1 and 3 without
// the tensor store): the result a step left on the ranks in its C layout goes straight into
// the layout of the next step that reads it. Units: elements unless a name says bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/comm/comm.h"
#include "runtime/spec/step_memory.h"  // handoff_round_elements(), handoff_round_bytes()
#include "runtime/storage/tiled_matrix.h"

namespace tcert {

/// The placement of a tensor stored as a distributed tiled matrix X(rows, cols): the two
/// groups' layouts, the parts each rank holds (TiledMatrix pr, pc; -1 = the whole group;
/// nullopt = nothing) and, for each position of the matrix's group order (the row group's
/// indices, then the column group's), the tensor dimension it is (as TensorBinding::perm).
/// Every tensor element is held by exactly one rank.
struct Placement {
  GroupLayout rows, cols;
  std::vector<std::optional<std::array<std::int64_t, 2>>> parts;  ///< per rank (size P)
  std::vector<int> perm;
};

/// Moves a tensor from placement `from` to placement `to` (the same tensor; both have one
/// entry per rank of ctx): every rank reads each element it holds under `from` once from
/// `held` and sends it to the rank holding it under `to`, which writes it once into `target`
/// (the caller has sized it with TiledMatrix::create()). Only values go over the network:
/// sender and receiver enumerate the elements that move between them in the same order
/// (per tensor dimension the values of the sender's block that the receiver's part holds,
/// nested in the target's tile order), so the receiver knows where each value belongs.
///
/// Rounds of consecutive finest blocks (f, h) of `from`, all ranks in step, one alltoallv
/// each; a round holds as many blocks as fit in handoff_round_elements() of the budget's free
/// bytes (counting every holder's part). A block that alone exceeds it is sent one holder's
/// part at a time, and a holder's part that still exceeds it in pieces that do: runs of
/// consecutive elements of the part's block (a prefix of the block's indices fixed, the next
/// one cut into a range). So no rank ever allocates more than handoff_round_bytes(). A sender
/// reads its blocks (or piece) of the round with one DiskFile::read (they lie back to back);
/// the receiver writes each run of consecutive file elements with one DiskFile::write.
/// held / target: this rank's file under each placement (nullptr when it holds nothing).
/// Counted (bytes; exactly costmodel layout.h exchange(from, to) times 8): disk read
/// 8·(elements held), disk write 8·(elements placed here), sent 8·(elements going to other
/// ranks), recv 8·(elements coming from other ranks). Buffers are allocated through
/// budget() per round: the sender's blocks, its outgoing values and the incoming values. Collective over ctx. Throws Error when
/// the placements do not describe one tensor on ctx.size() ranks, or on I/O and MPI errors.
void move_tensor(const Context& ctx, const Placement& from, TiledMatrix* held, const Placement& to,
                 TiledMatrix* target);

}  // namespace tcert
