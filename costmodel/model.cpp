// costmodel/model.cpp — names of the model's enumerations, as reports print them.
#include "costmodel/model.h"

namespace tcec::costmodel {

const char* to_string(CommMethod m) { return m == CommMethod::Inside ? "inside" : "outside"; }

const char* to_string(Algorithm a) {
  switch (a) {
    case Algorithm::Rotation: return "rotation";
    case Algorithm::Replication: return "replication";
    case Algorithm::Accumulation: return "accumulation";
  }
  return "?";
}

const char* to_string(DiskPlacementOrder o) {
  constexpr const char* kNames[] = {"ABC", "ACB", "BAC", "BCA", "CAB", "CBA"};
  return kNames[static_cast<int>(o)];
}

const char* to_string(ReplicatedOperand r) { return r == ReplicatedOperand::A ? "A" : "B"; }

}  // namespace tcec::costmodel
