// costmodel/methods/gao/gao_plan.h — (private) the part of a Plan that the six methods of Gao
// et al. add: communication method, parallel algorithm, broadcast operand and disk placement
// order (§2–§3, Table 1).
#pragma once

#include "costmodel/model.h"

namespace tcec::costmodel {

/// A Gao method's plan part (Plan::method): inside/outside × rotation/replication/accumulation,
/// the operand replication broadcasts, and the disk placement order of the loop nest.
struct GaoPlan {
  CommMethod comm = CommMethod::Inside;
  Algorithm algorithm = Algorithm::Rotation;
  ReplicatedOperand replicated = ReplicatedOperand::A;  ///< Replication only: the broadcast operand
  DiskPlacementOrder order = DiskPlacementOrder::ABC;
  friend bool operator==(const GaoPlan&, const GaoPlan&) = default;
};

}  // namespace tcec::costmodel
