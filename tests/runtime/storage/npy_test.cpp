// tests/runtime/storage/npy_test.cpp — .npy headers, errors, atomic writes, and a round trip through NumPy.
#include "runtime/storage/npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/base/error.h"
#include "runtime/storage/spare_files.h"
#include "temp_dir.h"

namespace {

using tcert_test::message_of;

namespace fs = std::filesystem;
using Shape = std::vector<std::uint64_t>;

// A version-1.0 file with the given header dict and `data_bytes` zero bytes of data.
void write_raw_npy(const std::string& path, std::string dict, std::size_t data_bytes) {
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(dict.size() & 0xff));
  out.put(static_cast<char>(dict.size() >> 8));
  out << dict << std::string(data_bytes, '\0');
}

void write_values(const std::string& path, const Shape& shape) {
  tcert::NpyWriter writer(path, shape);
  for (std::size_t i = 0; i < writer.size(); ++i) writer.data()[i] = 0.5 * static_cast<double>(i);
  writer.commit();
}

TEST(Npy, FormatShape) {
  EXPECT_EQ(tcert::format_shape(Shape{}), "()");
  EXPECT_EQ(tcert::format_shape(Shape{5}), "(5,)");
  EXPECT_EQ(tcert::format_shape(Shape{3, 4}), "(3, 4)");
}

TEST(Npy, WriteThenReadBack) {
  tcert_test::TempDir dir;
  for (const Shape& shape : {Shape{}, Shape{7}, Shape{2, 3, 4}, Shape{3, 0}}) {
    std::string path = dir.file("t.npy");
    write_values(path, shape);
    tcert::NpyReader reader(path);
    EXPECT_EQ(reader.header().shape, shape);
    EXPECT_EQ(reader.header().data_offset_bytes % 64, 0u);
    ASSERT_EQ(reader.size(), reader.header().element_count());
    for (std::size_t i = 0; i < reader.size(); ++i) EXPECT_EQ(reader.data()[i], 0.5 * i);
    EXPECT_EQ(fs::file_size(path), reader.header().data_offset_bytes + 8 * reader.size());
  }
}

// RunOptions::sync_results = false: a writer and a patch of its temporary file (another rank's
// part) that do not flush leave the same file, read back through the page cache.
TEST(Npy, UnflushedWriterAndPatchReadBack) {
  tcert_test::TempDir dir;
  const std::string path = dir.file("u.npy");
  {
    tcert::NpyWriter writer(path, {6});
    for (int i = 0; i < 3; ++i) writer.data()[i] = 1.5 * i;
    {
      tcert::NpyPatch patch(writer.temp_path(), false);
      for (int i = 3; i < 6; ++i) patch.data()[i] = -2.0 * i;
      patch.sync();
    }
    writer.commit(false);
  }
  tcert::NpyReader reader(path);
  ASSERT_EQ(reader.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(reader.data()[i], i < 3 ? 1.5 * i : -2.0 * i) << i;
  std::vector<std::string> left;  // the file and no temporary one
  for (const auto& entry : fs::directory_iterator(dir.path())) left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"u.npy"});
}

// Backing::Memory: zero-initialised data() in memory, the file written by write_out() (seen by a
// reader before commit) and by commit(), also into a spare of the same size holding other
// values; NpyUpdate reads a file, writes it back in place, and nothing it did not write back.
TEST(Npy, MemoryBackedWriterAndUpdate) {
  tcert_test::TempDir dir;
  tcert::SpareFiles spares;
  write_values(dir.file("old.npy"), {5, 3});
  ASSERT_TRUE(spares.give(dir.file("old.npy"), dir.path()));
  const std::string path = dir.file("m.npy");
  {
    tcert::NpyWriter writer(path, {3, 5}, &spares, tcert::NpyWriter::Backing::Memory);
    EXPECT_FALSE(fs::exists(dir.file("old.npy")));  // taken as the temporary file
    for (std::size_t i = 0; i < writer.size(); ++i) EXPECT_EQ(writer.data()[i], 0.0) << i;
    writer.data()[4] = 7.0;
    writer.write_out();
    EXPECT_EQ(tcert::NpyReader(writer.temp_path()).data()[4], 7.0);
    writer.data()[14] = -1.5;
    writer.commit(true);
    EXPECT_THROW(writer.data(), tcert::Error);
  }
  {
    tcert::NpyReader reader(path);
    EXPECT_EQ(reader.header().shape, (Shape{3, 5}));
    for (std::size_t i = 0; i < reader.size(); ++i) EXPECT_EQ(reader.data()[i], i == 4 ? 7.0 : i == 14 ? -1.5 : 0.0);
  }
  {
    tcert::NpyUpdate update(path, true);
    EXPECT_EQ(update.data()[4], 7.0);
    update.data()[0] += 2.0;
    update.write_back();
    update.data()[1] = 99.0;  // not written back
  }
  tcert::NpyReader reader(path);
  EXPECT_EQ(reader.data()[0], 2.0);
  EXPECT_EQ(reader.data()[1], 0.0);
  EXPECT_EQ(reader.data()[4], 7.0);
  EXPECT_EQ(fs::file_size(path), reader.header().data_offset_bytes + 8 * 15);
  EXPECT_EQ(message_of([&] { tcert::NpyUpdate(dir.file("none.npy"), false); }).rfind("cannot open", 0), 0u);
}

// FileMemory: a freed block serves the next request it holds, the smallest that does first.
// (Sizes no other test uses: the pool is the process's.)
TEST(Npy, FileMemoryReusesFreedBlocks) {
  const double* big;
  const double* small;
  {
    tcert::FileMemory a(300001), b(30001);
    big = a.data(), small = b.data();
    EXPECT_EQ(a.size(), 300001u);
  }
  tcert::FileMemory c(30000);
  EXPECT_EQ(c.data(), small);
  tcert::FileMemory d(150000);
  EXPECT_EQ(d.data(), big);
  tcert::FileMemory e(std::move(d));
  EXPECT_EQ(e.data(), big);
  EXPECT_EQ(d.data(), nullptr);
  e.release();
  EXPECT_EQ(e.size(), 0u);
}

TEST(Npy, WriterWithoutCommitLeavesNothing) {
  tcert_test::TempDir dir;
  {
    tcert::NpyWriter writer(dir.file("out.npy"), {4});
    writer.data()[0] = 1;
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(Npy, HeaderErrors) {
  tcert_test::TempDir dir;
  std::string p = dir.file("x.npy");
  EXPECT_EQ(message_of([&] { tcert::read_npy_header(p); }), "cannot open input " + p + ": No such file or directory");
  std::ofstream(p) << "hello, this is not numpy";
  EXPECT_EQ(message_of([&] { tcert::read_npy_header(p); }), "input " + p + " is not a .npy file (no \\x93NUMPY magic)");
  write_raw_npy(p, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", 16);
  EXPECT_EQ(message_of([&] { tcert::read_npy_header(p); }),
            "input " + p + " has dtype '<i8' but tcert needs '<f8' (float64)");
  write_raw_npy(p, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", 32);
  EXPECT_EQ(message_of([&] { tcert::read_npy_header(p); }),
            "input " + p + " is stored in Fortran order (fortran_order: True) but tcert needs C order");
  write_raw_npy(p, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 40);  // 128-byte header
  EXPECT_EQ(message_of([&] { tcert::read_npy_header(p); }),
            "input " + p + " is truncated: shape (2, 3) needs 176 bytes but the file has 168 bytes");
  write_raw_npy(p, "{'descr': '<f8', 'fortran_order': False, }", 0);
  EXPECT_EQ(message_of([&] { tcert::read_npy_header(p); }),
            "input " + p + " has a malformed .npy header: no 'shape' entry");
}

TEST(Npy, CheckShapeListsBothShapes) {
  tcert::NpyHeader header{{3, 4}, 64};
  EXPECT_NO_THROW(tcert::check_shape(header, Shape{3, 4}, "A"));
  EXPECT_EQ(message_of([&] {
              tcert::check_shape(header, Shape{3, 5}, "A");
            }),
            "input A has shape (3, 4) but the program expects (3, 5)");
  EXPECT_EQ(message_of([&] { tcert::check_shape(header, Shape{3}, "A"); }),
            "input A has shape (3, 4) but the program expects (3,)");
}

bool have_numpy() { return std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") == 0; }

TEST(Npy, RoundTripThroughNumpy) {
  if (!have_numpy()) GTEST_SKIP() << "/usr/bin/python3 has no numpy";
  tcert_test::TempDir dir;
  std::string ours = dir.file("ours.npy"), theirs = dir.file("theirs.npy");
  write_values(ours, {2, 3, 5});
  // NumPy checks our file, then writes one of its own (values 0.5·i + 1) for us to read.
  std::string script =
      "import numpy as np, sys\n"
      "a = np.load(sys.argv[1])\n"
      "assert a.dtype == np.float64 and a.shape == (2, 3, 5), (a.dtype, a.shape)\n"
      "assert (a.ravel() == 0.5 * np.arange(30)).all()\n"
      "np.save(sys.argv[2], a + 1)\n";
  std::string script_path = dir.file("check.py");
  std::ofstream(script_path) << script;
  std::string command = "/usr/bin/python3 " + script_path + " " + ours + " " + theirs;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  tcert::NpyReader reader(theirs);
  ASSERT_EQ(reader.header().shape, (Shape{2, 3, 5}));
  for (std::size_t i = 0; i < reader.size(); ++i) EXPECT_EQ(reader.data()[i], 0.5 * i + 1);
}

// sync_files() flushes files and the directories that hold them; a missing one is an Error.
TEST(Npy, SyncFilesFlushesThemAndNamesOneThatIsMissing) {
  tcert_test::TempDir dir;
  for (const char* name : {"/a.npy", "/b.npy"}) tcert::NpyWriter(dir.path() + name, Shape{2}).commit(false);
  EXPECT_NO_THROW(tcert::sync_files({dir.path() + "/a.npy", dir.path() + "/b.npy"}));
  EXPECT_EQ(message_of([&] {
              tcert::sync_files({dir.path() + "/a.npy", dir.path() + "/none.npy"});
            }),
            "cannot sync " + dir.path() + "/none.npy: No such file or directory");
}

// replace_file() renames onto a new name, replaces an existing file (exchanged, the old one
// unlinked: nothing is left under the first name), and leaves both names alone when it fails (a
// missing file; a directory in the way, which an exchange would have moved aside).
// write_npy() writes a whole file through it, also over an older one.
TEST(Npy, ReplaceFileAndWriteNpy) {
  tcert_test::TempDir dir;
  const std::string a = dir.file("a.npy"), b = dir.file("b.npy");
  const std::vector<double> one = {1, 2, 3}, two = {4, 5, 6, 7};
  tcert::write_npy(a, {3}, one.data(), false);
  EXPECT_EQ(tcert::replace_file(a, b), 0);  // b is new
  EXPECT_FALSE(std::filesystem::exists(a));
  tcert::write_npy(a, {2, 2}, two.data(), true);
  const tcert::NpyReader before(b);  // maps the old b: it keeps its values
  EXPECT_EQ(tcert::replace_file(a, b), 0);
  EXPECT_FALSE(std::filesystem::exists(a));
  const tcert::NpyReader after(b);
  EXPECT_EQ(after.header().shape, (Shape{2, 2}));
  EXPECT_EQ(std::vector<double>(after.data(), after.data() + 4), two);
  EXPECT_EQ(std::vector<double>(before.data(), before.data() + 3), one);
  EXPECT_EQ(tcert::replace_file(dir.file("none.npy"), b), ENOENT);
  std::filesystem::create_directory(dir.file("taken"));  // not a file: left alone, EISDIR
  tcert::write_npy(a, {3}, one.data(), false);
  EXPECT_EQ(tcert::replace_file(a, dir.file("taken")), EISDIR);
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("taken")));
  std::filesystem::remove(a), std::filesystem::remove(dir.file("taken"));
  EXPECT_EQ(tcert::NpyReader(b).size(), 4u);
  tcert::write_npy(b, {3}, one.data(), false);  // over b, in one call
  const tcert::NpyReader last(b);
  EXPECT_EQ(std::vector<double>(last.data(), last.data() + last.size()), one);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);  // no temporary left
}

}  // namespace
