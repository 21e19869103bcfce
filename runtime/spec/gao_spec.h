// runtime/spec/gao_spec.h — the part of a GemmSpec that GaoGemm's methods (the six of Gao et
// al.) add: communication, parallel algorithm, broadcast operand, disk placement order
// (vocabulary.h) and tile capacities; and their checks, buffers and trace names (gao_spec.cpp,
// no MPI). Units: elements.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/spec/vocabulary.h"

namespace tcert {

struct GemmSpec;
struct MemoryPart;

/// A Gao plan's part of the spec (GemmSpec::method), run by GaoGemm (methods/gao/gao.h).
struct GaoSpec {
  Communication comm = Communication::Inside;
  Algorithm algorithm = Algorithm::Rotation;
  Operand broadcast = Operand::A;  ///< replication only
  /// The disk placement order of the loop nest the generated program runs (for the trace).
  PlacementOrder order = PlacementOrder::ABC;
  /// Tile buffer capacities in elements (the plan's tile_bytes / kElementBytes).
  std::uint64_t capacity_A = 0, capacity_B = 0, capacity_C = 0;
  /// Overlap (issue 17): a second buffer of each capacity per array, so that an I/O thread
  /// reads the next tiles and writes the last C tile while the program's thread multiplies and
  /// communicates (GaoGemm::compute). The same bytes move either way.
  bool overlap = false;
};

/// The layouts GaoGemm builds, checked on `ranks` ranks. Throws Error: "rotation needs
/// a square number of ranks, not 6", or an invalid tiling or distribution index.
void check_method(const GaoSpec& part, const GemmSpec& spec, std::int64_t ranks);
/// The tiles of A, B and C: bytes_of(capacity_A, _B, _C), live to the end of the step; with
/// overlap each twice ("tile of A", then "second tile of A", …).
std::vector<MemoryPart> method_buffers(const GaoSpec& part, const GemmSpec& spec);
/// ("inside" | "outside", "rotation" | "replication" | "accumulation") for the trace.
std::pair<const char*, const char*> trace_names(const GaoSpec& part);

}  // namespace tcert
