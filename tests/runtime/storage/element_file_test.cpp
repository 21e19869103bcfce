// tests/runtime/storage/element_file_test.cpp — ElementFile, RunReads, RunWrites: runs read and
// written with few requests land where they should, nothing counted, clear errors.
#include "runtime/storage/element_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "temp_dir.h"

namespace {

using tcert::ElementFile;
using tcert::RunReads;
using tcert::RunWrites;

constexpr std::uint64_t kOffset = 128;  // bytes before element 0, as a .npy header

/// A file of `n` elements with element e = e, after kOffset bytes of header.
std::string iota_file(const tcert_test::TempDir& dir, const std::string& name, std::size_t n) {
  std::vector<double> data(n);
  std::iota(data.begin(), data.end(), 0.0);
  const std::string path = dir.file(name);
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  const std::vector<char> header(kOffset, 'h');
  EXPECT_EQ(::pwrite(fd, header.data(), header.size(), 0), static_cast<ssize_t>(kOffset));
  EXPECT_EQ(::pwrite(fd, data.data(), 8 * n, kOffset), static_cast<ssize_t>(8 * n));
  ::close(fd);
  return path;
}

TEST(RunReads, RunsInAnyOrderWithGapsAndStridesLandInPlace) {
  tcert_test::TempDir dir;
  const std::size_t n = std::size_t{1} << 20;
  const ElementFile file(iota_file(dir, "a.bin", n), kOffset, false);
  tcert::counters().reset();
  RunReads reads(file);
  std::vector<double> out(400000, -1);
  reads.add(1000, 10, out.data());  // read with the next: 6 elements apart
  reads.add(1016, 5, out.data() + 10);
  reads.add(500000, 3, out.data() + 20);                           // far away: a request of its own
  reads.add(20, 4, out.data() + 30);                               // before the others: sorted
  reads.add(700000, 5, out.data() + 40, 7);                        // strided: out[40], out[47], …
  const std::size_t long_strided = RunReads::kStagingElems + 100;  // cut to fit the staging buffer
  std::vector<double> strided(2 * long_strided, -1);
  reads.add(100000, long_strided, strided.data(), 2);
  reads.flush();
  EXPECT_TRUE(reads.empty());
  for (int e = 0; e < 10; ++e) EXPECT_EQ(out[e], 1000 + e);
  for (int e = 0; e < 5; ++e) EXPECT_EQ(out[10 + e], 1016 + e);
  for (int e = 0; e < 3; ++e) EXPECT_EQ(out[20 + e], 500000 + e);
  for (int e = 0; e < 4; ++e) EXPECT_EQ(out[30 + e], 20 + e);
  for (int e = 0; e < 5; ++e) EXPECT_EQ(out[40 + 7 * e], 700000 + e);
  EXPECT_EQ(out[41], -1);  // between strided elements: untouched
  for (std::size_t e = 0; e < long_strided; ++e) ASSERT_EQ(strided[2 * e], 100000.0 + static_cast<double>(e));
  EXPECT_EQ(strided[1], -1);
  const tcert::Volumes v = tcert::counters().snapshot(tcert::Phase::Load);
  EXPECT_EQ(v.disk_read_bytes, 0u);  // callers count what they ask for
  EXPECT_EQ(v.disk_requests, 0u);
}

TEST(RunReads, PastTheEndIsAnErrorNamingTheFile) {
  tcert_test::TempDir dir;
  const ElementFile file(iota_file(dir, "short.bin", 100), kOffset, false);
  RunReads reads(file);
  std::vector<double> out(10);
  reads.add(95, 10, out.data());
  EXPECT_EQ(tcert_test::message_of([&] { reads.flush(); }),
            "cannot read 80 bytes from " + dir.file("short.bin") + " at byte offset 888: the file ends at byte 928");
}

/// Direct reads from `min_bytes` on while it lives (set_direct_reads(); 0 after).
struct DirectReads {
  explicit DirectReads(std::uint64_t min_bytes) { tcert::set_direct_reads(min_bytes); }
  ~DirectReads() { tcert::set_direct_reads(0); }
};

/// How many of the pages of `path` the page cache holds (mincore over a mapping of it).
std::size_t resident_pages(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  const auto bytes = static_cast<std::size_t>(::lseek(fd, 0, SEEK_END));
  void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)), pages = (bytes + page - 1) / page;
  std::vector<unsigned char> in(pages);
  ::mincore(map, bytes, in.data());
  ::munmap(map, bytes);
  std::size_t resident = 0;
  for (unsigned char c : in) resident += c & 1;
  return resident;
}

/// Drops the clean pages of `path` from the page cache (after flushing them).
void drop_pages(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

/// A file of `n` elements (iota_file), opened while reads of `min_bytes` or more go direct, its
/// pages dropped. A test skips where the file system refuses O_DIRECT (file.direct_fd() < 0).
struct DirectFile {
  DirectFile(const std::string& name, std::size_t n, std::uint64_t min_bytes)
      : path(iota_file(dir, name, n)), direct(min_bytes), file(path, kOffset, false) {
    drop_pages(path);
  }
  tcert_test::TempDir dir;
  std::string path;
  DirectReads direct;
  ElementFile file;
};

TEST(RunReads, DirectReadsLandInPlaceAcrossRequestsAndLeaveThePageCacheAlone) {
  const std::size_t n = std::size_t{3} << 20;  // 24 MiB: requests of kDirectBytes and a short one at the end
  const DirectFile d("d.bin", n, 1);
  if (d.file.direct_fd() < 0) GTEST_SKIP() << "this file system refuses O_DIRECT (" << d.dir.file("") << ")";
  RunReads reads(d.file);
  const std::size_t across = RunReads::kDirectBytes / 8 + 1000;  // longer than one request
  const std::size_t before = 250000;  // 2,000,000 bytes: the strided run after it crosses a request's end
  std::vector<double> out(across + 100, -1), strided(2 * RunReads::kStagingElems, -1), run(before);
  reads.add(3, across, out.data());                                       // starts inside the header's page
  reads.add(n - 7, 7, out.data() + across);                               // the file's last elements
  reads.add(n / 2 - 5000, 4, out.data() + across + 10);                   // a request of its own
  reads.add(n / 2, before, run.data());                                   // one request with the next
  reads.add(n / 2 + before, RunReads::kStagingElems, strided.data(), 2);  // strided
  reads.flush();
  for (std::size_t e = 0; e < before; ++e) ASSERT_EQ(run[e], static_cast<double>(n / 2 + e));
  for (std::size_t e = 0; e < across; ++e) ASSERT_EQ(out[e], 3.0 + static_cast<double>(e));
  for (std::size_t e = 0; e < 7; ++e) EXPECT_EQ(out[across + e], static_cast<double>(n - 7 + e));
  for (std::size_t e = 0; e < 4; ++e) EXPECT_EQ(out[across + 10 + e], static_cast<double>(n / 2 - 5000 + e));
  EXPECT_EQ(out[across + 7], -1);
  for (std::size_t e = 0; e < RunReads::kStagingElems; ++e)
    ASSERT_EQ(strided[2 * e], static_cast<double>(n / 2 + before + e));
  EXPECT_EQ(strided[1], -1);
  EXPECT_EQ(resident_pages(d.path), 0u);  // nothing went through the page cache
}

TEST(RunReads, RequestsBelowTheDirectSizeAreReadThroughThePageCache) {
  const std::size_t n = std::size_t{1} << 20;
  const DirectFile d("s.bin", n, std::uint64_t{1} << 20);  // from 1 MiB
  if (d.file.direct_fd() < 0) GTEST_SKIP() << "this file system refuses O_DIRECT";
  RunReads reads(d.file);
  std::vector<double> small(1000), large(std::size_t{1} << 17);
  reads.add(10, small.size(), small.data());     // 8000 bytes: buffered
  reads.add(n / 2, large.size(), large.data());  // 1 MiB: direct
  reads.flush();
  for (std::size_t e = 0; e < small.size(); ++e) ASSERT_EQ(small[e], 10.0 + static_cast<double>(e));
  for (std::size_t e = 0; e < large.size(); ++e) ASSERT_EQ(large[e], static_cast<double>(n / 2 + e));
  EXPECT_EQ(resident_pages(d.path), 3u);  // the small run's pages (bytes 208 to 8208), not the large one's
}

TEST(RunReads, ARequestWithMuchBetweenItsRunsIsReadThroughThePageCache) {
  const DirectFile d("g.bin", std::size_t{1} << 20, std::uint64_t{1} << 20);  // from 1 MiB
  if (d.file.direct_fd() < 0) GTEST_SKIP() << "this file system refuses O_DIRECT";
  RunReads reads(d.file);
  std::vector<double> out(200 * 1000);
  for (std::size_t r = 0; r < 200; ++r) reads.add(1500 * r, 1000, out.data() + 1000 * r);  // 4000 bytes apart
  reads.flush();
  for (std::size_t r = 0; r < 200; ++r)
    for (std::size_t e = 0; e < 1000; ++e) ASSERT_EQ(out[1000 * r + e], static_cast<double>(1500 * r + e));
  // One request of 2,396,000 bytes from byte 128, a third of it between runs: buffered, every page
  // it spans read into the page cache (where the rows of a neighbouring tile would find them).
  EXPECT_EQ(resident_pages(d.path), (128 + 2396000 - 1) / 4096 + 1);
}

TEST(RunReads, ADirectReadPastTheEndIsTheSameError) {
  const DirectFile d("short.bin", 100, 1);
  if (d.file.direct_fd() < 0) GTEST_SKIP() << "this file system refuses O_DIRECT";
  RunReads reads(d.file);
  std::vector<double> out(10);
  reads.add(95, 10, out.data());
  EXPECT_EQ(tcert_test::message_of([&] { reads.flush(); }),
            "cannot read 80 bytes from " + d.dir.file("short.bin") + " at byte offset 888: the file ends at byte 928");
}

TEST(RunWrites, LongShortStridedAndSingleElementsInOrder) {
  tcert_test::TempDir dir;
  const std::size_t n = 300000;
  const std::string path = iota_file(dir, "w.bin", n);
  ElementFile file(path, kOffset, true);
  file.set_window(4096);  // every batch waits for the one before: the write-behind runs too
  RunWrites writes(file);
  std::vector<double> long_run(RunWrites::kDirectElems + 3, 0.5);  // from the caller's memory
  writes.add(10, long_run.size(), long_run.data());
  const std::vector<double> strided = {1.5, -9, 2.5, -9, 3.5};
  writes.add(2000, 3, strided.data(), 2);
  for (std::uint64_t at = 3000; at < 3010; ++at) writes.put(at, -static_cast<double>(at));  // one run staged
  writes.flush();
  std::vector<double> many(RunWrites::kStagingElems + 10, 7.0);  // more than the staging holds: flushed midway
  writes.add(100000, many.size(), many.data(), 1);
  writes.put(3005, 42);  // later writes win
  writes.flush();
  EXPECT_TRUE(writes.empty());
  const ElementFile back(path, kOffset, false);
  std::vector<double> all(n);
  back.read(0, n, all.data());
  EXPECT_EQ(all[9], 9);
  for (std::size_t e = 0; e < long_run.size(); ++e) ASSERT_EQ(all[10 + e], 0.5);
  EXPECT_EQ(all[10 + long_run.size()], 10.0 + static_cast<double>(long_run.size()));
  EXPECT_EQ(all[2000], 1.5);
  EXPECT_EQ(all[2001], 2.5);
  EXPECT_EQ(all[2002], 3.5);
  EXPECT_EQ(all[2003], 2003);
  for (std::uint64_t at = 3000; at < 3010; ++at) EXPECT_EQ(all[at], at == 3005 ? 42 : -static_cast<double>(at));
  for (std::size_t e = 0; e < many.size(); ++e) ASSERT_EQ(all[100000 + e], 7.0);
}

TEST(ElementFile, CopyFromAnotherFile) {
  tcert_test::TempDir dir;
  const ElementFile from(iota_file(dir, "from.bin", 1000), kOffset, false);
  const std::string path = iota_file(dir, "to.bin", 1000);
  ElementFile to(path, kOffset, true);
  std::vector<double> zeros(1000, 0.0);
  to.read(0, 0, zeros.data());  // nothing
  RunWrites clear(to);
  clear.add(0, zeros.size(), zeros.data());
  clear.flush();
  to.copy_from(from, 100, 50);
  std::vector<double> all(1000);
  to.read(0, 1000, all.data());
  EXPECT_EQ(all[99], 0);
  for (int e = 100; e < 150; ++e) EXPECT_EQ(all[static_cast<std::size_t>(e)], e);
  EXPECT_EQ(all[150], 0);
}

/// The bytes of the file at `path`.
std::vector<char> bytes_of_file(const std::string& path) {
  std::vector<char> bytes;
  const int fd = ::open(path.c_str(), O_RDONLY);
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) bytes.insert(bytes.end(), buffer, buffer + n);
  ::close(fd);
  return bytes;
}

TEST(CopyFileStreamed, CopiesEveryByteOverSeveralRequestsAndReplacesTheTarget) {
  tcert_test::TempDir dir;
  const std::size_t n = tcert::kCopyBytes / 8 * 2 + 77;  // two full requests and a partial one
  const std::string from = iota_file(dir, "from.npy", n), to = dir.file("to.npy");
  iota_file(dir, "to.npy", 3);  // an older, shorter file of that name
  tcert::counters().reset();
  tcert::copy_file_streamed(from, to);
  EXPECT_EQ(bytes_of_file(to), bytes_of_file(from));
  EXPECT_EQ(tcert::counters().total().disk_read_bytes, 0u);  // callers count
}

TEST(CopyFileStreamed, AMissingSourceIsAnErrorNamingIt) {
  tcert_test::TempDir dir;
  try {
    tcert::copy_file_streamed(dir.file("none.npy"), dir.file("to.npy"));
    FAIL() << "no error";
  } catch (const tcert::Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot open " + dir.file("none.npy") + ": No such file or directory");
  }
}

TEST(LinkFile, GivesTheSameDataASecondNameThatOutlivesTheFirst) {
  tcert_test::TempDir dir;
  const std::string from = iota_file(dir, "version.npy", 1000), to = dir.file("out.npy");
  iota_file(dir, "out.npy", 3);  // replaced
  const std::vector<char> before = bytes_of_file(from);
  ASSERT_TRUE(tcert::link_file(from, to));
  ::unlink(from.c_str());  // the store goes
  EXPECT_EQ(bytes_of_file(to), before);
}

}  // namespace
