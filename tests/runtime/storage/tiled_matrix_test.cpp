// tests/runtime/storage/tiled_matrix_test.cpp — GroupLayout against a brute-force tiling, TiledMatrix I/O.
#include "runtime/storage/tiled_matrix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "temp_dir.h"

namespace {

using tcert::GroupLayout;
using tcert::IndexTiling;
using tcert::TiledMatrix;
using Values = std::vector<std::int64_t>;

// part[v] of a balanced split of n values into t parts, by walking the part sizes.
std::vector<std::int64_t> split(std::int64_t n, std::int64_t t) {
  std::vector<std::int64_t> part;
  for (std::int64_t p = 0; p < t; ++p)
    for (std::int64_t i = 0; i < n / t + (p < n % t ? 1 : 0); ++i) part.push_back(p);
  return part;
}

// Per value of one index: its finest part id l1 · t2 + l2.
std::vector<std::int64_t> finest_parts(const IndexTiling& x) {
  std::vector<std::int64_t> l1 = split(x.extent, x.t1), out;
  for (std::int64_t a = 0; a < x.t1; ++a) {
    const auto size = std::count(l1.begin(), l1.end(), a);
    for (std::int64_t b : split(size, x.t2)) out.push_back(a * x.t2 + b);
  }
  return out;
}

GroupLayout random_layout(std::mt19937& rng) {
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::vector<IndexTiling> idx(static_cast<std::size_t>(uniform(1, 3)));
  for (IndexTiling& x : idx) {
    x.extent = uniform(1, 9);
    x.t1 = uniform(1, x.extent);
    x.t2 = uniform(1, x.extent / x.t1);
  }
  const int dist = static_cast<int>(uniform(-1, static_cast<std::int64_t>(idx.size()) - 1));
  std::int64_t parts = 1;
  if (dist >= 0) {
    const IndexTiling& d = idx[static_cast<std::size_t>(dist)];
    std::int64_t smallest = d.extent / d.t1 / d.t2;  // the smallest finest part
    parts = uniform(1, smallest + 1);                // one more: empty pieces are allowed too
  }
  return GroupLayout(idx, dist, parts);
}

// Every multi-index of the group, in row-major group order.
std::vector<Values> all_values(const GroupLayout& g) {
  std::vector<Values> out(1, Values(g.indices().size(), 0));
  for (std::size_t k = 0; k < g.indices().size(); ++k) {
    std::vector<Values> next;
    for (const Values& v : out)
      for (std::int64_t i = 0; i < g.indices()[k].extent; ++i) {
        next.push_back(v);
        next.back()[k] = i;
      }
    out = std::move(next);
  }
  return out;
}

// Brute-force (tile, part) of a multi-index; part 0 when the group is not split.
std::pair<std::int64_t, std::int64_t> brute_tile_part(const GroupLayout& g, const Values& v) {
  std::int64_t l1 = 0, l2 = 0, part = 0;
  for (std::size_t k = 0; k < v.size(); ++k) {
    const IndexTiling& x = g.indices()[k];
    const std::vector<std::int64_t> fp = finest_parts(x);
    const std::int64_t j = fp[static_cast<std::size_t>(v[k])];
    l1 = l1 * x.t1 + j / x.t2;
    l2 = l2 * x.t2 + j % x.t2;
    if (static_cast<int>(k) == g.dist()) {
      const auto lo = std::find(fp.begin(), fp.end(), j) - fp.begin();
      part = split(std::count(fp.begin(), fp.end(), j), g.parts())[v[k] - lo];
    }
  }
  return {l1 * g.tiles2() + l2, part};
}

// Sort key of the within-tile order: dist index first, then the others in group order.
Values order_key(const GroupLayout& g, Values v) {
  if (g.dist() >= 0) std::rotate(v.begin(), v.begin() + g.dist(), v.begin() + g.dist() + 1);
  return v;
}

void check_layout(const GroupLayout& g) {
  const std::int64_t F = g.finest_tiles();
  std::int64_t sum = 0;
  for (std::int64_t p = 0; p < g.parts(); ++p) sum += g.total(p);
  ASSERT_EQ(sum, g.extent());
  ASSERT_EQ(g.total(-1), g.extent());
  // Brute-force pieces: (tile, part) → its multi-indices, sorted in the tile order.
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Values>> pieces;
  for (const Values& v : all_values(g)) pieces[brute_tile_part(g, v)].push_back(v);
  for (auto& [key, list] : pieces)
    std::sort(list.begin(), list.end(),
              [&](const Values& a, const Values& b) { return order_key(g, a) < order_key(g, b); });
  for (std::int64_t f = 0; f < F; ++f) {
    std::int64_t whole = 0;
    for (std::int64_t p = 0; p < g.parts(); ++p) {
      const std::vector<Values>& list = pieces[{f, p}];
      ASSERT_EQ(g.rows(f, p), static_cast<std::int64_t>(list.size())) << "f " << f << " p " << p;
      ASSERT_EQ(g.piece_start(f, p), whole);
      for (std::size_t i = 0; i < list.size(); ++i) {
        const GroupLayout::Location loc = g.locate(list[i].data());
        ASSERT_EQ(loc.tile, f);
        ASSERT_EQ(loc.part, p);
        ASSERT_EQ(loc.offset, static_cast<std::int64_t>(i));  // order and disjoint cover
        Values back(list[i].size());
        g.values_at(f, p, loc.offset, back.data());
        ASSERT_EQ(back, list[i]);
        g.values_at(f, -1, whole + loc.offset, back.data());
        ASSERT_EQ(back, list[i]);
      }
      // values_from(): the piece's values row after row, from the start and from the middle.
      const std::size_t n = g.indices().size();
      for (const std::int64_t from : {std::int64_t{0}, g.rows(f, p) / 2}) {
        std::vector<std::int64_t> rows(static_cast<std::size_t>(g.rows(f, p) - from) * n);
        g.values_from(f, p, from, g.rows(f, p) - from, rows.data());
        for (std::size_t i = static_cast<std::size_t>(from); i < list.size(); ++i)
          ASSERT_EQ(Values(rows.begin() + static_cast<std::ptrdiff_t>((i - from) * n),
                           rows.begin() + static_cast<std::ptrdiff_t>((i - from + 1) * n)),
                    list[i]);
      }
      whole += g.rows(f, p);
    }
    ASSERT_EQ(whole, g.rows(f, -1));
  }
}

TEST(GroupLayout, MatchesBruteForceOnRandomGroups) {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 300; ++trial) {
    const GroupLayout g = random_layout(rng);
    SCOPED_TRACE("trial " + std::to_string(trial));
    check_layout(g);
    if (HasFatalFailure()) return;
  }
}

TEST(GroupLayout, HandExample) {
  // n = 7, t1 = 2: parts 4, 3; t2 = 2: {2, 2}, {2, 1}.
  const GroupLayout g({{7, 2, 2}}, 0, 2);
  EXPECT_EQ(g.finest_tiles(), 4);
  EXPECT_EQ(g.rows(3, -1), 1);
  EXPECT_EQ(g.rows(3, 0), 1);
  EXPECT_EQ(g.rows(3, 1), 0);
  EXPECT_EQ(g.total(0), 4);
  EXPECT_EQ(g.total(1), 3);
  const std::int64_t v = 5;
  const GroupLayout::Location loc = g.locate(&v);
  EXPECT_EQ(loc.tile, 2);
  EXPECT_EQ(loc.part, 1);
  EXPECT_EQ(loc.offset, 0);
}

TEST(GroupLayout, RejectsInvalidTilings) {
  EXPECT_THROW(GroupLayout({{4, 5, 1}}, -1, 1), tcert::Error);
  EXPECT_THROW(GroupLayout({{4, 2, 3}}, -1, 1), tcert::Error);
  EXPECT_THROW(GroupLayout({{4, 1, 1}}, -1, 2), tcert::Error);
  EXPECT_THROW(GroupLayout({{4, 1, 1}}, 1, 1), tcert::Error);
}

double formula(const GroupLayout& R, const GroupLayout& C, const std::int64_t* r, const std::int64_t* c) {
  double x = 1;
  for (std::size_t k = 0; k < R.indices().size(); ++k) x = x * 10.5 + static_cast<double>(r[k]);
  for (std::size_t k = 0; k < C.indices().size(); ++k) x = x * 3.25 - static_cast<double>(c[k]);
  return x;
}

TEST(TiledMatrix, FillReadsBackAndCountsBytes) {
  tcert_test::TempDir dir;
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const GroupLayout R = random_layout(rng), C = random_layout(rng);
    const std::int64_t pr = std::uniform_int_distribution<std::int64_t>(-1, R.parts() - 1)(rng);
    const std::int64_t pc = std::uniform_int_distribution<std::int64_t>(-1, C.parts() - 1)(rng);
    TiledMatrix m(dir.file("m" + std::to_string(trial)), R, pr, C, pc);
    m.create();
    ASSERT_EQ(m.file().size_elems(), m.total());
    ASSERT_EQ(m.total(), static_cast<std::uint64_t>(R.total(pr) * C.total(pc)));
    std::uint64_t next = 0;
    for (std::int64_t f = 0; f < R.finest_tiles(); ++f)
      for (std::int64_t h = 0; h < C.finest_tiles(); ++h) {
        ASSERT_EQ(m.block_offset(f, h), next);
        next += static_cast<std::uint64_t>(m.block_rows(f) * m.block_cols(h));
      }
    ASSERT_EQ(next, m.total());
    auto value = [&](const std::int64_t* r, const std::int64_t* c) { return formula(R, C, r, c); };
    const std::size_t nr = R.indices().size(), nc = C.indices().size();
    m.fill_blocks([&](const std::int64_t* r, const std::int64_t* c, std::size_t rows, std::size_t cols, double* b) {
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) b[i * cols + j] = value(r + i * nr, c + j * nc);
    });
    std::uint64_t seen = 0;
    m.read_blocks(
        [&](const std::int64_t* r, const std::int64_t* c, std::size_t rows, std::size_t cols, const double* b) {
          for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j, ++seen) EXPECT_EQ(b[i * cols + j], value(r + i * nr, c + j * nc));
        });
    ASSERT_EQ(seen, m.total());
    std::uint64_t held = 0;
    for (const Values& r : all_values(R))
      for (const Values& c : all_values(C)) {
        const std::optional<double> v = m.element(r.data(), c.data());
        const bool mine = (pr < 0 || R.locate(r.data()).part == pr) && (pc < 0 || C.locate(c.data()).part == pc);
        ASSERT_EQ(v.has_value(), mine);
        if (v) {
          ASSERT_EQ(*v, value(r.data(), c.data()));
        }
        held += mine;
      }
    ASSERT_EQ(held, m.total());
    const std::int64_t f = R.finest_tiles() - 1, h = C.finest_tiles() / 2;
    std::vector<double> block(static_cast<std::size_t>(m.block_rows(f) * m.block_cols(h)));
    tcert::counters().reset();
    m.read_block(f, h, block.data());
    EXPECT_EQ(tcert::counters().total().disk_read_bytes, 8 * block.size());
    EXPECT_EQ(tcert::counters().total().disk_write_bytes, 0u);
  }
}

}  // namespace
