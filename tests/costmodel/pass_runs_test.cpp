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
