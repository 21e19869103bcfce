// runtime/spec/vocabulary.cpp — the names of a Gao plan's choices (vocabulary.h).
#include "runtime/spec/vocabulary.h"

namespace tcert {

const char* to_string(Communication c) { return c == Communication::Inside ? "inside" : "outside"; }

const char* to_string(Algorithm a) {
  switch (a) {
    case Algorithm::Rotation: return "rotation";
    case Algorithm::Replication: return "replication";
    case Algorithm::Accumulation: return "accumulation";
  }
  return "?";
}

const char* to_string(Operand o) { return o == Operand::A ? "A" : "B"; }

const char* to_string(PlacementOrder o) {
  constexpr const char* kNames[] = {"ABC", "ACB", "BAC", "BCA", "CAB", "CBA"};
  return kNames[static_cast<int>(o)];
}

std::optional<Operand> parse_operand(std::string_view name) {
  if (name == "A") return Operand::A;
  if (name == "B") return Operand::B;
  return std::nullopt;
}

std::optional<PlacementOrder> parse_order(std::string_view name) {
  for (PlacementOrder o : kAllOrders)
    if (name == to_string(o)) return o;
  return std::nullopt;
}

}  // namespace tcert
