// tests/runtime/storage/mapped_walk_test.cpp — MappedWalk's charges and ResidentGuard's drops (issue 21,
// "memory honoured").
#include "runtime/storage/mapped_walk.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "temp_dir.h"

namespace {

using tcert::kMappedPageBytes;
using tcert::MappedWalk;
using tcert::ResidentGuard;

TEST(MappedWalk, ChargesAWindowEachTimeTheWalkLeavesOne) {
  MappedWalk walk(kMappedPageBytes);  // 512 elements a window
  EXPECT_EQ(walk.touch(0), 4096u);
  EXPECT_EQ(walk.touch(1), 0u);
  EXPECT_EQ(walk.touch(511), 0u);
  EXPECT_EQ(walk.touch(512), 4096u);
  EXPECT_EQ(walk.touch(0), 4096u);  // back to an earlier window: charged again
  EXPECT_EQ(walk.span(100, 0), 0u);
  EXPECT_EQ(walk.span(100, 1000), 2 * 4096u);   // elements 100..1099: windows 0 (current) to 2
  EXPECT_EQ(walk.span(1100, 2000), 4 * 4096u);  // elements 1100..3099: windows 2 (current) to 6
}

TEST(MappedWalk, FaultAroundWindowsAreSixtyFourKiB) {
  MappedWalk walk(tcert::kFaultAroundBytes);
  EXPECT_EQ(walk.touch(8191), 65536u);
  EXPECT_EQ(walk.touch(8192), 65536u);
  EXPECT_EQ(walk.touch(16383), 0u);
}

// Writes through a shared mapping of a 32 MiB file, page by page, charging each page to a guard of
// 8 MiB: it asks for a drop once the process's resident file pages have grown by 8 MiB (checked
// about every ResidentGuard::kCheckBytes of growth), and after the drop it counts growth from there.
// Writes a 32 MiB shared mapping in spans of `span` bytes (each charged through a MappedWalk and
// counted as the windows it entered) and requires a drop within a check interval (about
// kCheckBytes of growth, plus one span) of every 8 MiB of growth, and the resident pages falling
// after each.
void expect_drops_every_limit(std::uint64_t span) {
  const tcert_test::TempDir dir;
  const std::string path = dir.file("mapped");
  constexpr std::uint64_t kFile = std::uint64_t{32} << 20, kLimit = std::uint64_t{8} << 20;
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kFile)), 0);
  auto* data = static_cast<char*>(::mmap(nullptr, kFile, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  ASSERT_NE(data, MAP_FAILED);
  ::close(fd);

  constexpr std::uint64_t kSlack = std::uint64_t{1} << 20;  // other pages the process maps meanwhile
  std::uint64_t level = tcert::resident_file_bytes();       // since the last drop
  ASSERT_GT(level, 0u);
  ResidentGuard guard(kLimit);
  MappedWalk walk(kMappedPageBytes);
  std::uint64_t written = 0, since_drop = 0, drops = 0;
  for (; written < kFile; written += span, since_drop += span) {
    std::memset(data + written, 1, span);  // each page written is one page resident
    const std::uint64_t bytes = walk.span(written / 8, span / 8);
    EXPECT_EQ(bytes, span);
    if (!guard.touched(bytes, walk.windows(bytes))) continue;
    const std::uint64_t now = tcert::resident_file_bytes();
    EXPECT_GE(now + kSlack, level + kLimit);
    EXPECT_LE(since_drop, kLimit + ResidentGuard::kCheckBytes + span + kSlack) << span;
    EXPECT_GE(since_drop + kSlack, kLimit);
    ASSERT_EQ(::madvise(data, kFile, MADV_DONTNEED), 0);
    EXPECT_LT(tcert::resident_file_bytes(), now - kLimit / 2);
    guard.dropped();
    level = tcert::resident_file_bytes(), since_drop = 0, ++drops;
  }
  EXPECT_GE(drops, 3u) << span;  // 32 MiB written, a drop per at most 8 MiB
  EXPECT_LE(drops, 4u) << span;
  EXPECT_FALSE(guard.touched(0));
  ::munmap(data, kFile);
}

TEST(ResidentGuard, AsksForADropOnceResidentFilePagesGrowByItsLimit) { expect_drops_every_limit(kMappedPageBytes); }

// A walk by runs (direct tile I/O, sfc panels) checks as often as a walk page by page: a span of
// 1 MiB counts as the 256 pages it entered, not as one access (one access a check interval of at
// least 16 would check every 16 MiB).
TEST(ResidentGuard, SpansCountAsTheWindowsTheyEnter) { expect_drops_every_limit(256 * kMappedPageBytes); }

}  // namespace
