// costmodel/methods/sfc/sfc_plan.h — (private) the part of a Plan that sfc adds: C's tile grid,
// the K chunk of a panel, the panel slots of each rank's cache and the replication c along K
// (the walk is in sfc_walk.h).
#pragma once

#include <cstdint>

namespace tcec::costmodel {

/// The integer part of an sfc plan (Plan::method). Text: "tiles=TIxTJ chunk=KC slots=N", then
/// " c=C" when layers > 1.
struct SfcPlan {
  std::int64_t tiles_I = 1, tiles_J = 1;  ///< C's tile grid, balanced tiles of flat I and J
  std::int64_t chunk = 1;                 ///< K columns per panel
  std::int64_t slots = 2;                 ///< panel slots of a rank's LRU cache (at least 2)
  /// c, the replication of C along K (2.5D, Solomonik and Demmel; the issue's "replication c
  /// along K"): the P ranks form c layers of P/c (c divides P); layer x walks the whole curve
  /// over its balanced share of K and the c partial tiles of C are reduced (summed) after each
  /// tile. 1: no replication.
  std::int64_t layers = 1;
  friend bool operator==(const SfcPlan&, const SfcPlan&) = default;
};

}  // namespace tcec::costmodel
