// costmodel/methods/gao/gao_plan.h — (private) the part of a Plan that the six methods of Gao
// et al. add: communication method, parallel algorithm, broadcast operand and disk placement
// order (§2–§3, Table 1).
#pragma once

#include "costmodel/model.h"

namespace tcec::costmodel {

/// A Gao method's plan part (Plan::method): inside/outside × rotation/replication/accumulation,
/// the operand replication broadcasts, and the disk placement order of the loop nest.
struct GaoPlan {
  Communication comm = Communication::Inside;
  Algorithm algorithm = Algorithm::Rotation;
  Operand replicated = Operand::A;  ///< Replication only: the broadcast operand
  PlacementOrder order = PlacementOrder::ABC;
  /// Overlap (issue 17): two buffers per array, so that an I/O thread reads the next tiles and
  /// writes C's behind while the multiply and the messages run (runtime GaoSpec::overlap). The
  /// tiles then fit in half the memory; the bytes moved at given tiles are the same.
  /// Text: "overlap=yes" (absent: no).
  bool overlap = false;
  friend bool operator==(const GaoPlan&, const GaoPlan&) = default;
};

}  // namespace tcec::costmodel
