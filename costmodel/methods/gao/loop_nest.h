// costmodel/methods/gao/loop_nest.h — the tiled loop nest of a disk placement order (Gao et
// al. §3, Fig. 3(b) after the notes' clean-up), as data: the simulator walks it
// and code generation prints it, so both describe the same program.
#pragma once

#include <array>
#include <vector>

#include "costmodel/model.h"

namespace tcec::costmodel {

/// A tiling loop: over level-1 or level-2 tiles of I, J or K.
enum class LoopVar { I1, I2, J1, J2, K1, K2 };

/// What happens at a level of the nest. Reads bring the array's tile for the
/// loop variables bound so far (a level-1 tile of a group whose level-2 loop is
/// not yet bound, else one finest tile); Compute multiplies the finest blocks
/// C(i,j) += A(i,k)·B(j,k)ᵀ of the bound variables; WriteC writes C's tile back.
enum class Action { ReadA, ReadB, ReadC, Compute, WriteC };

/// One level: loops over `vars` (outer first), then `before` in the body, then
/// the next level, then `after` (still inside this level's loops).
struct LoopLevel {
  std::vector<LoopVar> vars;
  std::vector<Action> before;
  std::vector<Action> after;
};

/// The three levels of `order`:
///   ABC: [I1 K1: read A] [J1: read B] [I2: read C, compute, write C]
///   ACB: [I1 K1: read A] [J1 I2: read C | write C] [K2: read B, compute]
///   BAC: [J1 K1: read B] [I1: read A] [J2: read C, compute, write C]
///   BCA: [J1 K1: read B] [I1 J2: read C | write C] [K2: read A, compute]
///   CAB: [I1 J1: read C | write C] [K1: read A] [J2: read B, compute]
///   CBA: [I1 J1: read C | write C] [K1: read B] [I2: read A, compute]
/// Loop variables that do not appear have one iteration.
std::vector<LoopLevel> loop_nest(DiskPlacementOrder order);

/// Whether `order` loops over level-2 tiles of I, J and K (index 0, 1, 2):
/// ABC, CBA: I;  ACB: I and K;  BAC, CAB: J;  BCA: J and K. A plan's level-2
/// counts of the other groups are 1.
std::array<bool, 3> second_levels(DiskPlacementOrder order);

const char* to_string(LoopVar v);  ///< "I1", …
const char* to_string(Action a);   ///< "read A", …

}  // namespace tcec::costmodel
