// costmodel/methods/gao/loop_nest.cpp — the tiled loop nests of the six disk placement orders
// (Gao et al. §3, Fig. 3(b)) as data, declared in costmodel/schedules.h: the simulator walks them
// and code generation prints them, so both describe the same program.
#include "costmodel/schedules.h"

namespace tcec::costmodel {

std::vector<LoopLevel> loop_nest(PlacementOrder order) {
  using V = LoopVar;
  using A = Action;
  switch (order) {
    case PlacementOrder::ABC:
      return {{{V::I1, V::K1}, {A::ReadA}, {}},
              {{V::J1}, {A::ReadB}, {}},
              {{V::I2}, {A::ReadC, A::Compute, A::WriteC}, {}}};
    case PlacementOrder::ACB:
      return {{{V::I1, V::K1}, {A::ReadA}, {}},
              {{V::J1, V::I2}, {A::ReadC}, {A::WriteC}},
              {{V::K2}, {A::ReadB, A::Compute}, {}}};
    case PlacementOrder::BAC:
      return {{{V::J1, V::K1}, {A::ReadB}, {}},
              {{V::I1}, {A::ReadA}, {}},
              {{V::J2}, {A::ReadC, A::Compute, A::WriteC}, {}}};
    case PlacementOrder::BCA:
      return {{{V::J1, V::K1}, {A::ReadB}, {}},
              {{V::I1, V::J2}, {A::ReadC}, {A::WriteC}},
              {{V::K2}, {A::ReadA, A::Compute}, {}}};
    case PlacementOrder::CAB:
      return {
          {{V::I1, V::J1}, {A::ReadC}, {A::WriteC}}, {{V::K1}, {A::ReadA}, {}}, {{V::J2}, {A::ReadB, A::Compute}, {}}};
    case PlacementOrder::CBA:
      return {
          {{V::I1, V::J1}, {A::ReadC}, {A::WriteC}}, {{V::K1}, {A::ReadB}, {}}, {{V::I2}, {A::ReadA, A::Compute}, {}}};
  }
  return {};
}

std::array<bool, 3> second_levels(PlacementOrder order) {
  switch (order) {
    case PlacementOrder::ABC:
    case PlacementOrder::CBA: return {true, false, false};
    case PlacementOrder::ACB: return {true, false, true};
    case PlacementOrder::BAC:
    case PlacementOrder::CAB: return {false, true, false};
    case PlacementOrder::BCA: return {false, true, true};
  }
  return {false, false, false};
}

const char* to_string(LoopVar v) {
  switch (v) {
    case LoopVar::I1: return "I1";
    case LoopVar::I2: return "I2";
    case LoopVar::J1: return "J1";
    case LoopVar::J2: return "J2";
    case LoopVar::K1: return "K1";
    case LoopVar::K2: return "K2";
  }
  return "?";
}

const char* to_string(Action a) {
  switch (a) {
    case Action::ReadA: return "read A";
    case Action::ReadB: return "read B";
    case Action::ReadC: return "read C";
    case Action::Compute: return "compute";
    case Action::WriteC: return "write C";
  }
  return "?";
}

}  // namespace tcec::costmodel
