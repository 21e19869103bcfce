// tests/runtime/split_map_test.cpp — SplitMap::rows(): the odometer gives, for every range of
// flat rows, the parts row() gives one row at a time, on a permuted tensor whose row group has
// three indices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/split_map.h"

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
