// tests/costmodel/methods/gao/minimize_test.cpp — the closed forms (rotation.cpp,
// replication.cpp, accumulation.cpp) against the independent numerical
// minimiser (minimize.cpp) on thousands of random problems and machines, for
// every method × disk placement order × replicated operand; and coverage of
// every case id of every (method, order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "costmodel/methods/gao/model_optimum.h"
#include "costmodel/methods/gao/volumes.h"

namespace tcec::costmodel {
namespace {

struct Sampler {
  std::mt19937_64 rng{20240611};
  double log_uniform(double lo, double hi) {
    return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
  }
  Problem problem(double element_bytes) {
    Problem p;
    p.I = std::round(log_uniform(4, 2e5));
    p.J = std::round(log_uniform(4, 2e5));
    p.K = std::round(log_uniform(4, 2e5));
    p.A = p.I * p.K * element_bytes;
    p.B = p.J * p.K * element_bytes;
    p.C = p.I * p.J * element_bytes;
    return p;
  }
  Machine machine() {
    static constexpr std::int64_t kProcessors[] = {1, 4, 9, 16, 64, 2, 6, 12};
    Machine m;
    m.processors = kProcessors[std::uniform_int_distribution<int>(0, 7)(rng)];
    m.memory_bytes = log_uniform(3e3, 3e10);
    m.disk_read_bytes_per_s = log_uniform(1e6, 1e9);
    m.disk_write_bytes_per_s = m.disk_read_bytes_per_s * log_uniform(0.01, 10);
    m.network_bytes_per_s = m.disk_read_bytes_per_s * log_uniform(0.01, 100);
    m.element_size_bytes = std::uniform_int_distribution<int>(0, 1)(rng) ? 8 : 4;
    m.replication_factor = log_uniform(0.7, 3);
    m.reduction_factor = log_uniform(0.5, 2);
    return m;
  }
};

using MethodKey = std::tuple<Communication, Algorithm, PlacementOrder, Operand>;

std::string describe(const MethodKey& k) {
  static const char* orders[] = {"ABC", "ACB", "BAC", "BCA", "CAB", "CBA"};
  static const char* algorithms[] = {"rotation", "replication", "accumulation"};
  const auto [comm, algorithm, order, replicated] = k;
  return std::string(comm == Communication::Inside ? "inside/" : "outside/") + algorithms[static_cast<int>(algorithm)] +
         " " + orders[static_cast<int>(order)] +
         (algorithm == Algorithm::Replication ? (replicated == Operand::A ? " (A replicated)" : " (B replicated)")
                                              : "");
}

// The case ids documented in model_optimum.h and rotation.cpp.
int case_count(Communication comm, Algorithm algorithm, PlacementOrder order) {
  if (comm == Communication::Outside || algorithm != Algorithm::Rotation) return 4;
  switch (order) {
    case PlacementOrder::ABC:
    case PlacementOrder::BAC: return 12;
    case PlacementOrder::ACB:
    case PlacementOrder::BCA: return 8;
    default: return 4;
  }
}

std::vector<MethodKey> all_methods() {
  std::vector<MethodKey> keys;
  for (Communication comm : {Communication::Outside, Communication::Inside})
    for (Algorithm algorithm : {Algorithm::Rotation, Algorithm::Replication, Algorithm::Accumulation})
      for (PlacementOrder order : kAllOrders)
        for (Operand r : {Operand::A, Operand::B}) {
          if (r == Operand::B && algorithm != Algorithm::Replication) continue;
          keys.emplace_back(comm, algorithm, order, r);
        }
  return keys;
}

double relative_difference(double x, double y) { return std::abs(x - y) / std::abs(y); }

// One method on one problem: closed form == numerical minimum, and the closed
// form's tiles are feasible and give its time under evaluate_model().
struct Coverage {
  std::map<MethodKey, std::set<int>> case_ids;
  double worst_relative_difference = 0;
};

void check_agreement(const Problem& pr, const Machine& m, const MethodKey& k, int trial, Coverage& coverage) {
  const auto [comm, algorithm, order, replicated] = k;
  const ModelPoint closed = model_optimum(pr, m, comm, algorithm, order, replicated);
  const ModelPoint numeric = numerical_optimum(pr, m, comm, algorithm, order, replicated);
  const std::string where = describe(k) + " trial " + std::to_string(trial);
  ASSERT_EQ(closed.feasible, numeric.feasible) << where;
  if (!closed.feasible) {
    EXPECT_EQ(closed.reason, "P = " + std::to_string(m.processors) + " is not a perfect square");
    return;
  }
  const double difference = relative_difference(closed.time_s, numeric.time_s);
  coverage.worst_relative_difference = std::max(coverage.worst_relative_difference, difference);
  ASSERT_LE(difference, 1e-9) << where << ": closed " << closed.time_s << " s, numerical " << numeric.time_s
                              << " s, case " << closed.case_id;
  // The numerical point is feasible, so it can only be (within its precision)
  // above the optimum: a closed form beaten by it is not the minimum.
  ASSERT_GE(numeric.time_s, closed.time_s * (1 - 1e-11)) << where;
  const ModelPoint at_tiles = evaluate_model(pr, m, comm, algorithm, order, replicated, closed.tiles);
  ASSERT_LE(relative_difference(closed.time_s, at_tiles.time_s), 1e-12) << where;
  std::string reason;
  ASSERT_TRUE(fits_memory(pr, m, algorithm, order, replicated, closed.tiles, &reason)) << where << ": " << reason;
  ASSERT_TRUE(fits_memory(pr, m, algorithm, order, replicated, numeric.tiles, &reason))
      << where << " (numerical): " << reason;
  // rotation.cpp: inside ABC has It2 > 1 only with Kt1 = 1 (BAC: Jt2, Kt1).
  if (comm == Communication::Inside && algorithm == Algorithm::Rotation) {
    const TileCounts& t = closed.tiles;
    const double inner = order == PlacementOrder::ABC ? t.It2 : t.Jt2;
    if (order == PlacementOrder::ABC || order == PlacementOrder::BAC) {
      EXPECT_FALSE(t.Kt1 > 1 + 1e-9 && inner > 1 + 1e-9) << where;
    }
  }
  coverage.case_ids[k].insert(closed.case_id);
}

TEST(NumericalOptimum, AgreesWithClosedFormsAndCoversEveryCase) {
  Sampler sampler;
  const std::vector<MethodKey> methods = all_methods();
  Coverage coverage;
  constexpr int kTrials = 4000;
  for (int trial = 0; trial < kTrials; ++trial) {
    const Machine m = sampler.machine();
    const Problem pr = sampler.problem(m.element_size_bytes);
    for (const MethodKey& k : methods) {
      check_agreement(pr, m, k, trial, coverage);
      if (HasFatalFailure()) return;
    }
  }
  std::cout << "worst relative difference closed form vs numerical: " << coverage.worst_relative_difference << "\n";
  for (const MethodKey& k : methods) {
    const auto [comm, algorithm, order, replicated] = k;
    const std::set<int>& seen = coverage.case_ids[k];
    for (int id = 0; id < case_count(comm, algorithm, order); ++id)
      EXPECT_TRUE(seen.count(id)) << describe(k) << ": case " << id << " never reached";
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(case_count(comm, algorithm, order)))
        << describe(k) << ": an undocumented case id";
  }
}

// The closed forms and the minimiser share the reductions to a few tile counts
// (e.g. It2 = 1 in ACB). Check those in all six counts: the problem is convex
// in log space, so the optimum is the one point that no feasible neighbour
// beats. Neighbours: every count scaled by a random factor in [e^-0.3, e^0.3]
// (at least 1), then each violated memory constraint repaired by growing one
// of its tile counts, chosen at random.
double& tile_count(TileCounts& t, int v) {
  double* slots[] = {&t.It1, &t.It2, &t.Jt1, &t.Jt2, &t.Kt1, &t.Kt2};
  return *slots[v];
}

TileCounts random_neighbour(const TileCounts& centre, PlacementOrder order, const TileThresholds& th,
                            Sampler& sampler) {
  TileCounts t = centre;
  for (int v = 0; v < 6; ++v) tile_count(t, v) = std::max(1.0, tile_count(t, v) * sampler.log_uniform(0.74, 1.35));
  const double least[] = {th.a, th.b, th.c};
  for (int x = 0; x < 3; ++x) {
    auto cuts = [&](const TileCounts& u) {
      const LoopNestCounts n = loop_nest_counts(order, u);
      return x == 0 ? n.cuts_A : x == 1 ? n.cuts_B : n.cuts_C;
    };
    const double have = cuts(t);
    if (have >= least[x]) continue;
    std::vector<int> members;  // the tile counts that cut array x
    for (int v = 0; v < 6; ++v) {
      TileCounts probe;
      tile_count(probe, v) = 2;
      if (cuts(probe) > 1) members.push_back(v);
    }
    const int v = members[std::uniform_int_distribution<std::size_t>(0, members.size() - 1)(sampler.rng)];
    tile_count(t, v) *= least[x] / have;
  }
  return t;
}

TEST(ClosedForms, NoFeasibleNeighbourInAllSixTileCountsIsBetter) {
  Sampler sampler;
  const std::vector<MethodKey> methods = all_methods();
  for (int trial = 0; trial < 500; ++trial) {
    const Machine m = sampler.machine();
    const Problem pr = sampler.problem(m.element_size_bytes);
    for (const MethodKey& k : methods) {
      const auto [comm, algorithm, order, replicated] = k;
      const ModelPoint best = model_optimum(pr, m, comm, algorithm, order, replicated);
      if (!best.feasible) continue;
      const TileThresholds th = tile_thresholds(pr, m, algorithm, replicated);
      for (int i = 0; i < 40; ++i) {
        const TileCounts t = random_neighbour(best.tiles, order, th, sampler);
        ASSERT_TRUE(fits_memory(pr, m, algorithm, order, replicated, t));
        const double time = evaluate_model(pr, m, comm, algorithm, order, replicated, t).time_s;
        ASSERT_GE(time, best.time_s * (1 - 1e-12)) << describe(k) << " trial " << trial;
      }
    }
  }
}

}  // namespace
}  // namespace tcec::costmodel
