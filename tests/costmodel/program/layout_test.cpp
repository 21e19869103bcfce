// Layouts and exchanges (costmodel/program/layout.h): exchange() against an element-by-element count
// that re-derives every owner from the tiling rule of plan.h and the block rule of ir.h; and
// the plans the dry-run chooses under declared distributions (Gao et al. §2.3, Table 1).
#include <algorithm>
#include <deque>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

#include "costmodel/costmodel.h"
#include "costmodel/methods/gao/gao.h"
#include "costmodel/partition.h"
#include "costmodel/program/layout.h"
#include "fixtures.h"
#include "frontend/frontend.h"

namespace tcec::costmodel {
namespace {

using u64 = std::uint64_t;

/// Index of the balanced part of n (split into t) holding v, and v's offset in it.
std::pair<std::int64_t, std::int64_t> part_of(std::int64_t n, std::int64_t t, std::int64_t v) {
  for (std::int64_t p = 0, start = 0;; start += piece(n, t, p), ++p)
    if (v < start + piece(n, t, p)) return {p, v - start};
}

/// Grid part of value v of a distribution index split over g (runtime/spec/tiling.h).
std::int64_t tile_part(const IndexTiles& x, std::int64_t g, std::int64_t v) {
  const auto [a, in1] = part_of(x.extent, x.t1, v);
  const auto [b, in2] = part_of(piece(x.extent, x.t1, a), x.t2, in1);
  return part_of(piece(piece(x.extent, x.t1, a), x.t2, b), g, in2).first;
}

/// The rank holding element `e` of array `array` under `plan` (names: the tensor's index names).
std::int64_t plan_owner(const Plan& plan, GemmArray array, const std::vector<std::string>& names,
                        const std::vector<std::int64_t>& e) {
  const GridParts gp = grid_parts(plan);
  const ArrayParts ap = array == GemmArray::A ? gp.A : array == GemmArray::B ? gp.B : gp.C;
  const GroupTiling& rows = array == GemmArray::B ? plan.J : plan.I;
  const GroupTiling& cols = array == GemmArray::C ? plan.J : plan.K;
  auto coordinate = [&](const GroupTiling& group, std::int64_t g) -> std::int64_t {
    if (g == 1) return 0;
    const IndexTiles& d = group.indices[static_cast<std::size_t>(group.dist)];
    const auto at = std::find(names.begin(), names.end(), d.name) - names.begin();
    return tile_part(d, g, e[static_cast<std::size_t>(at)]);
  };
  const std::int64_t row = coordinate(rows, ap.rows), col = coordinate(cols, ap.cols);
  for (std::int64_t r = 0; r < plan.processors; ++r) {
    const RankParts rp = rank_parts(plan, r);
    const std::int64_t rr = array == GemmArray::A ? rp.A_rows : array == GemmArray::B ? rp.B_rows : rp.C_rows;
    const std::int64_t rc = array == GemmArray::A ? rp.A_cols : array == GemmArray::B ? rp.B_cols : rp.C_cols;
    if (std::max<std::int64_t>(rr, 0) == row && std::max<std::int64_t>(rc, 0) == col) return r;  // -1: whole
  }
  ADD_FAILURE() << "no rank holds the element";
  return -1;
}

/// The rank holding element `e` under a declared block distribution.
std::int64_t block_owner(const ir::Distribution& d, const std::vector<std::int64_t>& extents, std::int64_t P,
                         const std::vector<std::int64_t>& e) {
  const std::vector<std::int64_t> grid = d.grid_for(P);
  std::int64_t rank = 0;
  for (std::size_t g = 0; g < grid.size(); ++g) {
    const auto dim = static_cast<std::size_t>(d.dims[g]);
    rank = rank * grid[g] + part_of(extents[dim], grid[g], e[dim]).first;
  }
  return rank;
}

/// Counts an exchange element by element from two owner functions.
template <class From, class To>
Exchange count(const std::vector<std::int64_t>& extents, std::int64_t P, From from, To to) {
  const auto n = static_cast<std::size_t>(P);
  Exchange x{std::vector<u64>(n), std::vector<u64>(n), std::vector<u64>(n), std::vector<u64>(n)};
  std::vector<std::int64_t> e(extents.size(), 0);
  const std::int64_t total = std::accumulate(extents.begin(), extents.end(), std::int64_t{1}, std::multiplies<>());
  for (std::int64_t flat = 0; flat < total; ++flat) {
    for (std::size_t d = extents.size(), rest = static_cast<std::size_t>(flat); d-- > 0;) {
      e[d] = static_cast<std::int64_t>(rest % static_cast<std::size_t>(extents[d]));
      rest /= static_cast<std::size_t>(extents[d]);
    }
    const auto s = static_cast<std::size_t>(from(e)), r = static_cast<std::size_t>(to(e));
    ++x.read[s];
    ++x.write[r];
    if (s != r) ++x.sent[s], ++x.recv[r];
  }
  return x;
}

void expect_equal(const Exchange& got, const Exchange& want, const std::string& what) {
  EXPECT_EQ(got.read, want.read) << what;
  EXPECT_EQ(got.write, want.write) << what;
  EXPECT_EQ(got.sent, want.sent) << what;
  EXPECT_EQ(got.recv, want.recv) << what;
}

TEST(Layout, ExchangesEqualAnElementByElementCount) {
  std::mt19937_64 rng(11);
  int checked = 0;
  for (std::int64_t P : {1, 2, 3, 4, 6, 9}) {
    for (int trial = 0; trial < 6; ++trial) {
      Plan plan;
      plan.processors = P;
      plan.I = fixtures::random_group(rng, "i", P);
      plan.J = fixtures::random_group(rng, "j", P);
      plan.K = fixtures::random_group(rng, "k", P);
      for (Algorithm alg : {Algorithm::Rotation, Algorithm::Replication, Algorithm::Accumulation})
        for (Operand rep : {Operand::A, Operand::B})
          for (GemmArray array : {GemmArray::A, GemmArray::B, GemmArray::C}) {
            if (rep == Operand::B && alg != Algorithm::Replication) continue;
            Plan p = plan;
            gao(p).algorithm = alg, gao(p).replicated = rep;
            if (!check_valid(p, fixtures::roomy(P), nullptr)) continue;
            // The array's tensor: its two groups' indices in a random order.
            const GroupTiling& rows = array == GemmArray::B ? p.J : p.I;
            const GroupTiling& cols = array == GemmArray::C ? p.J : p.K;
            std::vector<IndexTiles> dims = rows.indices;
            dims.insert(dims.end(), cols.indices.begin(), cols.indices.end());
            std::shuffle(dims.begin(), dims.end(), rng);
            ir::Program program;
            ir::Tensor t;
            std::vector<std::string> names;
            std::vector<std::int64_t> extents;
            for (const IndexTiles& x : dims) {
              program.ranges.push_back({x.name, static_cast<u64>(x.extent), {}});
              t.dims.push_back(static_cast<int>(program.ranges.size()) - 1);
              names.push_back(x.name);
              extents.push_back(x.extent);
            }
            // A declared distribution over one or two dimensions long enough for the grid.
            ir::Distribution d;
            std::vector<int> long_dims;
            for (std::size_t e = 0; e < dims.size(); ++e)
              if (dims[e].extent >= P) long_dims.push_back(static_cast<int>(e));
            std::shuffle(long_dims.begin(), long_dims.end(), rng);
            long_dims.resize(std::min<std::size_t>(long_dims.size(), 1 + trial % 2));
            d.dims = long_dims;
            if (d.dims.size() == 2) d.grid = {1, P};  // every grid dimension <= its extent
            t.distribution = d;
            const TensorLayout declared = declared_layout(program, t, P);
            const TensorLayout planned = plan_layout(p, array, names);
            auto by_plan = [&](const auto& e) { return plan_owner(p, array, names, e); };
            auto by_block = [&](const auto& e) { return block_owner(d, extents, P, e); };
            const std::string what = p.to_string() + " array " + std::to_string(static_cast<int>(array));
            expect_equal(exchange(declared, planned, P), count(extents, P, by_block, by_plan), what);
            expect_equal(exchange(planned, declared, P), count(extents, P, by_plan, by_block), what + " back");
            ++checked;
          }
    }
  }
  EXPECT_GT(checked, 150);
}

/// Plans `text` (a .tce program with its machine) with `method` forced.
std::vector<StatementPlan> plan_text(const std::string& text, const char* method) {
  auto parsed = frontend::parse_source("t.tce", text, {});
  EXPECT_TRUE(parsed.ok()) << parsed.diagnostics.render();
  static std::deque<ir::Program> keep;  // plans point into their program (a deque never moves it)
  keep.push_back(*parsed.program);
  PlanOptions options;
  EXPECT_TRUE(parse_method(method, &options));
  return plan_program(keep.back(), machine_from(*keep.back().machine), options);
}

const char* kMatmul = R"(range N = 64, M = 8;
index i, j, k : N;
index a : M;
tensor A[N,M,N] input;
tensor B[N,N] input;
tensor C[N,M,N] output;
C[i,a,j] += A[i,a,k] * B[k,j];
machine m { processors 4; memory 1 GB; network 1 GB/s; disk 500 MB/s; }
)";

u64 most(const std::vector<u64>& v) { return *std::max_element(v.begin(), v.end()); }

TEST(Layout, Table1DistributionsMoveNothingBetweenRanks) {
  const std::string program = kMatmul;
  // Accumulation: A.dist = B.dist = <k> (Gao et al. Table 1).
  auto acc = plan_text(program + "distribute A[i,a,k] over (k);\ndistribute B[k,j] over (k);\n", "inside-accumulation");
  ASSERT_TRUE(acc.at(0).feasible);
  EXPECT_EQ(most(acc[0].redistribution.comm_recv_bytes), 0u);
  EXPECT_EQ(most(acc[0].redistribution.comm_sent_bytes), 0u);
  // Replication of B: A.dist = C.dist = <i>; the plan distributes I by i although a... is
  // another index of I (chosen to match the declarations).
  auto rep =
      plan_text(program + "distribute A[i,a,k] over (i);\ndistribute C[i,a,j] over (i);\n", "inside-replication");
  ASSERT_TRUE(rep.at(0).feasible);
  EXPECT_EQ(gao(rep[0].plan).replicated, Operand::B);
  EXPECT_EQ(rep[0].plan.I.indices[static_cast<std::size_t>(rep[0].plan.I.dist)].name, "i");
  EXPECT_EQ(most(rep[0].redistribution.comm_recv_bytes), 0u);
  // A mismatched declaration moves 3/4 of B's 32 KB: each rank keeps one of four K blocks of
  // its J part.
  auto moved = plan_text(program + "distribute B[k,j] over (j);\n", "inside-accumulation");
  ASSERT_TRUE(moved.at(0).feasible);
  EXPECT_EQ(moved[0].redistribution.comm_recv_bytes, std::vector<u64>(4, 64 * 64 * 8 / 4 * 3 / 4));
  EXPECT_EQ(moved[0].redistribution.comm_sent_bytes, std::vector<u64>(4, 64 * 64 * 8 / 4 * 3 / 4));
}

TEST(Layout, CosmaIsNotMatchedAgainstDeclaredDistributions) {
  auto plans = plan_text(std::string(kMatmul) + "distribute B[k,j] over (j);\n", "cosma");
  ASSERT_FALSE(plans.at(0).feasible);
  EXPECT_EQ(plans[0].reason, "the declared distribution of B is not modelled against cosma's blocked layout");
}

}  // namespace
}  // namespace tcec::costmodel
