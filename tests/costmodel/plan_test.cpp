// Plans: exact volumes (closed form) = the loop-nest simulator for every method ×
// order on random uneven tilings; text round trip; validity diagnostics.
#include <algorithm>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/gao/simulate.h"
#include "costmodel/methods/gao/volumes.h"
#include "costmodel/plan.h"
#include "costmodel/schedules.h"
#include "fixtures.h"

namespace tcec::costmodel {
namespace {

using fixtures::random_group;
using fixtures::roomy;

TEST(Plan, ClosedFormVolumesEqualTheSimulatorForEveryMethodAndOrder) {
  std::mt19937_64 rng(7);
  int checked = 0, checked_apart = 0;
  for (std::int64_t P : {1, 2, 3, 4, 5, 8, 9}) {
    for (int trial = 0; trial < 8; ++trial) {
      const std::int64_t g = std::max<std::int64_t>(P, 3);
      Plan base;
      base.processors = P;
      base.I = random_group(rng, "i", g);
      base.J = random_group(rng, "j", g);
      base.K = random_group(rng, "k", g);
      for (Communication comm : {Communication::Inside, Communication::Outside})
        for (Algorithm alg : {Algorithm::Rotation, Algorithm::Replication, Algorithm::Accumulation})
          for (Operand rep : {Operand::A, Operand::B})
            for (PlacementOrder order : kAllOrders) {
              if (rep == Operand::B && alg != Algorithm::Replication) continue;
              Plan p = base;
              gao(p).comm = comm, gao(p).algorithm = alg, gao(p).replicated = rep, gao(p).order = order;
              const auto second = second_levels(order);
              for (int gi = 0; gi < 3; ++gi)
                if (!second[gi])
                  for (IndexTiles& x : (gi == 0 ? p.I : gi == 1 ? p.J : p.K).indices) x.t2 = 1;
              std::string reason;
              if (!check_valid(p, roomy(P), &reason)) {
                ASSERT_TRUE(alg == Algorithm::Rotation && P != 1 && P != 4 && P != 9) << reason;
                continue;
              }
              const PlanVolumes closed = plan_volumes(p, roomy(P)), walked = simulate(p, roomy(P));
              ASSERT_EQ(closed.disk_read_bytes, walked.disk_read_bytes) << p.to_string();
              ASSERT_EQ(closed.disk_write_bytes, walked.disk_write_bytes) << p.to_string();
              ASSERT_EQ(closed.comm_sent_bytes, walked.comm_sent_bytes) << p.to_string();
              ASSERT_EQ(closed.comm_recv_bytes, walked.comm_recv_bytes) << p.to_string();
              ASSERT_DOUBLE_EQ(closed.time_s, walked.time_s);
              // On nodes of 2 ranks, with a slower network between them: the bytes that cross.
              Machine nodes = roomy(P);
              nodes.ranks_per_node = 2, nodes.internode_network_bytes_per_s = nodes.network_bytes_per_s / 4;
              const PlanVolumes apart = plan_volumes(p, nodes), apart_walked = simulate(p, nodes);
              ASSERT_EQ(apart.internode_sent_bytes.size(), P > 2 ? static_cast<std::size_t>(P) : 0u);
              ASSERT_EQ(apart.internode_sent_bytes, apart_walked.internode_sent_bytes) << p.to_string();
              ASSERT_EQ(apart.internode_recv_bytes, apart_walked.internode_recv_bytes) << p.to_string();
              ASSERT_DOUBLE_EQ(apart.time_s, apart_walked.time_s) << p.to_string();
              for (std::size_t r = 0; r < apart.internode_sent_bytes.size(); ++r)
                ASSERT_LE(apart.internode_sent_bytes[r], apart.comm_sent_bytes[r]) << p.to_string();
              checked_apart += P > 2;
              // Disk requests: each array tiled or in its tensor's file, stored in a random order.
              ArrayAccess access;
              auto stored = [&](std::size_t n) {
                std::vector<int> perm(n);
                std::iota(perm.begin(), perm.end(), 0);
                std::shuffle(perm.begin(), perm.end(), rng);
                return perm;
              };
              access.direct_A = rng() % 2, access.direct_B = rng() % 2, access.direct_C = rng() % 2;
              if (access.direct_A) access.perm_A = stored(p.I.indices.size() + p.K.indices.size());
              if (access.direct_B) access.perm_B = stored(p.J.indices.size() + p.K.indices.size());
              if (access.direct_C) access.perm_C = stored(p.I.indices.size() + p.J.indices.size());
              ASSERT_EQ(gao_requests(p, access), gao_simulate_requests(p, access)) << p.to_string();
              ++checked;
            }
    }
  }
  EXPECT_GT(checked, 2000);
  EXPECT_GT(checked_apart, 1000);
}

TEST(Plan, BytesAcrossNodesArePricedAtTheInternodeNetwork) {
  Machine m = roomy(4);
  m.network_bytes_per_s = 1e9;
  EXPECT_DOUBLE_EQ(m.network_s(4e9, 1e9), 4.0);  // no internode_network: all at B_c
  m.ranks_per_node = 2, m.internode_network_bytes_per_s = 1e8;
  EXPECT_DOUBLE_EQ(m.network_s(4e9, 1e9), 3.0 + 10.0);
  EXPECT_EQ(m.node_of(1), 0);
  EXPECT_EQ(m.node_of(2), 1);
  EXPECT_TRUE(m.apart(1, 2));
  EXPECT_FALSE(m.apart(2, 3));
  EXPECT_DOUBLE_EQ(rank_time_s(1.0, m, 0, 0, 4000000000u, 1000000000u), 13.0);
}

TEST(Plan, EvenTilingsReproduceTheModelVolumes) {
  // 4000³ on P = 4, even tiles: the exact plan moves the model's bytes (notes' table),
  // except the collectives' own-piece savings (ring: (P-1)/P of the broadcast operand).
  Plan p;
  p.processors = 4;
  p.I.indices = {{"i", 4000, 4, 5}};
  p.J.indices = {{"j", 4000, 8, 1}};
  p.K.indices = {{"k", 4000, 10, 1}};
  p.I.dist = p.J.dist = p.K.dist = 0;
  p.accumulate = true;  // C read on every pass, as the model counts it (from zero the first is skipped)
  gao(p).order = PlacementOrder::ABC;
  const Machine m = roomy(4);
  const ModelPoint model = evaluate_model(fixtures::table9_problem(), m, Communication::Inside, Algorithm::Rotation,
                                          gao(p).order, Operand::A, p.tile_counts());
  const PlanVolumes v = plan_volumes(p, m);
  for (int r = 0; r < 4; ++r) {
    EXPECT_DOUBLE_EQ(static_cast<double>(v.disk_read_bytes[r]), model.disk_read_bytes);
    EXPECT_DOUBLE_EQ(static_cast<double>(v.disk_write_bytes[r]), model.disk_write_bytes);
    EXPECT_DOUBLE_EQ(static_cast<double>(v.comm_recv_bytes[r]), model.comm_bytes);
  }
}

TEST(Plan, TextFormRoundTrips) {
  Plan p;
  gao(p).comm = Communication::Outside;
  gao(p).algorithm = Algorithm::Replication;
  gao(p).replicated = Operand::B;
  gao(p).order = PlacementOrder::BCA;
  p.processors = 6;
  p.I.indices = {{"a", 10, 2, 3}, {"b", 7, 1, 1}};
  p.J.indices = {};
  p.K.indices = {{"p", 30, 3, 2}};
  p.K.dist = 0;
  p.split = MemorySplit::Thirds;
  const std::string text = p.to_string();
  EXPECT_EQ(text, "outside-replication order=BCA P=6 bcast=B I=a:2x3,b:1x1 J=- K=p:3x2 dist=-,-,p split=thirds");
  Plan blank = p;
  for (GroupTiling* g : {&blank.I, &blank.J, &blank.K})
    for (IndexTiles& x : g->indices) x.t1 = x.t2 = 1;
  std::string error;
  auto back = parse_plan(text, blank.I, blank.J, blank.K, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, p);
}

TEST(Plan, ParseErrorsNameTheProblem) {
  GroupTiling I{{{"i", 10, 1, 1}}, -1}, J{{{"j", 10, 1, 1}}, -1}, K{{{"k", 10, 1, 1}}, -1};
  std::string error;
  EXPECT_FALSE(parse_plan("inside-rotation order=CBB", I, J, K, &error));
  EXPECT_EQ(error, "unknown order 'CBB' (expected ABC, ACB, BAC, BCA, CAB or CBA)");
  EXPECT_FALSE(parse_plan("sideways-rotation", I, J, K, &error));
  EXPECT_EQ(error, "a plan starts with a method such as inside-rotation, got 'sideways-rotation'");
  EXPECT_FALSE(parse_plan("inside-rotation I=q:1x1", I, J, K, &error));
  EXPECT_EQ(error, "expected 'i:T1xT2' as index 1 of I, got 'q:1x1'");
  EXPECT_FALSE(parse_plan("inside-rotation dist=i,j,q", I, J, K, &error));
  EXPECT_EQ(error, "distribution index 'q' is not in K");
}

TEST(Plan, CheckValidNamesTheFailingItem) {
  Plan p;
  p.processors = 4;
  p.I.indices = {{"i", 100, 1, 1}};
  p.J.indices = {{"j", 100, 1, 1}};
  p.K.indices = {{"k", 100, 60, 1}};
  p.I.dist = p.J.dist = p.K.dist = 0;
  Machine m = roomy(4);
  std::string reason;
  EXPECT_FALSE(check_valid(p, m, &reason));
  EXPECT_EQ(reason, "distribution index k of K has a tile part of 1 elements, fewer than the 2 grid parts");
  p.K.indices[0].t1 = 200;
  EXPECT_FALSE(check_valid(p, m, &reason));
  EXPECT_EQ(reason, "index k of K (extent 100) has tile counts 200x1; need 1 <= t1 <= 100 and 1 <= t2 <= extent/t1");
  p.K.indices[0].t1 = 1;
  m.memory_bytes = 59999;  // tiles: 50·50 elements each
  EXPECT_FALSE(check_valid(p, m, &reason));
  EXPECT_EQ(reason,
            "tiles of A, B and C need 20000 + 20000 + 20000 = 60000 bytes per rank but the memory is 59999 bytes");
}

}  // namespace
}  // namespace tcec::costmodel
