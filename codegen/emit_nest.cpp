// codegen/emit_nest.cpp — emit_compute(): the tiled loop nest of a disk placement
// order (costmodel::loop_nest, Gao et al. §3 Fig. 3(b)) printed as C++ loops, with
// each method's collectives where costmodel/methods/gao/simulate.cpp counts them:
//   inside rotation       Compute is cannon_multiply (multiply + shifts, √P steps)
//   inside replication    allgather_A() right after read_A (B: allgather_B after read_B)
//   inside accumulation   allreduce_C() right before write_C
//   outside rotation      the nest runs x.rounds() times, shift_operand_files() after each
//   outside replication   gather_broadcast_file() before the nest
//   outside accumulation  reduce_C_file() after the nest
#include <array>

#include "codegen/emit.h"
#include "costmodel/schedules.h"

namespace tcec::codegen {

namespace {

using costmodel::Action;
using costmodel::Algorithm;
using costmodel::Communication;
using costmodel::LoopLevel;
using costmodel::LoopVar;

constexpr std::array<LoopVar, 6> kVars = {LoopVar::I1, LoopVar::I2, LoopVar::J1, LoopVar::J2, LoopVar::K1, LoopVar::K2};
constexpr const char* kVarNames[] = {"i1", "i2", "j1", "j2", "k1", "k2"};          // by LoopVar
constexpr const char* kCountNames[] = {"It1", "It2", "Jt1", "Jt2", "Kt1", "Kt2"};  // its trip count

int id(LoopVar v) { return static_cast<int>(v); }

/// "[I1 J1: read C | write C] [K1: read A] [J2: read B, compute]" (schedules.h loop_nest()'s notation).
std::string nest_text(const std::vector<LoopLevel>& nest) {
  std::string out;
  auto join = [](const auto& list, const char* separator) {
    std::vector<std::string> names;
    for (auto item : list) names.emplace_back(costmodel::to_string(item));
    return fmt::format("{}", fmt::join(names, separator));
  };
  for (const LoopLevel& level : nest) {
    out += fmt::format("{}[{}: {}", out.empty() ? "" : " ", join(level.vars, " "), join(level.before, ", "));
    if (!level.after.empty()) out += fmt::format(" | {}", join(level.after, ", "));
    out += "]";
  }
  return out;
}

class NestEmitter {
 public:
  NestEmitter(CodeWriter& w, const costmodel::Plan& plan)
      : w_(w), plan_(plan), gao_(std::get<costmodel::GaoPlan>(plan.method)), nest_(costmodel::loop_nest(gao_.order)) {}

  const std::vector<LoopLevel>& nest() const { return nest_; }
  bool looped(LoopVar v) const {
    for (const LoopLevel& level : nest_)
      for (LoopVar u : level.vars)
        if (u == v) return true;
    return false;
  }
  void level(std::size_t l) {
    if (l < nest_.size()) loops(nest_[l], 0, l);
  }

 private:
  bool inside(Algorithm a) const { return gao_.comm == Communication::Inside && gao_.algorithm == a; }
  bool broadcasts(costmodel::Operand r) const { return inside(Algorithm::Replication) && gao_.replicated == r; }

  void loops(const LoopLevel& lv, std::size_t v, std::size_t l) {
    if (v == lv.vars.size()) {
      for (Action a : lv.before) act(a);
      level(l + 1);
      for (Action a : lv.after) act(a);
      return;
    }
    const int var = id(lv.vars[v]);
    w_.open("for (std::int64_t {0} = 0; {0} < {1}; ++{0})", kVarNames[var], kCountNames[var]);
    bound_[var] = true;
    loops(lv, v + 1, l);
    bound_[var] = false;
    w_.close();
  }

  /// The tile range of group g (0 I, 1 J, 2 K) at this point of the nest.
  std::string tiles(int g) const {
    const char* x1 = kVarNames[2 * g];
    if (bound_[2 * g + 1]) return fmt::format("x.{}().tile({}, {})", "IJK"[g], x1, kVarNames[2 * g + 1]);
    return fmt::format("x.{}().level1({})", "IJK"[g], x1);
  }
  /// The finest tile id of group g: x1 · Xt2 + x2 when X2 is looped, else x1 (Xt2 = 1).
  std::string finest(int g) const {
    if (!bound_[2 * g + 1]) return kVarNames[2 * g];
    return fmt::format("{} * {} + {}", kVarNames[2 * g], kCountNames[2 * g + 1], kVarNames[2 * g + 1]);
  }

  void act(Action a) {
    switch (a) {
      case Action::ReadA:
        w_.line("x.read_A({}, {});", tiles(0), tiles(2));
        if (broadcasts(costmodel::Operand::A))
          w_.line("x.allgather_A();  // ring all-gather: every rank now holds the whole tile of A");
        break;
      case Action::ReadB:
        w_.line("x.read_B({}, {});", tiles(1), tiles(2));
        if (broadcasts(costmodel::Operand::B))
          w_.line("x.allgather_B();  // ring all-gather: every rank now holds the whole tile of B");
        break;
      case Action::ReadC: w_.line("x.read_C({}, {});", tiles(0), tiles(1)); break;
      case Action::Compute:
        if (inside(Algorithm::Rotation)) {
          w_.line("x.cannon_multiply({}, {}, {});  // Cannon: √P steps of multiply, shift A left, shift B up",
                  finest(0), finest(1), finest(2));
        } else {
          w_.line("x.multiply({}, {}, {});", finest(0), finest(1), finest(2));
        }
        break;
      case Action::WriteC:
        if (inside(Algorithm::Accumulation))
          w_.line("x.allreduce_C();  // all-reduce: sum the partial C tiles of all ranks");
        w_.line("x.write_C({}, {});", tiles(0), tiles(1));
        break;
    }
  }

  CodeWriter& w_;
  const costmodel::Plan& plan_;
  const costmodel::GaoPlan& gao_;
  std::vector<LoopLevel> nest_;
  std::array<bool, 6> bound_{};
};

}  // namespace

void emit_compute(CodeWriter& w, const costmodel::Plan& plan) {
  const costmodel::GaoPlan& gao = std::get<costmodel::GaoPlan>(plan.method);
  NestEmitter nest(w, plan);
  const std::array<bool, 3> second = costmodel::second_levels(gao.order);
  const costmodel::GroupTiling* groups[] = {&plan.I, &plan.J, &plan.K};
  std::string counts;
  for (LoopVar v : kVars) {
    const int g = id(v) / 2;
    const bool level2 = id(v) % 2 == 1;
    TCEC_ASSERT(!level2 || nest.looped(v) || groups[g]->t2() == 1, "a level-2 count the order does not loop is 1");
    TCEC_ASSERT(!level2 || nest.looped(v) == second[g], "loop_nest and second_levels agree");
    if (!nest.looped(v)) continue;
    counts += fmt::format("{}{} = x.{}().{}()", counts.empty() ? "" : ", ", kCountNames[id(v)], "IJK"[g],
                          level2 ? "t2" : "t1");
  }
  w.line("const std::int64_t {};", counts);
  w.open("x.compute([&]");
  w.line("// order {}: {}", costmodel::to_string(gao.order), nest_text(nest.nest()));
  const bool outside = gao.comm == Communication::Outside;
  if (outside && gao.algorithm == Algorithm::Replication)
    w.line("x.gather_broadcast_file();  // ring all-gather of {}'s file, disk to disk: every rank gets all of {}",
           costmodel::to_string(gao.replicated), costmodel::to_string(gao.replicated));
  if (outside && gao.algorithm == Algorithm::Rotation) {
    w.open("for (std::int64_t round = 0; round < x.rounds(); ++round)");
    nest.level(0);
    w.line("x.shift_operand_files();  // Cannon on files: shift A's file one rank left and B's one rank up");
    w.close();
  } else {
    nest.level(0);
  }
  if (outside && gao.algorithm == Algorithm::Accumulation)
    w.line("x.reduce_C_file();  // sum every rank's partial C file into rank 0's");
  w.close(");");
}

}  // namespace tcec::codegen
