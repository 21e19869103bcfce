// costmodel/methods/sfc/sfc_plan.h — (private) the part of a Plan that sfc adds: C's tile grid,
// the K chunk of a panel and the panel slots of each rank's cache (the walk is in sfc_walk.h).
#pragma once

#include <cstdint>

namespace tcec::costmodel {

/// The integer part of an sfc plan (Plan::method). Text: "tiles=TIxTJ chunk=KC slots=N".
struct SfcPlan {
  std::int64_t tiles_I = 1, tiles_J = 1;  ///< C's tile grid, balanced tiles of flat I and J
  std::int64_t chunk = 1;                 ///< K columns per panel
  std::int64_t slots = 2;                 ///< panel slots of a rank's LRU cache (at least 2)
  friend bool operator==(const SfcPlan&, const SfcPlan&) = default;
};

}  // namespace tcec::costmodel
