// tests/runtime/index/split_map_test.cpp — SplitMap::rows() and cols(): the odometer gives, for every
// range of flat rows (columns), the parts row() (col()) gives one at a time, on a permuted tensor
// whose row group has three indices; whole_view_runs() counts the runs of random views from their
// strides; for_each_run_of_view() visits every element of a range once, in order, in pieces that
// are consecutive in the tensor and maximal within a row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/index/split_map.h"

TEST(SplitMap, RowsEqualRowOneAtATime) {
  // Stored [c, r1, k, r0, r2]: GEMM positions r0 r1 r2 (rows, extents 3 4 5) then c k (columns).
  const tcert::TensorBinding binding{{"X", {2, 4, 6, 3, 5}}, {3, 1, 4, 0, 2}};
  tcert::SplitMap map(binding, {3, 4, 5}, {2, 6});
  std::vector<std::uint64_t> parts;
  for (std::int64_t first = 0; first < 60; first += 7) {
    for (const std::int64_t count : {0, 1, 5, 23}) {
      const std::int64_t n = std::min<std::int64_t>(count, 60 - first);
      map.rows(first, n, parts);
      ASSERT_EQ(parts.size(), static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(parts[i], map.row(first + i)) << first << "+" << i;
    }
  }
}

TEST(SplitMap, ColsEqualColOneAtATime) {
  const tcert::TensorBinding binding{{"X", {2, 4, 6, 3, 5}}, {3, 1, 4, 0, 2}};
  tcert::SplitMap map(binding, {3, 4, 5}, {2, 6});
  std::vector<std::uint64_t> parts;
  for (std::int64_t first = 0; first < 12; first += 5)
    for (const std::int64_t count : {0, 1, 7}) {
      const std::int64_t n = std::min<std::int64_t>(count, 12 - first);
      map.cols(first, n, parts);
      ASSERT_EQ(parts.size(), static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(parts[i], map.col(first + i)) << first << "+" << i;
    }
}

TEST(SplitMap, WholeViewRunsEqualACountOfEveryElementsRun) {
  // Random stored orders and splits of up to 5 indices (extents 1–4) into rows and columns: the
  // count from the strides equals RunCounter's over every element, row after row.
  std::uint64_t state = 12345;
  const auto next = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t n = 1 + next(5), row_count = next(n + 1);
    std::vector<std::int64_t> extents(n);
    std::vector<int> perm(n);
    for (std::size_t d = 0; d < n; ++d)
      extents[d] = 1 + static_cast<std::int64_t>(next(4)), perm[d] = static_cast<int>(d);
    for (std::size_t d = n; d-- > 1;) std::swap(perm[d], perm[next(d + 1)]);
    // GEMM position p is stored dimension perm[p]; positions [0, row_count) are rows.
    std::vector<std::int64_t> row_extents, col_extents;
    for (std::size_t p = 0; p < n; ++p)
      (p < row_count ? row_extents : col_extents).push_back(extents[static_cast<std::size_t>(perm[p])]);
    const tcert::TensorBinding binding{{"X", extents}, perm};
    tcert::SplitMap map(binding, row_extents, col_extents);
    std::int64_t rows = 1, cols = 1;
    for (std::int64_t e : row_extents) rows *= e;
    for (std::int64_t e : col_extents) cols *= e;
    std::uint64_t runs = 0, previous = 0;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::uint64_t at = map.row(r) + map.col(c);
        runs += (r == 0 && c == 0) || at != previous + 1 ? 1 : 0;
        previous = at;
      }
    ASSERT_EQ(map.whole_view_runs(), runs) << "trial " << trial;
  }
}

TEST(SplitMap, RunsOfAViewCoverARangeInOrder) {
  // Stored [r0, c0, c1, r1]: columns (c0, c1) are consecutive in memory, rows are not.
  const tcert::TensorBinding binding{{"X", {3, 2, 4, 5}}, {0, 3, 1, 2}};
  tcert::SplitMap map(binding, {3, 5}, {2, 4});
  const std::int64_t cols = 8;
  std::vector<std::uint64_t> col_part, row_part;
  map.cols(0, cols, col_part);
  map.rows(0, 15, row_part);
  const auto runs = tcert::consecutive_runs(col_part);
  for (const std::int64_t first : {0, 3, 8, 13})
    for (const std::int64_t count : {std::int64_t{1}, std::int64_t{6}, std::int64_t{20}, 120 - first}) {
      std::vector<std::uint64_t> seen;  // the linear index of each element, in visiting order
      std::vector<std::int64_t> at;     // its position in the range
      tcert::for_each_run_of_view(
          first, count, cols, col_part, runs, [&](std::int64_t r) { return row_part[static_cast<std::size_t>(r)]; },
          [&](std::uint64_t linear, std::size_t n, std::int64_t e) {
            EXPECT_GT(n, 0u);
            for (std::size_t i = 0; i < n; ++i)
              seen.push_back(linear + i), at.push_back(e + static_cast<std::int64_t>(i));
          });
      ASSERT_EQ(seen.size(), static_cast<std::size_t>(count)) << first << "+" << count;
      for (std::int64_t i = 0; i < count; ++i) {
        const std::int64_t v = first + i;
        EXPECT_EQ(at[static_cast<std::size_t>(i)], i);
        EXPECT_EQ(seen[static_cast<std::size_t>(i)], map.row(v / cols) + map.col(v % cols)) << first << "+" << i;
      }
    }
}

TEST(SplitMap, RunsOfABlockGoColumnByColumnWhereARowIndexIsInnermost) {
  // Rows (r0, r1) 3 x 5, columns (c0, c1) 2 x 4; stored [c0, r0, c1, r1] (r1 innermost: column by
  // column, runs along r1) and [r0, c0, r1, c1] (c1 innermost: row by row). A block of rows
  // {1,2,3, 5,6} × columns {0,1,2, 6}: every element visited once, at its place in the block (step
  // apart within a run), in the order of its pass, and runs maximal within a row (a column).
  for (const bool rows_inner : {true, false}) {
    const tcert::TensorBinding binding = rows_inner ? tcert::TensorBinding{{"X", {2, 3, 4, 5}}, {1, 3, 0, 2}}
                                                    : tcert::TensorBinding{{"X", {3, 2, 5, 4}}, {0, 2, 1, 3}};
    const tcert::LinearMap map(binding, 2);
    EXPECT_EQ(map.rows_innermost(), rows_inner);
    const std::vector<std::int64_t> rows = {1, 2, 3, 5, 6}, cols = {0, 1, 2, 6};
    std::vector<std::int64_t> row_values, col_values;
    for (std::int64_t r : rows) row_values.insert(row_values.end(), {r / 5, r % 5});
    for (std::int64_t c : cols) col_values.insert(col_values.end(), {c / 4, c % 4});
    const std::size_t R = rows.size(), C = cols.size();
    std::vector<std::uint64_t> seen, want, col_parts, row_parts;
    std::vector<std::size_t> at;  // each element's place in the block, in visiting order
    std::size_t runs = 0;
    tcert::for_each_run_of_block(map, row_values.data(), col_values.data(), R, C, col_parts, row_parts,
                                 [&](std::uint64_t linear, std::size_t n, std::size_t e, std::size_t step) {
                                   EXPECT_EQ(step, rows_inner ? C : 1u);
                                   for (std::size_t i = 0; i < n; ++i)
                                     seen.push_back(linear + i), at.push_back(e + i * step);
                                   ++runs;
                                 });
    std::vector<std::size_t> order;
    for (std::size_t a = 0; a < (rows_inner ? C : R); ++a)
      for (std::size_t b = 0; b < (rows_inner ? R : C); ++b) order.push_back(rows_inner ? b * C + a : a * C + b);
    for (std::size_t e : order) want.push_back(map(row_values.data() + 2 * (e / C), col_values.data() + 2 * (e % C)));
    EXPECT_EQ(at, order);
    EXPECT_EQ(seen, want);
    // Column by column: rows 1-3 and 5-6 are two runs of each column; row by row columns 0-2 and 6.
    EXPECT_EQ(runs, rows_inner ? 2 * C : 2 * R);
  }
}
