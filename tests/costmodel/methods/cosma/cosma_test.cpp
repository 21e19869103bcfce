// tests/costmodel/methods/cosma/cosma_test.cpp — COSMA in the cost model (costmodel/methods/cosma/cosma.h): Eq. 32 and
// Eq. 33, the rounds, the grid fitting of §7.1, the exact per-rank schedule against a
// message-by-message walk of every ring step, cosma plans, and the dry-run's choice.
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <tuple>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/method.h"
#include "costmodel/methods/cosma/cosma.h"
#include "costmodel/methods/gao/simulate.h"
#include "frontend/frontend.h"
#include "runtime/spec/cosma_spec.h"
#include "tests/costmodel/fixtures.h"

namespace tcec::costmodel {
namespace {

using u64 = std::uint64_t;
constexpr double kUnlimited = std::numeric_limits<double>::infinity();

/// P ranks of `memory_words` 8-byte words; bandwidths in bytes per second.
Machine machine_of(std::int64_t P, double memory_words, double network = 200e6, double disk = 8e6) {
  Machine m;
  m.processors = P;
  m.memory_bytes = memory_words * 8;
  m.network_bytes_per_s = network;
  m.disk_read_bytes_per_s = m.disk_write_bytes_per_s = disk;
  return m;
}

std::string grid_text(const CosmaGrid& g) { return fmt::format("{}x{}x{}", g.pm, g.pn, g.pk); }

u64 max_of(const std::vector<u64>& v) { return *std::max_element(v.begin(), v.end()); }
u64 sum_of(const std::vector<u64>& v) { return std::accumulate(v.begin(), v.end(), u64{0}); }

/// The closed form and the walk agree on every rank and quantity.
void expect_closed_form_equals_walk(const CosmaGrid& g, std::int64_t m, std::int64_t n, std::int64_t k,
                                    const Machine& machine, const std::string& what) {
  const PlanVolumes closed = cosma_volumes(g, m, n, k, machine, 0, machine.processors);
  const PlanVolumes walked = cosma_walk(g, m, n, k, machine);
  EXPECT_EQ(closed.disk_read_bytes, walked.disk_read_bytes) << what;
  EXPECT_EQ(closed.disk_write_bytes, walked.disk_write_bytes) << what;
  EXPECT_EQ(closed.comm_sent_bytes, walked.comm_sent_bytes) << what;
  EXPECT_EQ(closed.comm_recv_bytes, walked.comm_recv_bytes) << what;
  EXPECT_EQ(closed.internode_sent_bytes, walked.internode_sent_bytes) << what;
  EXPECT_EQ(closed.internode_recv_bytes, walked.internode_recv_bytes) << what;
  EXPECT_DOUBLE_EQ(closed.time_s, walked.time_s) << what;
}

TEST(Cosma, SquareOnFourRanksSplitsJAndK) {
  // 4000^3 on 4 ranks, unlimited memory: grid 1x2x2. Rank (0,y,z) gathers A(0,z) = 4000x2000
  // from 2 ranks (receives 4 M) and needs no B traffic (pm = 1); the reduce-scatter of its
  // 4000x2000 partial C over 2 ranks receives 4 M. 8 M doubles = 64,000,000 bytes each way.
  const CosmaStrategy s = cosma_strategy(4000, 4000, 4000, 4, kUnlimited);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_EQ(s.grid, (CosmaGrid{1, 2, 2, 1}));
  EXPECT_EQ(s.idle_ranks, 0);
  EXPECT_EQ(s.max_recv_words, 8'000'000u);
  EXPECT_EQ(s.max_sent_words, 8'000'000u);
  const Machine machine = machine_of(4, kUnlimited);
  const PlanVolumes v = cosma_volumes(s.grid, 4000, 4000, 4000, machine, 0, 4);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(v.comm_recv_bytes[rank], 64'000'000u) << rank;
    EXPECT_EQ(v.comm_sent_bytes[rank], 64'000'000u) << rank;
    // One round: the A piece and B block stay in the slice buffers from the load phase, and
    // the reduced C piece in the C block until stage 3; the compute stage touches no disk.
    EXPECT_EQ(v.disk_read_bytes[rank], 0u) << rank;
    EXPECT_EQ(v.disk_write_bytes[rank], 0u) << rank;
  }
  expect_closed_form_equals_walk(s.grid, 4000, 4000, 4000, machine, "4000^3 P=4");
}

TEST(Cosma, OneRankMovesNothing) {
  const CosmaStrategy s = cosma_strategy(300, 200, 100, 1, kUnlimited);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.grid, (CosmaGrid{1, 1, 1, 1}));
  const CosmaRankWords w = cosma_rank_words(s.grid, 300, 200, 100, 0);
  EXPECT_EQ(w.sent, 0u);
  EXPECT_EQ(w.recv, 0u);
  EXPECT_EQ(w.read, 0u);  // one round: in memory from the load phase
  EXPECT_EQ(w.write, 0u);
  EXPECT_EQ(w.owned, 300u * 100 + 200u * 100);
  EXPECT_EQ(w.result, 300u * 200);
}

TEST(Cosma, Eq32AndEq33) {
  const double cube = std::cbrt(16e9);  // (mnk/P)^{1/3} for 4000^3 on 4 ranks
  CosmaStrategy s = cosma_strategy(4000, 4000, 4000, 4, 8e6);
  EXPECT_DOUBLE_EQ(s.ideal_a, cube);  // √S = 2828 > 2520: the cubic domain fits
  EXPECT_DOUBLE_EQ(s.ideal_b, cube);
  EXPECT_EQ(s.ideal_rounds, std::ceil(2 * cube * cube / (8e6 - cube * cube)));
  EXPECT_EQ(s.ideal_rounds, 8);
  EXPECT_NEAR(s.bound_words, 3 * cube * cube, 1e-6);  // 3(mnk/P)^{2/3}: the cube fits (a = (mnk/P)^{1/3})
  s = cosma_strategy(4000, 4000, 4000, 4, 1e6);
  EXPECT_DOUBLE_EQ(s.ideal_a, 1000);   // √S
  EXPECT_DOUBLE_EQ(s.ideal_b, 16000);  // mnk/(PS)
  EXPECT_TRUE(std::isinf(s.ideal_rounds));
  EXPECT_DOUBLE_EQ(s.bound_words, 2 * 16e9 / 1000 + 1e6);  // a = √S: 2mnk/(P√S) + S, not the smaller 3(mnk/P)^{2/3}
  EXPECT_NEAR(cosma_bound_words(4000, 4000, 4000, 4, kUnlimited), 3 * cube * cube, 1e-6);
  // δ: 3% of P, at least 1, fewer than half the ranks.
  for (auto [P, delta] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 0}, {2, 0}, {3, 1}, {8, 1}, {66, 1}, {67, 2}, {100, 3}, {1000, 30}})
    EXPECT_EQ(default_max_idle_ranks(P), delta) << P;
}

TEST(Cosma, LeastRoundsThatFit) {
  // One round when the whole domain fits; otherwise two slice buffers each (double buffering).
  EXPECT_EQ(cosma_min_rounds(2000, 2000, 4000, 8e6, MemorySplit::Optimal), 8);  // 4M of C + 2·4000·500
  EXPECT_EQ(cosma_min_rounds(2000, 2000, 4000, kUnlimited, MemorySplit::Optimal), 1);
  EXPECT_EQ(cosma_min_rounds(4000, 2000, 2000, 8e6, MemorySplit::Optimal), 0);  // C alone fills S
  EXPECT_EQ(cosma_min_rounds(10, 10, 10, 300, MemorySplit::Optimal), 1);        // 100 + 20·10 = 300
  EXPECT_EQ(cosma_min_rounds(10, 10, 10, 299, MemorySplit::Optimal), 3);        // 100 + 2·20·4 <= 299
  EXPECT_EQ(cosma_min_rounds(10, 10, 10, 140, MemorySplit::Optimal), 10);       // 100 + 2·20·1
  EXPECT_EQ(cosma_min_rounds(10, 10, 10, 139, MemorySplit::Optimal), 0);
  EXPECT_EQ(cosma_min_rounds(1000, 1000, 3000, 3.3e6, MemorySplit::Thirds), 6);  // 2·550 columns per third
  EXPECT_EQ(cosma_min_rounds(1000, 1000, 3000, 2.9e6, MemorySplit::Thirds), 0);  // C > S/3
}

TEST(Cosma, OutOfCoreRoundsKeepTheVolumes) {
  // The 64 MB machine of examples/matmul.tce: only 2x2x1 leaves room beside its 2000x2000 C
  // block; 8 rounds of 500 K columns, double-buffered. Each rank gathers a 2000x4000 A and B
  // block (4 M each). Its own pieces of rounds 0 and 1 (2/8 of 4 M + 4 M) go straight to the
  // two slice buffers; rounds 2..7 (6 M) stream from its disk. C stays in memory.
  const CosmaStrategy s = cosma_strategy(4000, 4000, 4000, 4, 8e6);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_EQ(s.grid, (CosmaGrid{2, 2, 1, 8}));
  EXPECT_EQ(s.slice_k, 500);
  EXPECT_EQ(s.memory_used_words, 8e6);
  const Machine machine = machine_of(4, 8e6);
  const PlanVolumes v = cosma_volumes(s.grid, 4000, 4000, 4000, machine, 0, 4);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(v.comm_recv_bytes[rank], 8u * 8'000'000) << rank;
    EXPECT_EQ(v.disk_read_bytes[rank], 8u * 6'000'000) << rank;
    EXPECT_EQ(v.disk_write_bytes[rank], 0u) << rank;
  }
  EXPECT_DOUBLE_EQ(v.time_s, 48e6 / 8e6 + 64e6 / 200e6);
  expect_closed_form_equals_walk(s.grid, 4000, 4000, 4000, machine, "4000^3 P=4 S=8e6");
}

struct Shape {
  const char* name;
  std::int64_t m, n, k;
};
// square (m = n = k), largeK (m = n << k), largeM (m >> n = k), flat (m = n >> k).
constexpr Shape kShapes[] = {
    {"square", 4000, 4000, 4000}, {"largeK", 500, 500, 64000}, {"largeM", 64000, 500, 500}, {"flat", 8000, 8000, 250}};
constexpr Shape kOddShapes[] = {
    {"square", 4001, 3999, 4003}, {"largeK", 501, 499, 64007}, {"largeM", 64007, 501, 499}, {"flat", 8009, 7993, 251}};

TEST(Cosma, ChosenGridsOfTheFourShapes) {
  // Unlimited memory, P = 1..8: "grid/idle ranks". Idle ranks only where P is prime and
  // dropping one rank cuts the communication by more than the work it adds (P = 5, 7).
  const char* expected[4][8] = {
      {"1x1x1/0", "1x1x2/0", "1x1x3/0", "1x2x2/0", "1x2x2/1", "1x3x2/0", "1x3x2/1", "2x2x2/0"},
      {"1x1x1/0", "1x1x2/0", "1x1x3/0", "1x1x4/0", "1x1x5/0", "1x1x6/0", "1x1x7/0", "1x1x8/0"},
      {"1x1x1/0", "2x1x1/0", "3x1x1/0", "4x1x1/0", "5x1x1/0", "6x1x1/0", "7x1x1/0", "8x1x1/0"},
      {"1x1x1/0", "1x2x1/0", "1x3x1/0", "2x2x1/0", "2x2x1/1", "2x3x1/0", "2x3x1/1", "2x4x1/0"}};
  for (int shape = 0; shape < 4; ++shape) {
    const Shape& sh = kShapes[shape];
    for (std::int64_t P = 1; P <= 8; ++P) {
      const CosmaStrategy s = cosma_strategy(sh.m, sh.n, sh.k, P, kUnlimited);
      ASSERT_TRUE(s.feasible) << sh.name << " P=" << P;
      EXPECT_EQ(s.grid.rounds, 1);
      EXPECT_EQ(fmt::format("{}/{}", grid_text(s.grid), s.idle_ranks), expected[shape][P - 1]) << sh.name << " P=" << P;
    }
  }
  // With δ = 0 the prime P = 5 must use all ranks, at more communication per rank.
  const CosmaStrategy all5 = cosma_strategy(4000, 4000, 4000, 5, kUnlimited, 0);
  EXPECT_EQ(all5.idle_ranks, 0);
  EXPECT_EQ(all5.max_recv_words, 12'800'000u);  // 4/5 of one 4000x4000 array
  EXPECT_EQ(cosma_strategy(4000, 4000, 4000, 5, kUnlimited).max_recv_words, 8'000'000u);
}

TEST(Cosma, FourShapesOnSmallMachinesMatchTheWalkAndTheBound) {
  // P = 2, 3, 5, 6, 8 (and 1, 4, 7), even and uneven extents, unlimited and limited memory:
  // valid grids within δ, the closed form equal to the message-by-message walk on every rank,
  // the strategy's maxima equal to the ranks' maxima, every element of A and B read once and
  // of C written once, idle ranks silent, and received words <= stretch × bound.
  int feasible = 0, out_of_core = 0;
  for (const auto* shapes : {kShapes, kOddShapes}) {
    for (int i = 0; i < 4; ++i) {
      const Shape& sh = shapes[i];
      for (std::int64_t P = 1; P <= 8; ++P) {
        for (double S : {kUnlimited, 4e6, 1e6}) {
          const std::string what = fmt::format("{} {}x{}x{} P={} S={}", sh.name, sh.m, sh.n, sh.k, P, S);
          const CosmaStrategy s = cosma_strategy(sh.m, sh.n, sh.k, P, S);
          if (!s.feasible) {
            EXPECT_NE(s.reason.find("no processor grid fits the memory"), std::string::npos) << what;
            continue;
          }
          ++feasible;
          out_of_core += s.grid.rounds > 1;
          const CosmaGrid& g = s.grid;
          EXPECT_LE(g.used(), P) << what;
          EXPECT_EQ(s.idle_ranks, P - g.used()) << what;
          EXPECT_LE(s.idle_ranks, default_max_idle_ranks(P)) << what;
          EXPECT_TRUE(g.pm <= sh.m && g.pn <= sh.n && g.pk <= sh.k) << what;
          EXPECT_LE(s.memory_used_words, S) << what;
          const Machine machine = machine_of(P, S);
          expect_closed_form_equals_walk(g, sh.m, sh.n, sh.k, machine, what);
          const PlanVolumes v = cosma_volumes(g, sh.m, sh.n, sh.k, machine, 0, P);
          EXPECT_EQ(max_of(v.comm_recv_bytes), 8 * s.max_recv_words) << what;
          EXPECT_EQ(max_of(v.comm_sent_bytes), 8 * s.max_sent_words) << what;
          EXPECT_EQ(sum_of(v.comm_sent_bytes), sum_of(v.comm_recv_bytes)) << what;
          const u64 m = sh.m, n = sh.n, k = sh.k;
          // Every element of A and B is owned once and of C held once; the compute stage
          // reads only the rounds past the two (one for t = 1) buffers and writes nothing.
          u64 owned = 0, result = 0, streamed = 0;
          for (std::int64_t r = 0; r < P; ++r) {
            const CosmaRankWords w = cosma_rank_words(g, sh.m, sh.n, sh.k, r);
            owned += w.owned, result += w.result, streamed += w.read;
          }
          EXPECT_EQ(owned, m * k + n * k) << what;
          EXPECT_EQ(result, m * n) << what;
          EXPECT_EQ(sum_of(v.disk_read_bytes), 8 * streamed) << what;
          if (g.rounds <= 2)
            EXPECT_EQ(streamed, 0u) << what;
          else
            EXPECT_TRUE(streamed > 0 && streamed < owned) << what;
          EXPECT_EQ(sum_of(v.disk_write_bytes), 0u) << what;
          for (std::int64_t r = g.used(); r < P; ++r)
            EXPECT_EQ(v.disk_read_bytes[r] + v.disk_write_bytes[r] + v.comm_sent_bytes[r] + v.comm_recv_bytes[r], 0u)
                << what << " idle rank " << r;
          EXPECT_GE(s.stretch, 1.0) << what;
          EXPECT_LE(static_cast<double>(s.max_recv_words), s.stretch * s.bound_words) << what;
        }
      }
    }
  }
  EXPECT_GE(feasible, 50);
  EXPECT_GE(out_of_core, 20);
}

TEST(Cosma, EveryGridAndRoundCountMatchesTheWalk) {
  // Small uneven extents, every grid of up to 9 ranks, 1..3 rounds (K parts of 1 column
  // give empty slices): the closed form equals the walk; and the strategies of many small
  // problems report the exact maxima over ranks.
  for (auto [m, n, k] :
       std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{{7, 5, 11}, {13, 3, 29}, {1, 9, 4}}) {
    for (std::int64_t P = 1; P <= 9; ++P)
      for (std::int64_t R : {0, 2, 3}) {  // one node; nodes of 2 and of 3 ranks (the messages between them)
        Machine machine = machine_of(P, kUnlimited);
        machine.ranks_per_node = R;
        for (std::int64_t pm = 1; pm <= std::min(P, m); ++pm)
          for (std::int64_t pn = 1; pm * pn <= P && pn <= n; ++pn)
            for (std::int64_t pk = 1; pm * pn * pk <= P && pk <= k; ++pk)
              for (std::int64_t t = 1; t <= std::min<std::int64_t>(3, (k + pk - 1) / pk); ++t)
                expect_closed_form_equals_walk(
                    {pm, pn, pk, t}, m, n, k, machine,
                    fmt::format("{}x{}x{} P={} R={} grid {}x{}x{} t={}", m, n, k, P, R, pm, pn, pk, t));
      }
  }
  for (std::int64_t m = 1; m <= 13; m += 3)
    for (std::int64_t n = 2; n <= 11; n += 3)
      for (std::int64_t k = 1; k <= 17; k += 4)
        for (std::int64_t P = 1; P <= 9; ++P)
          for (double S : {kUnlimited, 60.0}) {
            const CosmaStrategy s = cosma_strategy(m, n, k, P, S);
            if (!s.feasible) continue;
            const PlanVolumes v = cosma_volumes(s.grid, m, n, k, machine_of(P, S), 0, P);
            EXPECT_EQ(max_of(v.comm_recv_bytes), 8 * s.max_recv_words) << m << " " << n << " " << k << " P=" << P;
            EXPECT_EQ(max_of(v.comm_sent_bytes), 8 * s.max_sent_words) << m << " " << n << " " << k << " P=" << P;
          }
}

TEST(Cosma, GridChoiceEqualsABruteForceOverEveryGrid) {
  // The documented order (cosma.h cosma_strategy()) applied to every grid with volumes from
  // cosma_volumes() over all ranks: the same grid as the pruned search.
  struct Key {
    long double per_work;
    std::int64_t idle, rounds;
    u64 recv, sent;
    std::int64_t pm, pn, pk;
    auto tie() const { return std::tie(per_work, idle, rounds, recv, sent, pm, pn, pk); }
  };
  int compared = 0;
  for (std::int64_t m : {1, 5, 12})
    for (std::int64_t n : {3, 8})
      for (std::int64_t k : {2, 9, 31})
        for (std::int64_t P = 1; P <= 12; ++P)
          for (double S : {kUnlimited, 200.0, 60.0}) {
            const std::int64_t delta = default_max_idle_ranks(P);
            std::optional<Key> best;
            bool any = false;
            for (std::int64_t p = P; p >= 1 && (p >= P - delta || !any); --p)
              for (std::int64_t pm = 1; pm <= std::min(p, m); ++pm)
                for (std::int64_t pn = 1; pn <= std::min(p, n); ++pn) {
                  if (p % (pm * pn) != 0 || p / (pm * pn) > k) continue;
                  const std::int64_t pk = p / (pm * pn);
                  any = true;
                  const std::int64_t t = cosma_min_rounds((m + pm - 1) / pm, (n + pn - 1) / pn, (k + pk - 1) / pk, S,
                                                          MemorySplit::Optimal);
                  if (t == 0 || t > k / pk) continue;  // every rank cuts its K columns into t rounds
                  const PlanVolumes v = cosma_volumes({pm, pn, pk, t}, m, n, k, machine_of(P, S), 0, P);
                  const u64 recv = max_of(v.comm_recv_bytes) / 8, sent = max_of(v.comm_sent_bytes) / 8;
                  const Key key{static_cast<long double>(recv) * P / p, P - p, t, recv, sent, pm, pn, pk};
                  if (!best || key.tie() < best->tie()) best = key;
                }
            const CosmaStrategy s = cosma_strategy(m, n, k, P, S);
            const std::string what = fmt::format("{}x{}x{} P={} S={}", m, n, k, P, S);
            ASSERT_EQ(s.feasible, best.has_value()) << what;
            if (!best) continue;
            ++compared;
            EXPECT_EQ(s.grid, (CosmaGrid{best->pm, best->pn, best->pk, best->rounds})) << what;
          }
  EXPECT_GE(compared, 300);
}

TEST(Cosma, InfeasibleWhenNoCBlockFits) {
  // flat 8000x8000x250 on 8 ranks of 8 M words: the smallest C block, 4000x2000 (2x4x1), fills S.
  const CosmaStrategy s = cosma_strategy(8000, 8000, 250, 8, 8e6);
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(s.reason,
            "no processor grid fits the memory: the best, 2x4x1, needs a 4000x2000 block of C plus slice buffers of "
            "one K column of A and B (two each: double buffering), 8012000 words per rank, but S = 8000000 words");
}

TEST(Cosma, InfeasibleBeyondTheMostRounds) {
  // 8x8 C on one rank of 24 words: 8 words of C, slices of one K column double-buffered (32
  // words) do not fit; 2^21 K columns at 1 column per round would need 2^21 rounds.
  const CosmaStrategy one = cosma_strategy(2, 2, std::int64_t{1} << 21, 1, 12);
  EXPECT_FALSE(one.feasible);
  EXPECT_EQ(one.reason,
            "no processor grid fits the memory in at most 1048576 rounds: the best, 1x1x1, needs 2097152 rounds (1 K "
            "columns each; every round is a collective on every rank)");
  // The same with 2^20 K columns: exactly the most rounds.
  const CosmaStrategy most = cosma_strategy(2, 2, std::int64_t{1} << 20, 1, 12);
  ASSERT_TRUE(most.feasible) << most.reason;
  EXPECT_EQ(most.grid.rounds, tcert::kMaxCosmaRounds);
}

// --- plans ---

GroupTiling group(const char* name, std::int64_t extent) { return {{{name, extent, 1, 1}}, -1}; }

Plan cosma_plan(std::int64_t P, CosmaGrid g, std::int64_t extent = 4000) {
  Plan p;
  p.processors = P;
  p.I = group("i", extent), p.J = group("j", extent), p.K = group("k", extent);
  p.method = g;
  return p;
}

TEST(CosmaPlan, TextFormRoundTrips) {
  const Plan p = cosma_plan(4, {1, 2, 2, 1});
  EXPECT_EQ(p.to_string(), "cosma grid=1x2x2 rounds=1 P=4 split=optimal");
  EXPECT_EQ(method_of(p).name, "cosma");
  std::string error;
  auto back = parse_plan(p.to_string(), p.I, p.J, p.K, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, p);
  Plan q = cosma_plan(6, {3, 1, 2, 7});
  q.split = MemorySplit::Thirds;
  back = parse_plan(q.to_string(), q.I, q.J, q.K, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, q);
  EXPECT_EQ(q.to_string(), "cosma grid=3x1x2 rounds=7 P=6 split=thirds");
}

TEST(CosmaPlan, ParseErrorsNameTheProblem) {
  const GroupTiling I = group("i", 8), J = group("j", 8), K = group("k", 8);
  auto error_of = [&](const std::string& text) {
    std::string error;
    EXPECT_FALSE(parse_plan(text, I, J, K, &error)) << text;
    return error;
  };
  EXPECT_EQ(error_of("cosma grid=1x2 P=4"), "expected grid=PMxPNxPK with positive integers, got '1x2'");
  EXPECT_EQ(error_of("cosma grid=0x2x2"), "expected grid=PMxPNxPK with positive integers, got '0x2x2'");
  EXPECT_EQ(error_of("cosma rounds=0"), "rounds must be a positive integer, got '0'");
  EXPECT_EQ(error_of("cosma grid=1x1x1 order=ABC"),
            "a cosma plan has no field 'order' (it has grid, rounds, P and split)");
  EXPECT_EQ(error_of("inside-rotation grid=1x1x1"),
            "an inside-rotation plan has no field 'grid' (it has order, bcast, I, J, K, dist, overlap, P and split)");
}

TEST(CosmaPlan, CheckValidVolumesAndSimulation) {
  const Machine unlimited = machine_of(4, kUnlimited);
  std::string reason;
  Plan p = cosma_plan(4, {1, 2, 2, 1});
  EXPECT_TRUE(check_valid(p, unlimited, &reason)) << reason;
  EXPECT_TRUE(check_valid(p, unlimited, nullptr));
  const TileBytes tb = tile_bytes(p, 8);
  EXPECT_EQ(tb.A, 8u * 4000 * 2000);  // A slice: 4000 rows x 2000 K columns
  EXPECT_EQ(tb.B, 8u * 2000 * 2000);
  EXPECT_EQ(tb.C, 8u * 4000 * 2000);
  EXPECT_FALSE(check_valid(p, machine_of(4, 8e6), &reason));
  EXPECT_EQ(reason,
            "tiles of A, B and C need 64000000 + 32000000 + 64000000 = 160000000 bytes per rank but the "
            "memory is 64000000 bytes");
  EXPECT_FALSE(check_valid(cosma_plan(4, {3, 2, 1, 1}), unlimited, &reason));
  EXPECT_EQ(reason, "the grid 3x2x1 needs 6 ranks but P = 4");
  EXPECT_FALSE(check_valid(cosma_plan(4, {1, 1, 2, 2001}), unlimited, &reason));
  EXPECT_EQ(reason, "cosma has 2001 rounds; need 1 <= rounds <= 2000 (the fewest K columns of a rank)");
  EXPECT_FALSE(check_valid(cosma_plan(4, {1, 1, 1, 1048577}, 2000000), unlimited, &reason));
  EXPECT_EQ(reason, "cosma has 1048577 rounds; at most 1048576 are run (every round is a collective on every rank)");
  EXPECT_FALSE(check_valid(cosma_plan(4, {1, 4, 1, 1}, 3), machine_of(4, kUnlimited), &reason));
  EXPECT_EQ(reason, "the grid has pn = 4 ranks along J of extent 3; need 1 <= pn <= 3");
  // plan_volumes() and simulate() dispatch to the closed form and the walk.
  p = cosma_plan(4, {2, 2, 1, 8});
  const Machine m64 = machine_of(4, 8e6);
  ASSERT_TRUE(check_valid(p, m64, &reason)) << reason;
  const PlanVolumes closed = plan_volumes(p, m64), walked = simulate(p, m64);
  EXPECT_EQ(closed.comm_recv_bytes, walked.comm_recv_bytes);
  EXPECT_EQ(closed.disk_read_bytes, walked.disk_read_bytes);
  EXPECT_EQ(closed.comm_recv_bytes, std::vector<u64>(4, 64'000'000));
  EXPECT_DOUBLE_EQ(rank_time_s(p, m64, 0, 0, 200'000'000), 1.0);  // collective factor 1
}

// --- the dry-run ---

ir::Program matmul() { return fixtures::example_program("matmul.tce"); }

/// Cosma against Gao et al.'s methods: sfc, which reads everything from disk and sends
/// nothing, wins outright on a slow network, so these dry-runs exclude it.
ReportOptions without_sfc() {
  ReportOptions options;
  options.plan.exclude_methods = {"sfc"};
  return options;
}

TEST(CosmaDryRun, PicksCosmaWhenCommunicationDominatesAndSaysWhy) {
  // examples/matmul.tce (4000^3) with 64 MB per rank, a 1 MB/s network and 1 GB/s disks.
  const ir::Program program = matmul();
  const Machine slow_network = machine_of(4, 8e6, 1e6, 1e9);
  const std::string text = dry_run_text(make_plan(program, slow_network, without_sfc()));
  EXPECT_NE(text.find("    cosma                      -     grid 2x2x1, 0 idle, 8 rounds (exact schedule)"),
            std::string::npos)
      << text;
  // One chosen plan, cosma's, and its runner-up by total time.
  const std::size_t chosen = text.find("  chosen: cosma, grid 2x2x1 (0 idle), 8 rounds: ");
  ASSERT_NE(chosen, std::string::npos) << text;
  const std::string line = text.substr(chosen, text.find('\n', chosen) - chosen);
  EXPECT_NE(line.find(" s predicted in all (compute stage and redistribution); runner-up inside replication-A, order "
                      "BAC: "),
            std::string::npos)
      << line;
  EXPECT_EQ(text.find("emitted instead"), std::string::npos) << text;
  EXPECT_NE(text.find("  plan: cosma grid=2x2x1 rounds=8 P=4 split=optimal\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cosma: 64.048 s vs best Gao plan inside-replication (BAC) 96.16 s (1.5x less "
                      "communication: 64 MB vs 96 MB received per rank)"),
            std::string::npos)
      << text;

  const nlohmann::json j = dry_run_json(make_plan(program, slow_network, without_sfc()))["contractions"][0];
  ASSERT_EQ(j["methods"].size(), 7u);  // the six Gao methods and cosma (sfc excluded; tbs: symmetric only)
  const nlohmann::json& row = j["methods"][6];
  EXPECT_EQ(row["comm"], "inside");
  EXPECT_EQ(row["algorithm"], "cosma");
  EXPECT_EQ(row["feasible"], true);
  EXPECT_EQ(row["order"], "-");
  EXPECT_DOUBLE_EQ(row["model_time_s"].get<double>(), 48e6 / 1e9 + 64e6 / 1e6);  // rounds 2..7 read, C kept
  EXPECT_EQ(row["grid"], (nlohmann::json{{"pm", 2}, {"pn", 2}, {"pk", 1}}));
  EXPECT_EQ(j["chosen"]["algorithm"], "cosma");
  EXPECT_EQ(j["chosen"]["why"].get<std::string>().rfind("cosma: 64.048 s vs best Gao plan", 0), 0u);
  EXPECT_EQ(j["plan"]["algorithm"], "cosma");
  EXPECT_EQ(j["plan"]["order"], "-");
  EXPECT_EQ(j["plan"]["comm_recv_bytes"], (nlohmann::json{64'000'000, 64'000'000, 64'000'000, 64'000'000}));
  EXPECT_EQ(j["cosma"]["max_recv_words"], 8'000'000);
}

TEST(CosmaDryRun, GaoStaysWhenCosmaDoesNotFit) {
  // Gao et al.'s Table 9 machine (24 MB per rank): no grid leaves room beside its C block.
  const ir::Program program = matmul();
  const nlohmann::json j = dry_run_json(make_plan(program, machine_of(4, 3e6), {}))["contractions"][0];
  EXPECT_EQ(j["methods"][6]["feasible"], false);
  EXPECT_NE(j["chosen"]["algorithm"], "cosma");
  EXPECT_NE(j["plan"]["algorithm"], "cosma");
}

TEST(CosmaDryRun, ForcedMethodAndOrder) {
  const ir::Program program = matmul();
  const Machine fast_network = machine_of(4, 8e6, 1e12, 1e6);  // disks dominate
  PlanOptions cosma;
  ASSERT_TRUE(parse_method("cosma", &cosma));
  EXPECT_EQ(cosma.force_method, "cosma");
  const ContractionAnalysis forced = analyze(program, program.statements[0], fast_network, cosma);
  ASSERT_TRUE(forced.plan().feasible) << forced.plan().reason;
  EXPECT_EQ(forced.plan().plan.to_string(), "cosma grid=2x2x1 rounds=8 P=4 split=optimal");
  // --force-order excludes cosma (no disk placement order); with --force-method cosma: no plan.
  PlanOptions order = cosma;
  ASSERT_TRUE(parse_order("ABC", &order));
  const ContractionAnalysis none = analyze(program, program.statements[0], fast_network, order);
  EXPECT_FALSE(none.plan().feasible);
  EXPECT_EQ(none.plan().reason, "--force-order ABC does not apply to cosma, which has no disk placement order");
  PlanOptions only_order;
  ASSERT_TRUE(parse_order("ABC", &only_order));
  const ContractionAnalysis gao = analyze(program, program.statements[0], machine_of(4, 8e6, 1e6, 1e9), only_order);
  ASSERT_TRUE(gao.plan().feasible);
  EXPECT_EQ(std::get<GaoPlan>(gao.plan().plan.method).order, PlacementOrder::ABC);
}

TEST(CosmaDryRun, PlanProgramHandsOutCosmaWithItsExactVolumes) {
  const ir::Program program = matmul();
  const Machine slow_network = machine_of(4, 8e6, 1e6, 1e9);
  std::vector<StatementPlan> plans = plan_program(program, slow_network, without_sfc().plan);
  ASSERT_TRUE(plans.at(0).feasible) << plans[0].reason;
  EXPECT_EQ(plans[0].plan.method, MethodPlan(CosmaGrid{2, 2, 1, 8}));
  EXPECT_EQ(plans[0].volumes.comm_recv_bytes, std::vector<u64>(4, 64'000'000));
  EXPECT_EQ(plans[0].volumes.disk_read_bytes, std::vector<u64>(4, 48'000'000));
  EXPECT_EQ(plans[0].volumes.disk_write_bytes, std::vector<u64>(4, 0));
}

}  // namespace
}  // namespace tcec::costmodel
