// costmodel/methods/cosma/cosma_plan.h — (private) the part of a Plan that cosma adds: its
// processor grid and rounds (the schedule is in cosma.h).
#pragma once

#include <cstdint>

namespace tcec::costmodel {

/// The integer part of a cosma plan (Plan::method): the processor grid over the macro-indices
/// and the rounds along K.
struct CosmaGrid {
  std::int64_t pm = 1, pn = 1, pk = 1;  ///< ranks along I, J, K; pm·pn·pk <= P ranks are used
  std::int64_t rounds = 1;              ///< t: rounds along K (1 when the local domain fits)
  std::int64_t used() const { return pm * pn * pk; }
  /// Slice buffers per operand: 1 for one round, 2 for several (double buffering, COSMA
  /// §7.3). Rounds j < buffers() keep their own pieces in these buffers from the load phase
  /// on; only later rounds stream from the local disk (cosma.h, THE SCHEDULE).
  std::int64_t buffers() const { return rounds > 1 ? 2 : 1; }
  friend bool operator==(const CosmaGrid&, const CosmaGrid&) = default;
};

}  // namespace tcec::costmodel
