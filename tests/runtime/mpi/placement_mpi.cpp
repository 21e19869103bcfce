// tests/runtime/mpi/placement_mpi.cpp — move_tensor between placements on P ranks: every
// element arrives with its value, each rank's disk and network bytes are exactly the elements
// it holds, places, sends and receives (counted by brute force over the tensor), and its disk
// requests are the cost model's (costmodel/program/handoff_requests.h move_requests(), an
// independent count). Every rank runs every test; run with mpiexec -np 1..5.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "costmodel/program/handoff_requests.h"
#include "runtime/base/counters.h"
#include "runtime/base/memory.h"
#include "runtime/comm/placement.h"
#include "tests/runtime/temp_dir.h"

namespace {

using tcert::Context;
using tcert::GroupLayout;
using tcert::IndexTiling;
using tcert::Placement;
using tcert::TiledMatrix;
using i64 = std::int64_t;

constexpr i64 kExtents[3] = {5, 7, 4};  // the tensor X[a, b, c]

/// A placement of X: `rows` / `cols` the tensor dimensions of each group (group order), tiled
/// (t1, t2) per dimension; the groups' index at position row_dist / col_dist split over g_rows /
/// g_cols parts (1: not split); rank q holds part (q / g_cols, q mod g_cols) for q <
/// g_rows·g_cols, nothing beyond. whole_on_zero: rank 0 holds everything (parts -1), the others
/// nothing.
struct Shape {
  std::vector<int> rows, cols;
  std::vector<IndexTiling> tiling;  // per tensor dimension
  i64 g_rows = 1, g_cols = 1;
  bool whole_on_zero = false;
  int row_dist = 0, col_dist = 0;
};

Placement placement(const Shape& s, int P) {
  auto group = [&](const std::vector<int>& dims, i64 g, int dist) {
    std::vector<IndexTiling> indices;
    for (int d : dims) indices.push_back(s.tiling[static_cast<std::size_t>(d)]);
    return GroupLayout(indices, dims.empty() || g == 1 ? -1 : dist, dims.empty() ? 1 : g);
  };
  Placement p{group(s.rows, s.g_rows, s.row_dist), group(s.cols, s.g_cols, s.col_dist), {}, s.rows};
  p.perm.insert(p.perm.end(), s.cols.begin(), s.cols.end());
  for (int q = 0; q < P; ++q) {
    if (s.whole_on_zero) {
      if (q == 0)
        p.parts.push_back(std::array<i64, 2>{-1, -1});
      else
        p.parts.emplace_back();
    } else if (q < s.g_rows * s.g_cols) {
      p.parts.push_back(std::array<i64, 2>{s.g_rows == 1 ? -1 : q / s.g_cols, s.g_cols == 1 ? -1 : q % s.g_cols});
    } else {
      p.parts.emplace_back();
    }
  }
  return p;
}

/// The same placement in the cost model's terms (costmodel handoff_requests.h).
tcec::costmodel::TiledPlacement model_placement(const Shape& s, const Placement& p) {
  auto group = [&](const std::vector<int>& dims, const GroupLayout& layout) {
    tcec::costmodel::GroupTiling g;
    for (int d : dims) {
      const IndexTiling& x = s.tiling[static_cast<std::size_t>(d)];
      g.indices.push_back({std::string(1, static_cast<char>('a' + d)), x.extent, x.t1, x.t2});
    }
    g.dist = layout.dist();
    return g;
  };
  return {group(s.rows, p.rows), group(s.cols, p.cols), p.rows.parts(), p.cols.parts(), p.parts, p.perm};
}

/// This rank's file of placement p (nullptr when it holds nothing).
std::unique_ptr<TiledMatrix> file_of(const Placement& p, int rank, const std::string& path) {
  if (!p.parts[static_cast<std::size_t>(rank)]) return nullptr;
  const auto [pr, pc] = *p.parts[static_cast<std::size_t>(rank)];
  auto m = std::make_unique<TiledMatrix>(path, p.rows, pr, p.cols, pc);
  m->create();
  return m;
}

/// Group values of tensor element x under placement p.
void split(const Placement& p, const i64* x, std::vector<i64>& rv, std::vector<i64>& cv) {
  const std::size_t nr = p.rows.indices().size();
  rv.resize(nr), cv.resize(p.perm.size() - nr);
  for (std::size_t q = 0; q < p.perm.size(); ++q) (q < nr ? rv[q] : cv[q - nr]) = x[p.perm[q]];
}

/// The rank holding tensor element x under p.
int holder(const Placement& p, const i64* x) {
  std::vector<i64> rv, cv;
  split(p, x, rv, cv);
  const i64 r = p.rows.locate(rv.data()).part, c = p.cols.locate(cv.data()).part;
  for (std::size_t q = 0; q < p.parts.size(); ++q) {
    if (!p.parts[q]) continue;
    const auto [pr, pc] = *p.parts[q];
    if ((pr < 0 || pr == r) && (pc < 0 || pc == c)) return static_cast<int>(q);
  }
  return -1;
}

double value_of(const i64* x) { return static_cast<double>((x[0] * kExtents[1] + x[1]) * kExtents[2] + x[2]) + 0.25; }

void check_move(const Shape& from_shape, const Shape& to_shape) {
  const Context ctx = Context::world();
  const int P = ctx.size(), me = ctx.rank();
  tcert_test::TempDir dir;
  const Placement from = placement(from_shape, P), to = placement(to_shape, P);
  std::unique_ptr<TiledMatrix> held = file_of(from, me, dir.path() + "/held.bin");
  std::unique_ptr<TiledMatrix> target = file_of(to, me, dir.path() + "/target.bin");
  if (held) {
    const std::size_t nr = from.rows.indices().size(), nc = from.perm.size() - nr;
    held->fill_blocks([&](const i64* rv, const i64* cv, std::size_t rows, std::size_t cols, double* block) {
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
          i64 x[3];
          for (std::size_t q = 0; q < from.perm.size(); ++q)
            x[from.perm[q]] = q < nr ? rv[i * nr + q] : cv[j * nc + q - nr];
          block[i * cols + j] = value_of(x);
        }
    });
  }
  tcert::counters().reset();
  {
    tcert::PhaseScope phase(tcert::Phase::Redistribute);
    tcert::move_tensor(ctx, from, held.get(), to, target.get());
  }
  const tcert::Volumes v = tcert::counters().snapshot(tcert::Phase::Redistribute);
  std::uint64_t read = 0, write = 0, sent = 0, recv = 0;
  for (i64 a = 0; a < kExtents[0]; ++a)
    for (i64 b = 0; b < kExtents[1]; ++b)
      for (i64 c = 0; c < kExtents[2]; ++c) {
        const i64 x[3] = {a, b, c};
        const int s = holder(from, x), r = holder(to, x);
        ASSERT_GE(s, 0);
        ASSERT_GE(r, 0);
        read += s == me, write += r == me, sent += s == me && r != me, recv += r == me && s != me;
        if (r != me) continue;
        std::vector<i64> rv, cv;
        split(to, x, rv, cv);
        ASSERT_EQ(target->element(rv.data(), cv.data()), value_of(x)) << a << "," << b << "," << c;
      }
  EXPECT_EQ(v.disk_read_bytes, 8 * read);
  EXPECT_EQ(v.disk_write_bytes, 8 * write);
  EXPECT_EQ(v.comm_sent_bytes, 8 * sent);
  EXPECT_EQ(v.comm_recv_bytes, 8 * recv);
  // Disk requests: the cost model's count for the round size of the budget (all of it free).
  const std::vector<std::uint64_t> model =
      tcec::costmodel::move_requests(model_placement(from_shape, from), model_placement(to_shape, to),
                                     tcec::costmodel::handoff_round_elements(tcert::budget().limit_bytes()));
  EXPECT_EQ(v.disk_requests, model[static_cast<std::size_t>(me)]) << "rank " << me;
  ctx.barrier();
}

/// Split over g parts where the rank count allows: 1 rank → 1, else up to `want`.
i64 parts(int P, i64 want) { return std::min<i64>(P, want); }

TEST(MoveTensor, BetweenGridsOfDifferentGroupsAndTilings) {
  const int P = Context::world().size();
  Shape from{{0, 2}, {1}, {{5, 2, 1}, {7, 1, 2}, {4, 2, 2}}, parts(P, 2), P >= 4 ? 2 : 1};
  Shape to{{1}, {2, 0}, {{5, 1, 2}, {7, 3, 1}, {4, 1, 1}}, 1, P};
  check_move(from, to);
  check_move(to, from);
}

TEST(MoveTensor, ToAndFromOneRank) {
  const int P = Context::world().size();
  Shape spread{{2}, {0, 1}, {{5, 1, 1}, {7, 2, 3}, {4, 1, 2}}, P, 1};
  Shape whole{{0}, {1, 2}, {{5, 2, 2}, {7, 1, 1}, {4, 2, 1}}, 1, 1, true};
  check_move(spread, whole);
  check_move(whole, spread);
}

TEST(MoveTensor, BlocksLargerThanTheBudgetAllowsGoOneHolderAtATime) {
  // One block per holder (no tiling): the tensor's 140 elements exceed a round's share of a
  // budget that holds three times one holder's block, so each holder sends alone.
  const int P = Context::world().size();
  Shape spread{{2}, {0, 1}, {{5, 1, 1}, {7, 1, 1}, {4, 1, 1}}, P, 1};
  Shape whole{{0}, {1, 2}, {{5, 2, 2}, {7, 1, 1}, {4, 2, 1}}, 1, 1, true};
  const i64 largest = 5 * 7 * ((4 + std::min(P, 4) - 1) / std::min(P, 4));  // elements of the largest holder block
  tcert::budget().set_limit_bytes(static_cast<std::uint64_t>(3 * 8 * largest));
  check_move(spread, whole);
  tcert::budget().set_limit_bytes(0);
}

TEST(MoveTensor, PartsLargerThanTheBudgetGoInPiecesThatFit) {
  // Budgets of 24 bytes (one element a round) up to a few rows: every holder's part of a block
  // exceeds a round, so it goes in runs of consecutive elements; the peak never passes the
  // budget (handoff_round_bytes), and values and counts are exact.
  const int P = Context::world().size();
  Shape from{{2, 0}, {1}, {{5, 1, 1}, {7, 2, 1}, {4, 1, 1}}, parts(P, 2), 1};
  Shape to{{1}, {0, 2}, {{5, 2, 1}, {7, 1, 1}, {4, 1, 2}}, P, 1};
  for (std::uint64_t budget : {24u, 48u, 8u * 3 * 13, 8u * 3 * 29}) {
    tcert::budget().set_limit_bytes(budget);
    tcert::budget().reset_peak();
    check_move(from, to);
    check_move(to, from);
    EXPECT_LE(tcert::budget().peak_bytes(), tcert::handoff_round_bytes(budget, 5 * 7 * 4)) << budget;
  }
  tcert::budget().set_limit_bytes(0);
}

TEST(MoveTensor, SamePlacementMovesNothingOverTheNetwork) {
  const int P = Context::world().size();
  Shape s{{1, 0}, {2}, {{5, 1, 2}, {7, 2, 1}, {4, 1, 1}}, P, 1};
  check_move(s, s);
}

TEST(MoveTensor, ScatteredPartsWithEmptyBlocks) {
  // More parts than some finest tiles have values: blocks of size 0 on some ranks.
  const int P = Context::world().size();
  Shape from{{0}, {1, 2}, {{5, 2, 2}, {7, 1, 3}, {4, 1, 1}}, parts(P, 3), 1};
  Shape to{{2, 1}, {0}, {{5, 1, 1}, {7, 2, 1}, {4, 1, 1}}, parts(P, 4), 1};
  check_move(from, to);
}

TEST(MoveTensor, RandomPlacementsAndBudgetsRequestForRequest) {
  // Random groups, orders, tilings, distribution indices, grids and budgets (the same on every
  // rank: a fixed seed), both ways: values, bytes and the cost model's disk requests.
  const int P = Context::world().size();
  std::mt19937 random(16);
  auto pick = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(random); };
  auto shape = [&]() {
    Shape s;
    std::vector<int> dims{0, 1, 2};
    std::shuffle(dims.begin(), dims.end(), random);
    const auto rows = static_cast<std::ptrdiff_t>(pick(0, 3));
    s.rows.assign(dims.begin(), dims.begin() + rows), s.cols.assign(dims.begin() + rows, dims.end());
    for (i64 n : kExtents) {
      const i64 t1 = pick(1, n);
      s.tiling.push_back({n, t1, pick(1, n / t1)});
    }
    s.whole_on_zero = pick(0, 5) == 0;
    if (!s.whole_on_zero) {
      s.g_rows = s.rows.empty() ? 1 : pick(1, P);
      s.g_cols = s.cols.empty() ? 1 : pick(1, P / s.g_rows);
      s.row_dist = static_cast<int>(pick(0, std::max<i64>(0, static_cast<i64>(s.rows.size()) - 1)));
      s.col_dist = static_cast<int>(pick(0, std::max<i64>(0, static_cast<i64>(s.cols.size()) - 1)));
    }
    return s;
  };
  for (int trial = 0; trial < 40; ++trial) {
    const Shape from = shape(), to = shape();
    const std::uint64_t budgets[] = {0, 24, 8 * 3 * static_cast<std::uint64_t>(pick(2, 40)), 8 * 3 * 140};
    tcert::budget().set_limit_bytes(budgets[pick(0, 3)]);
    check_move(from, to);
    check_move(to, from);
  }
  tcert::budget().set_limit_bytes(0);
}

}  // namespace
