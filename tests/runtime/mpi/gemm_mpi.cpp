// tests/runtime/mpi/gemm_mpi.cpp — GaoGemm runs random plans of every method × order on
// P ranks (P = the MPI world size): the values verify against a long-double reference and every
// rank's measured compute-phase bytes equal the cost model's exact prediction (plan_volumes).
// The loop nest is walked from costmodel/schedules.h loop_nest(), as generated code does. The
// hand-off: a result kept on the ranks and taken rank to rank into the next plan's A, B or C
// (or flushed to the store), under every pair of methods, measures the model's bytes and disk
// requests (costmodel/program/handoff_requests.h) in stages 1 and 3.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "costmodel/method_model.h"
#include "costmodel/methods/gao/gao.h"
#include "costmodel/plan.h"
#include "costmodel/program/handoff_requests.h"
#include "costmodel/program/layout.h"
#include "costmodel/schedules.h"
#include "runtime/methods/gao/gao.h"
#include "runtime/program/run.h"
#include "tests/runtime/mpi/test_run.h"

namespace {

namespace cm = tcec::costmodel;
using i64 = std::int64_t;

cm::GroupTiling random_group(std::mt19937_64& rng, const char* prefix, i64 min_extent) {
  cm::GroupTiling g;
  const int n = std::uniform_int_distribution<int>(0, 2)(rng);
  for (int i = 0; i < n; ++i) {
    cm::IndexTiles x{std::string(prefix) + std::to_string(i), std::uniform_int_distribution<i64>(1, 4)(rng), 1, 1};
    x.t1 = std::uniform_int_distribution<i64>(1, x.extent)(rng);
    x.t2 = std::uniform_int_distribution<i64>(1, x.extent / x.t1)(rng);
    g.indices.push_back(x);
  }
  cm::IndexTiles d{std::string(prefix) + "d", std::uniform_int_distribution<i64>(min_extent, 3 * min_extent + 3)(rng),
                   1, 1};
  d.t1 = std::uniform_int_distribution<i64>(1, std::max<i64>(1, d.extent / (2 * min_extent)))(rng);
  d.t2 = std::uniform_int_distribution<i64>(1, std::max<i64>(1, d.extent / (d.t1 * min_extent)))(rng);
  g.dist = std::uniform_int_distribution<int>(0, n)(rng);
  g.indices.insert(g.indices.begin() + g.dist, d);
  return g;
}

cm::Machine roomy(i64 P) {
  cm::Machine m;
  m.processors = P;
  m.memory_bytes = 1e18;
  m.element_size_bytes = 8;
  m.network_bytes_per_s = m.disk_read_bytes_per_s = m.disk_write_bytes_per_s = 1e8;
  return m;
}

tcert::GroupSpec group_spec(const cm::GroupTiling& g) {
  tcert::GroupSpec s;
  for (const cm::IndexTiles& x : g.indices) s.indices.push_back({x.extent, x.t1, x.t2});
  s.dist = g.dist;
  return s;
}

std::vector<i64> extents(const cm::GroupTiling& g) {
  std::vector<i64> e;
  for (const cm::IndexTiles& x : g.indices) e.push_back(x.extent);
  return e;
}

/// A stored [rows..., cols...] tensor, or [cols..., rows...] when `swapped`.
tcert::TensorBinding binding(const char* name, const cm::GroupTiling& rows, const cm::GroupTiling& cols, bool swapped) {
  tcert::TensorBinding b;
  b.shape.name = name;
  const auto r = extents(rows), c = extents(cols);
  const int nr = static_cast<int>(r.size()), nc = static_cast<int>(c.size());
  b.shape.extents = swapped ? c : r;
  b.shape.extents.insert(b.shape.extents.end(), (swapped ? r : c).begin(), (swapped ? r : c).end());
  for (int p = 0; p < nr + nc; ++p) b.perm.push_back(swapped ? (p < nr ? nc + p : p - nr) : p);
  return b;
}

tcert::GemmSpec spec_of(const cm::Plan& p, const cm::PlanVolumes& v, bool overlap) {
  tcert::GemmSpec s;
  s.statement = "C += A * B";
  s.plan = p.to_string();
  tcert::GaoSpec& gao = s.method.emplace<tcert::GaoSpec>();
  gao.comm = cm::gao(p).comm, gao.algorithm = cm::gao(p).algorithm;
  gao.broadcast = cm::gao(p).replicated, gao.order = cm::gao(p).order;
  s.I = group_spec(p.I), s.J = group_spec(p.J), s.K = group_spec(p.K);
  s.A = binding("A", p.I, p.K, false);
  s.B = binding("B", p.J, p.K, true);
  s.C = binding("C", p.I, p.J, false);
  s.alpha = -0.5;
  s.accumulate = p.accumulate;
  const cm::TileBytes t = cm::tile_bytes(p, 8);
  gao.capacity_A = t.A / 8, gao.capacity_B = t.B / 8, gao.capacity_C = t.C / 8;
  gao.overlap = overlap;  // the I/O thread's schedule moves the same bytes as the serial one
  // Direct tile I/O where the model has it (the inside methods): no tiled copies of A and B.
  s.direct_A = s.direct_B = cm::model_of(p).reads_operands_directly(p);
  s.direct_C = cm::writes_result_directly(p, nullptr);
  s.predicted = cm::rank_volumes(v);
  cm::ArrayAccess access{s.direct_A, s.direct_B, s.direct_C, {}, {}, {}};
  if (s.direct_A) access.perm_A = s.A.perm;
  if (s.direct_B) access.perm_B = s.B.perm;
  if (s.direct_C) access.perm_C = s.C.perm;
  s.predicted.disk_requests = cm::model_of(p).disk_requests(p, access);
  cm::PlanVolumes r = cm::redistribution_volumes(p, roomy(p.processors), p.accumulate);
  cm::redistribution_requests(p, roomy(p.processors), {s.A.perm, s.B.perm, s.C.perm, p.accumulate, s.direct_C, true},
                              r);
  s.predicted_redistribution = cm::stage_volumes(r);
  return s;
}

/// Walks the plan's loop nest with the runtime's steps, as generated code does.
class Walker {
 public:
  Walker(tcert::GaoGemm& x, const cm::Plan& p) : x_(x), p_(p) {}
  void run() {
    const bool outside = cm::gao(p_).comm == cm::Communication::Outside;
    if (outside && cm::gao(p_).algorithm == cm::Algorithm::Replication) x_.gather_broadcast_file();
    for (i64 round = 0; round < x_.rounds(); ++round) {
      walk(0);
      if (outside && cm::gao(p_).algorithm == cm::Algorithm::Rotation) x_.shift_operand_files();
    }
    if (outside && cm::gao(p_).algorithm == cm::Algorithm::Accumulation) x_.reduce_C_file();
  }

 private:
  void walk(std::size_t level) {
    if (level == nest_.size()) return;
    loop(level, 0);
  }
  void loop(std::size_t level, std::size_t v) {
    const cm::LoopLevel& lv = nest_[level];
    if (v == lv.vars.size()) {
      for (cm::Action a : lv.before) act(a);
      walk(level + 1);
      for (cm::Action a : lv.after) act(a);
      return;
    }
    const int var = static_cast<int>(lv.vars[v]);
    const tcert::TileGroup& g = group(var / 2);
    for (i64 t = 0; t < (var % 2 == 0 ? g.t1() : g.t2()); ++t) {
      bound_[var] = true, value_[var] = t;
      loop(level, v + 1);
    }
    bound_[var] = false, value_[var] = 0;
  }
  const tcert::TileGroup& group(int g) const { return g == 0 ? x_.I() : g == 1 ? x_.J() : x_.K(); }
  tcert::Tiles tiles(int g) const {
    return bound_[2 * g + 1] ? group(g).tile(value_[2 * g], value_[2 * g + 1]) : group(g).level1(value_[2 * g]);
  }
  void act(cm::Action a) {
    const bool inside = cm::gao(p_).comm == cm::Communication::Inside;
    const bool gather = inside && cm::gao(p_).algorithm == cm::Algorithm::Replication;
    switch (a) {
      case cm::Action::ReadA:
        x_.read_A(tiles(0), tiles(2));
        if (gather && cm::gao(p_).replicated == cm::Operand::A) x_.allgather_A();
        break;
      case cm::Action::ReadB:
        x_.read_B(tiles(1), tiles(2));
        if (gather && cm::gao(p_).replicated == cm::Operand::B) x_.allgather_B();
        break;
      case cm::Action::ReadC: x_.read_C(tiles(0), tiles(1)); break;
      case cm::Action::Compute:
        if (inside && cm::gao(p_).algorithm == cm::Algorithm::Rotation)
          x_.cannon_multiply(tiles(0).first, tiles(1).first, tiles(2).first);
        else
          x_.multiply(tiles(0).first, tiles(1).first, tiles(2).first);
        break;
      case cm::Action::WriteC:
        if (inside && cm::gao(p_).algorithm == cm::Algorithm::Accumulation) x_.allreduce_C();
        x_.write_C(tiles(0), tiles(1));
        break;
    }
  }

  tcert::GaoGemm& x_;
  const cm::Plan& p_;
  std::vector<cm::LoopLevel> nest_ = cm::loop_nest(cm::gao(p_).order);
  bool bound_[6] = {};
  i64 value_[6] = {};
};

TEST(GaoGemm, EveryMethodAndOrderVerifiesAndMeasuresThePredictedBytes) {
  tcert::Context ctx = tcert::Context::world();
  const i64 P = ctx.size();
  std::mt19937_64 rng(11);
  int ran = 0;
  std::uint64_t checked = 0;
  for (int trial = 0; trial < 3; ++trial) {
    // Trial 1 reads and writes its tensor files with explicit requests, the others through mappings.
    const std::unique_ptr<tcert::Run> test_run = tcert_test::make_test_run(ctx, "gemm_mpi", 7, trial == 1);
    tcert::Run& run = *test_run;
    bool has_C = false;  // a version of this trial's C is in the store: later plans may add to it
    const i64 g = std::max<i64>(P, 2);
    cm::Plan base;
    base.processors = P;
    base.I = random_group(rng, "i", g), base.J = random_group(rng, "j", g), base.K = random_group(rng, "k", g);
    for (cm::Communication comm : {cm::Communication::Inside, cm::Communication::Outside})
      for (cm::Algorithm alg : {cm::Algorithm::Rotation, cm::Algorithm::Replication, cm::Algorithm::Accumulation})
        for (cm::Operand rep : {cm::Operand::A, cm::Operand::B})
          for (cm::PlacementOrder order : cm::kAllOrders) {
            if (rep == cm::Operand::B && alg != cm::Algorithm::Replication) continue;
            cm::Plan p = base;
            cm::gao(p).comm = comm, cm::gao(p).algorithm = alg, cm::gao(p).replicated = rep, cm::gao(p).order = order;
            p.accumulate = has_C && ran % 2 == 1;  // C's start values from the store: stage 1 reads them
            const auto second = cm::second_levels(order);
            for (int gi = 0; gi < 3; ++gi)
              if (!second[gi])
                for (cm::IndexTiles& x : (gi == 0 ? p.I : gi == 1 ? p.J : p.K).indices) x.t2 = 1;
            std::string reason;
            if (!cm::check_valid(p, roomy(P), &reason)) {
              ASSERT_EQ(alg, cm::Algorithm::Rotation) << reason;
              continue;
            }
            const cm::PlanVolumes v = cm::plan_volumes(p, roomy(P));
            // Every method and order runs overlapped in some trials and serially in others.
            const bool overlap = (trial + static_cast<int>(order)) % 2 == 1;
            tcert::GaoGemm x(run, spec_of(p, v, overlap));
            Walker w(x, p);
            x.compute([&] { w.run(); });
            x.finish();
            ASSERT_FALSE(run.records().contractions().empty()) << "no record";
            const tcert::ContractionRecord& rec = run.records().contractions().back();
            for (const tcert::VolumeField& f : tcert::kVolumeFields)
              ASSERT_EQ(rec.measured.*f.member, rec.predicted.*f.member)
                  << f.name << " of " << p.to_string() << (overlap ? " (overlapped)" : " (serial)");
            for (const tcert::VolumeField& f : tcert::kStageVolumeFields)
              ASSERT_EQ(rec.redistribution_measured.*f.member, rec.redistribution_predicted.*f.member)
                  << "redistribution " << f.name << " of " << p.to_string() << (p.accumulate ? " (accumulating)" : "");
            ASSERT_LE(run.records().verify_result().max_rel_error, 1e-12) << p.to_string();
            ++ran, has_C = true;
          }
    checked += run.records().verify_result().checked;
  }
  EXPECT_GE(ran, P == 1 || P == 4 ? 3 * 48 : 3 * 36);
  EXPECT_GT(checked, 0u);
}

/// `g` with the same indices (names, extents, distribution index) and new random tile counts, as
/// random_group() draws them.
cm::GroupTiling retile(const cm::GroupTiling& g, std::mt19937_64& rng, i64 min_extent) {
  cm::GroupTiling out = g;
  for (std::size_t i = 0; i < out.indices.size(); ++i) {
    cm::IndexTiles& x = out.indices[i];
    if (static_cast<int>(i) == out.dist) {
      x.t1 = std::uniform_int_distribution<i64>(1, std::max<i64>(1, x.extent / (2 * min_extent)))(rng);
      x.t2 = std::uniform_int_distribution<i64>(1, std::max<i64>(1, x.extent / (x.t1 * min_extent)))(rng);
    } else {
      x.t1 = std::uniform_int_distribution<i64>(1, x.extent)(rng);
      x.t2 = std::uniform_int_distribution<i64>(1, x.extent / x.t1)(rng);
    }
  }
  return out;
}

/// Index names of a tensor stored [rows..., cols...].
std::vector<std::string> names(const cm::GroupTiling& rows, const cm::GroupTiling& cols) {
  std::vector<std::string> out;
  for (const cm::GroupTiling* g : {&rows, &cols})
    for (const cm::IndexTiles& x : g->indices) out.push_back(x.name);
  return out;
}

/// A random Gao plan on `groups` (any of the six methods, either broadcast operand, any order)
/// that check_valid() accepts with levels the order does not tile left whole; nullopt after a
/// few draws that do not.
std::optional<cm::Plan> random_plan(std::mt19937_64& rng, i64 P, const cm::GroupTiling& I, const cm::GroupTiling& J,
                                    const cm::GroupTiling& K) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    cm::Plan p;
    p.processors = P, p.I = I, p.J = J, p.K = K;
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    cm::gao(p).comm = pick(2) == 0 ? cm::Communication::Inside : cm::Communication::Outside;
    cm::gao(p).algorithm = std::array{cm::Algorithm::Rotation, cm::Algorithm::Replication,
                                      cm::Algorithm::Accumulation}[static_cast<std::size_t>(pick(3))];
    cm::gao(p).replicated = pick(2) == 0 ? cm::Operand::A : cm::Operand::B;
    cm::gao(p).order = cm::kAllOrders[static_cast<std::size_t>(pick(6))];
    const auto second = cm::second_levels(cm::gao(p).order);
    for (int gi = 0; gi < 3; ++gi)
      if (!second[gi])
        for (cm::IndexTiles& x : (gi == 0 ? p.I : gi == 1 ? p.J : p.K).indices) x.t2 = 1;
    if (cm::check_valid(p, roomy(P), nullptr)) return p;
  }
  return std::nullopt;
}

TEST(GaoGemm, HandOffMovesAndFlushesMeasureThePredictedBytesAndRequests) {
  tcert::Context ctx = tcert::Context::world();
  const i64 P = ctx.size(), g = std::max<i64>(P, 2);
  const std::unique_ptr<tcert::Run> test_run = tcert_test::make_test_run(ctx, "gemm_handoff_mpi", 5, true);
  tcert::Run& run = *test_run;
  std::mt19937_64 rng(16);
  int moved = 0, flushed = 0;
  for (int trial = 0; trial < 24; ++trial) {
    // T = A·B kept on the ranks, then one of: X(I,J') += T(I,K=J)·B'; X(J',I) += B'·T (T as B);
    // T += A'·B' (T's current values as C); or a step that reads T from the store (a flush).
    const int use = trial % 4;  // 0: take A, 1: take B, 2: take C, 3: flush
    const std::string T = "T" + std::to_string(trial);
    const cm::GroupTiling I = random_group(rng, "i", g), J = random_group(rng, "j", g), K = random_group(rng, "k", g),
                          L = random_group(rng, "l", g);
    const std::optional<cm::Plan> producer = random_plan(rng, P, I, J, K);
    // The consumer's groups: T's indices retiled where it reads T, L and K otherwise.
    const cm::GroupTiling I2 = retile(I, rng, g), J2 = retile(J, rng, g);
    const std::optional<cm::Plan> consumer = use == 0   ? random_plan(rng, P, I2, L, J2)
                                             : use == 1 ? random_plan(rng, P, L, I2, J2)
                                             : use == 2 ? random_plan(rng, P, I2, J2, retile(K, rng, g))
                                                        : random_plan(rng, P, I2, L, J2);
    if (!producer || !consumer) continue;
    const cm::Plan& p1 = *producer;
    cm::Plan p2 = *consumer;
    p2.accumulate = use == 2;
    // Memory: the plans' buffers and at least a few rounds' worth (rounds of ⌊memory / 24⌋).
    const cm::TileBytes t1 = cm::tile_bytes(p1, 8), t2 = cm::tile_bytes(p2, 8);
    const std::uint64_t buffers = 2 * std::max(t1.A + t1.B + t1.C, t2.A + t2.B + t2.C);
    const std::uint64_t memory = std::max<std::uint64_t>(buffers, 24 * std::uniform_int_distribution<int>(1, 60)(rng));
    tcert::budget().set_limit_bytes(memory);
    cm::Machine m = roomy(P);
    m.memory_bytes = static_cast<double>(memory);

    // The producer: C = T stays on the ranks (no stage 3).
    tcert::GemmSpec s1 = spec_of(p1, cm::plan_volumes(p1, m), trial % 2 == 1);
    s1.C = binding(T.c_str(), p1.I, p1.J, false);
    s1.keep_result = true, s1.direct_C = false;
    s1.predicted.disk_requests = cm::model_of(p1).disk_requests(p1, {s1.direct_A,
                                                                     s1.direct_B,
                                                                     false,
                                                                     s1.direct_A ? s1.A.perm : std::vector<int>{},
                                                                     s1.direct_B ? s1.B.perm : std::vector<int>{},
                                                                     {}});
    cm::DeclaredLayouts stays;
    stays.C_stays = true, stays.names_C = names(p1.I, p1.J);
    cm::PlanVolumes r1 = cm::redistribution_volumes(p1, m, false, &stays);
    cm::StageAccess a1{s1.A.perm, s1.B.perm, s1.C.perm, false, false, false};
    cm::redistribution_requests(p1, m, a1, r1);
    s1.predicted_redistribution = cm::stage_volumes(r1);
    {
      tcert::GaoGemm x(run, s1);
      Walker w(x, p1);
      x.compute([&] { w.run(); });
      x.finish();
    }
    ASSERT_NE(run.kept().find(T), nullptr);

    // The consumer: takes T as A, B or C (or flushes it and reads it from the store).
    tcert::GemmSpec s2 = spec_of(p2, cm::plan_volumes(p2, m), trial % 3 == 1);
    const cm::TiledPlacement kept = cm::array_placement(p1, cm::GemmArray::C, s1.C.perm);
    cm::DeclaredLayouts taken;
    taken.names_A = names(p2.I, p2.K), taken.names_B = names(p2.J, p2.K), taken.names_C = names(p2.I, p2.J);
    const cm::TensorLayout T_layout = cm::plan_layout(p1, cm::GemmArray::C, names(p1.I, p1.J));
    std::vector<std::uint64_t> extra;
    cm::StageAccess a2{{}, {}, {}, p2.accumulate, false, true};
    auto moves = [&](cm::GemmArray array, const std::vector<int>& perm) {
      extra = cm::move_requests(kept, cm::array_placement(p2, array, perm), cm::handoff_round_elements(m.memory_bytes));
    };
    if (use == 0) {
      s2.A = binding(T.c_str(), p2.I, p2.K, false), s2.take_A = true, s2.direct_A = false;
      taken.A = T_layout, a2.take_A = true;
      moves(cm::GemmArray::A, s2.A.perm);
    } else if (use == 1) {
      s2.B = binding(T.c_str(), p2.J, p2.K, false), s2.take_B = true, s2.direct_B = false;
      taken.B = T_layout, a2.take_B = true;
      moves(cm::GemmArray::B, s2.B.perm);
    } else if (use == 2) {
      s2.C = binding(T.c_str(), p2.I, p2.J, false), s2.take_C = true, s2.direct_C = false;
      taken.C_in = T_layout, a2.take_C = true;
      moves(cm::GemmArray::C, s2.C.perm);
    } else {
      s2.A = binding(T.c_str(), p2.I, p2.K, false);  // read from the store after the flush
      extra = cm::flush_requests(p1, s1.C.perm);
    }
    s2.accumulate = p2.accumulate;
    a2.perm_A = s2.A.perm, a2.perm_B = s2.B.perm, a2.perm_C = s2.C.perm, a2.direct_C = s2.direct_C;
    s2.predicted.disk_requests = cm::model_of(p2).disk_requests(
        p2, {s2.direct_A, s2.direct_B, s2.direct_C, s2.direct_A ? s2.A.perm : std::vector<int>{},
             s2.direct_B ? s2.B.perm : std::vector<int>{}, s2.direct_C ? s2.C.perm : std::vector<int>{}});
    cm::PlanVolumes r2 = cm::redistribution_volumes(p2, m, p2.accumulate, use == 3 ? nullptr : &taken);
    if (use == 3) {  // the flush: every rank reads what it holds of T and writes it to the store
      const cm::Exchange f = cm::exchange(T_layout, T_layout, P);
      for (std::size_t q = 0; q < r2.disk_read_bytes.size(); ++q)
        r2.disk_read_bytes[q] += 8 * f.read[q], r2.disk_write_bytes[q] += 8 * f.write[q];
    }
    cm::redistribution_requests(p2, m, a2, r2, extra);
    s2.predicted_redistribution = cm::stage_volumes(r2);
    {
      tcert::GaoGemm x(run, s2);
      Walker w(x, p2);
      x.compute([&] { w.run(); });
      x.finish();
    }
    const tcert::ContractionRecord& rec = run.records().contractions().back();
    const std::string what = p1.to_string() + " -> " + p2.to_string() + " (" +
                             (use == 0   ? "A"
                              : use == 1 ? "B"
                              : use == 2 ? "C"
                                         : "flush") +
                             ", memory " + std::to_string(memory) + ")";
    for (const tcert::VolumeField& f : tcert::kVolumeFields)
      ASSERT_EQ(rec.measured.*f.member, rec.predicted.*f.member) << f.name << " of " << what;
    for (const tcert::VolumeField& f : tcert::kStageVolumeFields)
      ASSERT_EQ(rec.redistribution_measured.*f.member, rec.redistribution_predicted.*f.member)
          << "redistribution " << f.name << " of " << what;
    ASSERT_LE(run.records().verify_result().max_rel_error, 1e-12) << what;
    (use == 3 ? flushed : moved) += 1;
    tcert::budget().set_limit_bytes(0);
  }
  EXPECT_GE(moved, 6);
  EXPECT_GE(flushed, 2);
}

}  // namespace
