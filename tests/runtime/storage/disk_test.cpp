// tests/runtime/storage/disk_test.cpp — DiskFile transfers, gather/scatter rows, errors and byte counts.
#include "runtime/storage/disk.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <utility>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "temp_dir.h"

namespace {

using tcert_test::message_of;

using tcert::counters;
using tcert::DiskFile;
using tcert::Phase;

std::vector<double> iota(std::size_t n, double first = 0) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(DiskFile, WriteThenReadAtOffsetsAndCountBytes) {
  tcert_test::TempDir dir;
  counters().reset();
  DiskFile f(dir.file("a.bin"));
  std::vector<double> data = iota(100);
  f.write(data.data(), 0, 100);
  f.write(data.data(), 150, 10);  // leaves a hole of zeros
  EXPECT_EQ(f.size_elems(), 160u);
  std::vector<double> back(20, -1);
  f.read(back.data(), 90, 20);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(back[i], 90 + i);
  for (int i = 10; i < 20; ++i) EXPECT_EQ(back[i], 0.0);
  tcert::Volumes v = counters().snapshot(Phase::Load);
  EXPECT_EQ(v.disk_write_bytes, 8u * 110);
  EXPECT_EQ(v.disk_read_bytes, 8u * 20);
}

TEST(DiskFile, RowsGatherAndScatterWithALeadingDimension) {
  tcert_test::TempDir dir;
  DiskFile f(dir.file("rows.bin"));
  // A 5x7 matrix; its sub-block rows 1..3, columns 2..5 (3x4) goes to the file at offset 6.
  std::vector<double> matrix = iota(35);
  f.write_rows(matrix.data() + 1 * 7 + 2, 7, 3, 4, 6);
  std::vector<double> flat(12);
  f.read(flat.data(), 6, 12);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(flat[i * 4 + j], matrix[(1 + i) * 7 + 2 + j]);
  std::vector<double> target(40, -1);  // 4x10, block at rows 0..2, columns 5..8
  f.read_rows(target.data() + 5, 10, 3, 4, 6);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 10; ++j) {
      bool inside = i < 3 && j >= 5 && j < 9;
      EXPECT_EQ(target[i * 10 + j], inside ? flat[i * 4 + j - 5] : -1) << i << "," << j;
    }
}

TEST(DiskFile, MoreRowsThanIovMax) {
  tcert_test::TempDir dir;
  counters().reset();
  DiskFile f(dir.file("many.bin"), /*direct=*/true);  // falls back to buffered if need be
  const std::size_t rows = 2500, cols = 3, ld = 5;
  std::vector<double> matrix = iota(rows * ld);
  f.write_rows(matrix.data(), ld, rows, cols, 1);
  std::vector<double> back(rows * ld, -1);
  f.read_rows(back.data(), ld, rows, cols, 1);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < ld; ++j) ASSERT_EQ(back[i * ld + j], j < cols ? matrix[i * ld + j] : -1);
  tcert::Volumes v = counters().snapshot(Phase::Load);
  EXPECT_EQ(v.disk_write_bytes, 8u * rows * cols);
  EXPECT_EQ(v.disk_read_bytes, 8u * rows * cols);
}

TEST(DiskFile, ReadPastTheEndNamesPathAndOffset) {
  tcert_test::TempDir dir;
  DiskFile f(dir.file("short.bin"));
  std::vector<double> data = iota(4);
  f.write(data.data(), 0, 4);
  std::vector<double> back(4);
  EXPECT_EQ(message_of([&] { f.read(back.data(), 2, 4); }),
            "cannot read 32 bytes from " + dir.file("short.bin") + " at byte offset 16: the file ends at byte 32");
}

TEST(DiskFile, FullDiskSaysSo) {
  DiskFile f("/dev/full");
  double x = 1;
  std::string message = message_of([&] { f.write(&x, 0, 1); });
  EXPECT_EQ(message.rfind("disk full: cannot write 8 bytes to /dev/full at byte offset 0: ", 0), 0u) << message;
}

TEST(DiskFile, OpenFailureNamesThePath) {
  EXPECT_EQ(message_of([] { DiskFile f("/nonexistent-dir/x.bin"); }),
            "cannot open /nonexistent-dir/x.bin: No such file or directory");
}

TEST(DiskFile, ResizeRemoveAndMove) {
  tcert_test::TempDir dir;
  DiskFile f(dir.file("r.bin"));
  f.resize(1000);
  EXPECT_EQ(f.size_elems(), 1000u);
  std::vector<double> back(3, -1);
  f.read(back.data(), 997, 3);
  EXPECT_EQ(back, std::vector<double>(3, 0.0));
  DiskFile g = std::move(f);
  EXPECT_FALSE(f.is_open());
  EXPECT_TRUE(g.is_open());
  EXPECT_THROW(f.read(back.data(), 0, 1), tcert::Error);
  g.remove();
  EXPECT_FALSE(g.is_open());
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.bin")));
  g.remove();  // already gone: fine
}

}  // namespace
