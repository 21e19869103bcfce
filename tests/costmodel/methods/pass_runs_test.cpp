// PassRuns::faults() (costmodel/methods/pass_runs.h): the page faults a pass over a block of a
// tensor's file takes, estimated in O(indices), against the fault-around windows it really
// touches, counted element by element (nothing mapped when the pass starts, nothing dropped).
#include <gtest/gtest.h>

#include <set>

#include "costmodel/methods/pass_runs.h"

namespace tcec::costmodel {
namespace {

using i64 = std::int64_t;

/// A pass over rows [r0, r0 + h) × columns [c0, c0 + w) of a two-position tensor with extents
/// {rows, cols}, position p stored in dimension perm[p]: the distinct windows it touches.
std::uint64_t touched_windows(const std::vector<i64>& extents, const std::vector<int>& perm, i64 r0, i64 h, i64 c0,
                              i64 w) {
  std::vector<i64> stored(2), stride(2, 1);
  for (std::size_t p = 0; p < 2; ++p) stored[static_cast<std::size_t>(perm[p])] = extents[p];
  stride[0] = stored[1];
  std::set<i64> windows;
  for (i64 r = r0; r < r0 + h; ++r)
    for (i64 c = c0; c < c0 + w; ++c)
      windows.insert((r * stride[static_cast<std::size_t>(perm[0])] + c * stride[static_cast<std::size_t>(perm[1])]) /
                     kFaultAroundElements);
  return windows.size();
}

TEST(PassRuns, FaultsAreTheWindowsAPassTouches) {
  struct Case {
    std::vector<i64> extents;
    std::vector<int> perm;
    i64 r0, h, c0, w;
  };
  const std::vector<Case> cases = {
      {{1024, 64}, {0, 1}, 0, 1024, 0, 64},         // a dense block: 8 windows
      {{1200, 12000}, {0, 1}, 600, 600, 256, 128},  // sfc's panel of a large-K operand: a window per row
      {{300, 4096}, {0, 1}, 0, 300, 0, 4096},       // whole rows of half a window
      {{500, 9000}, {0, 1}, 100, 200, 1000, 1000},  // rows just over a window apart
      {{5000, 64}, {0, 1}, 1000, 2000, 16, 32},     // half of each short row
      {{20000, 300}, {1, 0}, 5000, 100, 0, 300},    // stored column-major: each row spans the file
  };
  for (const Case& c : cases) {
    PassRuns runs(c.extents, c.perm, 0, 1, 1, 1);
    runs.block(c.r0, c.h, c.c0, c.w);
    const auto exact = static_cast<double>(touched_windows(c.extents, c.perm, c.r0, c.h, c.c0, c.w));
    EXPECT_NEAR(static_cast<double>(runs.faults()), exact, 0.02 * exact + 2.0)
        << c.extents[0] << "x" << c.extents[1] << " rows " << c.r0 << "+" << c.h << " cols " << c.c0 << "+" << c.w;
  }
}

TEST(PassRuns, EachPassStartsWithNothingMapped) {
  // Two passes over the same rows fault the same: begin() (here through block()) starts afresh.
  PassRuns runs({1200, 12000}, {0, 1}, 0, 1, 1, 1);
  runs.block(0, 600, 0, 128);
  EXPECT_EQ(runs.faults(), 609u);  // 600 rows, 9 of them crossing a window's end (127/8192 of 600, rounded)
  runs.block(0, 600, 0, 128);
  EXPECT_EQ(runs.faults(), 609u);
}

TEST(PassRuns, ArraysThatStayMappedFaultOncePerWindow) {
  // 8 MiB of arrays stay mapped (nothing dropped): at most their windows; beyond, every fault counts.
  const double small = 1 << 20;  // elements: 8 MiB
  EXPECT_EQ(capped_faults(5000, small), 128.0);
  EXPECT_EQ(capped_faults(100, small), 100.0);
  EXPECT_EQ(capped_faults(5000, small + 1), 5000.0);
  EXPECT_DOUBLE_EQ(run_faults(128, 12000), 1.0 + 127.0 / 8192.0);  // rows far apart: the run's windows
  EXPECT_DOUBLE_EQ(run_faults(64, 64), 64.0 / 8192.0);             // rows side by side: the step's share
}

}  // namespace
}  // namespace tcec::costmodel

namespace tcec::costmodel {
namespace {

/// Runs of adjacent offsets in a sequence of element offsets (as runtime RunCounter counts them).
std::uint64_t runs_of(const std::vector<i64>& offsets) {
  std::uint64_t runs = 0;
  for (std::size_t e = 0; e < offsets.size(); ++e) runs += e == 0 || offsets[e] != offsets[e - 1] + 1 ? 1 : 0;
  return runs;
}

TEST(PanelRuns, ColumnByColumnWhereTheRowsHoldTheInnermostDimension) {
  // Rows (a, b), columns (p, q) with extents {6, 70, 5, 9}; stored [p, a, q, b] (b innermost: by
  // columns) and [a, b, p, q] (q innermost: by rows). Passes over several ranges of rows, one
  // longer than a block of 256, and the rows of every element listed in the runtime's order
  // (runtime/methods/panel_read.h): by rows, or per range in blocks of 256, each column by column.
  const std::vector<i64> extents = {6, 70, 5, 9};
  const std::vector<PanelRows> rows = {{3, 40}, {60, 300}, {361, 2}, {380, 1}};
  for (const std::vector<int>& perm : {std::vector<int>{1, 3, 0, 2}, std::vector<int>{0, 1, 2, 3}}) {
    std::vector<i64> stored(4), stride(4, 1);
    for (std::size_t p = 0; p < 4; ++p) stored[static_cast<std::size_t>(perm[p])] = extents[p];
    for (std::size_t d = 3; d-- > 0;) stride[d] = stride[d + 1] * stored[d + 1];
    auto offset = [&](i64 r, i64 c) {
      const i64 v[4] = {r / 70, r % 70, c / 9, c % 9};
      i64 at = 0;
      for (std::size_t p = 0; p < 4; ++p) at += v[p] * stride[static_cast<std::size_t>(perm[p])];
      return at;
    };
    PanelRuns panel(extents, perm, 2, 2);
    EXPECT_EQ(panel.by_columns(), perm[1] == 3);
    for (const auto& [k0, kc] : {std::pair<i64, i64>{0, 45}, {7, 13}, {44, 1}}) {
      std::vector<i64> order;
      for (const auto& [first, count] : rows)
        for (i64 b0 = first; b0 < first + count; b0 += panel.by_columns() ? 256 : count) {
          const i64 b1 = panel.by_columns() ? std::min(b0 + 256, first + count) : first + count;
          if (panel.by_columns()) {
            for (i64 c = k0; c < k0 + kc; ++c)
              for (i64 r = b0; r < b1; ++r) order.push_back(offset(r, c));
          } else {
            for (i64 r = b0; r < b1; ++r)
              for (i64 c = k0; c < k0 + kc; ++c) order.push_back(offset(r, c));
          }
        }
      panel.pass(rows, k0, kc);
      EXPECT_EQ(panel.runs(), runs_of(order))
          << "perm " << perm[0] << perm[1] << perm[2] << perm[3] << " columns " << k0 << "+" << kc;
    }
  }
  // By columns a column's runs follow b, cut where a changes and where a range or a block ends:
  // 1 + (5 + 2) + 1 + 1 per column (the second range's blocks: rows 60-315 over a = 0-4, 316-359
  // over a = 4-5); row by row each of the 343 rows would be 45 runs.
  PanelRuns panel(extents, {1, 3, 0, 2}, 2, 2);
  panel.pass(rows, 0, 45);
  EXPECT_EQ(panel.runs(), 45u * 10u);
}

}  // namespace
}  // namespace tcec::costmodel
