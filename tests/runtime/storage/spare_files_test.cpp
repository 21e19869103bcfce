// tests/runtime/storage/spare_files_test.cpp — SpareFiles: files given, taken by their exact size,
// bounded, removed with the pool; NpyWriter writing into a spare.
#include "runtime/storage/spare_files.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/storage/npy.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;

void write_bytes(const std::string& path, std::size_t bytes, char fill = 'x') {
  std::ofstream(path, std::ios::binary) << std::string(bytes, fill);
}

TEST(SpareFiles, TakesBackByExactSizeOldestFirstAndRemovesWhatItHolds) {
  tcert_test::TempDir dir;
  std::string pool_dir;
  {
    tcert::SpareFiles spares;
    EXPECT_FALSE(spares.take(100, dir.path() + "/none"));  // empty
    write_bytes(dir.path() + "/a", 100, 'a');
    write_bytes(dir.path() + "/b", 100, 'b');
    write_bytes(dir.path() + "/c", 200, 'c');
    for (const char* name : {"/a", "/b", "/c"}) ASSERT_TRUE(spares.give(dir.path() + name, dir.path()));
    EXPECT_FALSE(fs::exists(dir.path() + "/a"));
    EXPECT_EQ(spares.bytes(), 400U);
    EXPECT_FALSE(spares.take(150, dir.path() + "/x"));  // no spare of that size
    ASSERT_TRUE(spares.take(100, dir.path() + "/x"));
    std::ifstream in(dir.path() + "/x");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), std::string(100, 'a'));  // the oldest
    EXPECT_EQ(spares.bytes(), 300U);
    // Another directory than the pool's first: not taken, left in place for the caller.
    tcert_test::TempDir other;
    write_bytes(other.path() + "/d", 100);
    EXPECT_FALSE(spares.give(other.path() + "/d", other.path()));
    EXPECT_TRUE(fs::exists(other.path() + "/d"));
    for (const auto& entry : fs::directory_iterator(dir.path()))
      if (entry.is_directory()) pool_dir = entry.path().string();
    ASSERT_FALSE(pool_dir.empty());
  }
  EXPECT_FALSE(fs::exists(pool_dir));  // the pool's files and directory go with it
  EXPECT_TRUE(fs::exists(dir.path() + "/x"));
}

TEST(SpareFiles, HoldsAtMostItsBoundOldestOutFirst) {
  tcert_test::TempDir dir;
  tcert::SpareFiles spares;
  const std::uint64_t part = tcert::SpareFiles::kMaxBytes / 2;
  write_bytes(dir.path() + "/big", tcert::SpareFiles::kMaxBytes + 1);
  EXPECT_FALSE(spares.give(dir.path() + "/big", dir.path()));  // larger than the bound
  EXPECT_TRUE(fs::exists(dir.path() + "/big"));
  for (const char* name : {"/a", "/b", "/c"}) {
    write_bytes(dir.path() + name, part, name[1]);
    ASSERT_TRUE(spares.give(dir.path() + name, dir.path()));
  }
  EXPECT_EQ(spares.bytes(), 2 * part);  // a went out
  ASSERT_TRUE(spares.take(part, dir.path() + "/x"));
  std::ifstream in(dir.path() + "/x");
  EXPECT_EQ(in.get(), 'b');
}

// A writer that takes a spare writes its own header and starts from zeros, as a new file does;
// a spare of another size is not taken.
TEST(SpareFiles, NpyWriterWritesIntoASpareFromZeros) {
  tcert_test::TempDir dir;
  tcert::SpareFiles spares;
  {
    tcert::NpyWriter w(dir.path() + "/old.npy", {4, 6});
    for (std::size_t e = 0; e < w.size(); ++e) w.data()[e] = 1.0 + static_cast<double>(e);
    w.commit(false);
  }
  const auto bytes = fs::file_size(dir.path() + "/old.npy");
  ASSERT_TRUE(spares.give(dir.path() + "/old.npy", dir.path()));
  {
    tcert::NpyWriter other(dir.path() + "/other.npy", {5, 6}, &spares);  // another size: a new file
    other.commit(false);
  }
  EXPECT_EQ(spares.bytes(), bytes);
  tcert::NpyWriter w(dir.path() + "/new.npy", {6, 4}, &spares);
  EXPECT_EQ(spares.bytes(), 0U);  // taken
  for (std::size_t e = 0; e < w.size(); ++e) EXPECT_EQ(w.data()[e], 0.0) << e;
  w.data()[5] = -2.5;
  w.commit(false);
  const tcert::NpyReader r(dir.path() + "/new.npy");
  EXPECT_EQ(r.header().shape, (std::vector<std::uint64_t>{6, 4}));
  EXPECT_EQ(r.data()[5], -2.5);
  EXPECT_EQ(r.data()[0], 0.0);
  EXPECT_EQ(fs::file_size(dir.path() + "/new.npy"), bytes);
}

// write_npy() over an existing file with a pool: the replaced file goes to the pool, and the next
// write of that size is written into it, with its own header and values; without a pool, or in
// another directory than the pool's, the replaced file is removed.
TEST(SpareFiles, WriteNpyWritesIntoASpareAndGivesTheReplacedFileToThePool) {
  tcert_test::TempDir dir;
  tcert::SpareFiles spares;
  const std::string out = dir.path() + "/r.npy";
  const std::vector<double> one = {1, 2, 3, 4, 5, 6}, two = {-1, -2, -3, -4, -5, -6};
  tcert::write_npy(out, {2, 3}, one.data(), false, &spares);
  EXPECT_EQ(spares.bytes(), 0U);  // nothing replaced yet
  const auto bytes = fs::file_size(out);
  tcert::write_npy(out, {3, 2}, two.data(), false, &spares);
  EXPECT_EQ(spares.bytes(), bytes);  // the first r.npy
  const tcert::NpyReader second(out);
  EXPECT_EQ(second.header().shape, (std::vector<std::uint64_t>{3, 2}));
  EXPECT_EQ(std::vector<double>(second.data(), second.data() + 6), two);
  tcert::write_npy(out, {6}, one.data(), false, &spares);  // into the spare; the second r.npy to the pool
  EXPECT_EQ(spares.bytes(), bytes);
  const tcert::NpyReader third(out);
  EXPECT_EQ(third.header().shape, (std::vector<std::uint64_t>{6}));
  EXPECT_EQ(std::vector<double>(third.data(), third.data() + 6), one);
  EXPECT_EQ(std::vector<double>(second.data(), second.data() + 6), two);  // a mapping keeps its file
  tcert::write_npy(out, {6}, two.data(), false);                          // no pool: the replaced file is removed
  EXPECT_EQ(spares.bytes(), bytes);
  tcert_test::TempDir other;
  tcert::write_npy(other.path() + "/r.npy", {6}, one.data(), false, &spares);  // takes the spare
  EXPECT_EQ(spares.bytes(), 0U);
  tcert::write_npy(other.path() + "/r.npy", {6}, two.data(), false, &spares);  // not the pool's directory
  EXPECT_EQ(spares.bytes(), 0U);
  EXPECT_EQ(std::distance(fs::directory_iterator(other.path()), {}), 1);  // no temporary, no old file
  const tcert::NpyReader last(other.path() + "/r.npy");
  EXPECT_EQ(std::vector<double>(last.data(), last.data() + 6), two);
}

TEST(SpareFiles, RefusesAFileWithAnotherName) {
  tcert_test::TempDir dir;
  tcert::SpareFiles spares;
  write_bytes(dir.path() + "/version", 100, 'v');
  ASSERT_EQ(::link((dir.path() + "/version").c_str(), (dir.path() + "/output").c_str()), 0);  // an exported output
  EXPECT_FALSE(spares.give(dir.path() + "/version", dir.path()));
  EXPECT_TRUE(fs::exists(dir.path() + "/version"));
  EXPECT_EQ(spares.bytes(), 0U);
}

}  // namespace
