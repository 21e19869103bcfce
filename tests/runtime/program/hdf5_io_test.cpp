// tests/runtime/program/hdf5_io_test.cpp — runtime/program/hdf5_io.h without MPI: the hyperslabs covering a
// range of elements, and the checks of an input's dataset (files written here with HDF5's
// serial driver).
#include "runtime/program/hdf5_io.h"

#include <hdf5.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "temp_dir.h"

namespace {

using tcert::Hyperslab;
using tcert_test::message_of;
using tcert_test::TempDir;

std::uint64_t flat(const std::vector<std::int64_t>& extents, const std::vector<std::uint64_t>& index) {
  std::uint64_t at = 0;
  for (std::size_t d = 0; d < extents.size(); ++d) at = at * static_cast<std::uint64_t>(extents[d]) + index[d];
  return at;
}

// The elements a block covers, in row-major order of the array.
std::vector<std::uint64_t> elements_of(const std::vector<std::int64_t>& extents, const Hyperslab& h) {
  std::vector<std::uint64_t> out;
  std::vector<std::uint64_t> i(h.start.size(), 0);
  for (std::uint64_t e = 0; e < h.elements(); ++e) {
    std::vector<std::uint64_t> index(h.start.size());
    for (std::size_t d = 0; d < i.size(); ++d) index[d] = h.start[d] + i[d];
    out.push_back(flat(extents, index));
    for (std::size_t d = i.size(); d-- > 0;) {
      if (++i[d] < h.count[d]) break;
      i[d] = 0;
    }
  }
  return out;
}

TEST(Hyperslabs, ExampleOfA3dRange) {
  // Elements [5, 48) of 3 x 4 x 5: rows (0,1..3), rows (1,0..3) whole, row (2,0) and the
  // first 3 elements of row (2,1).
  const std::vector<std::int64_t> extents = {3, 4, 5};
  const std::vector<Hyperslab> got = tcert::hyperslabs(extents, 5, 48, 1000);
  const std::vector<Hyperslab> expected = {
      {{0, 1, 0}, {1, 3, 5}}, {{1, 0, 0}, {1, 4, 5}}, {{2, 0, 0}, {1, 1, 5}}, {{2, 1, 0}, {1, 1, 3}}};
  // Within one row: the next dimension's range.
  EXPECT_EQ(tcert::hyperslabs(extents, 21, 24, 1000), (std::vector<Hyperslab>{{{1, 0, 1}, {1, 1, 3}}}));
  EXPECT_EQ(got, expected);
  // A cap of 10 elements cuts the whole rows into blocks of two.
  const std::vector<Hyperslab> capped = tcert::hyperslabs(extents, 0, 20, 10);
  ASSERT_EQ(capped.size(), 2u);
  EXPECT_EQ(capped[0], (Hyperslab{{0, 0, 0}, {1, 2, 5}}));
  EXPECT_EQ(capped[1], (Hyperslab{{0, 2, 0}, {1, 2, 5}}));
}

TEST(Hyperslabs, ScalarAndEmpty) {
  EXPECT_EQ(tcert::hyperslabs({}, 0, 1, 10), std::vector<Hyperslab>{Hyperslab{}});
  EXPECT_TRUE(tcert::hyperslabs({}, 0, 0, 10).empty());
  const std::vector<std::int64_t> extents = {4, 4};
  EXPECT_TRUE(tcert::hyperslabs(extents, 7, 7, 10).empty());
}

// Random shapes, ranges and caps: the blocks cover exactly [first, last), in order, each within
// the cap and within the array.
TEST(Hyperslabs, CoverEveryRangeInOrder) {
  std::mt19937_64 random(23);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<std::int64_t> extents(1 + random() % 4);
    for (std::int64_t& e : extents) e = 1 + static_cast<std::int64_t>(random() % 6);
    const auto n = static_cast<std::uint64_t>(
        std::accumulate(extents.begin(), extents.end(), std::int64_t{1}, std::multiplies<>()));
    std::uint64_t first = random() % (n + 1), last = random() % (n + 1);
    if (first > last) std::swap(first, last);
    const std::uint64_t cap = 1 + random() % 40;
    std::vector<std::uint64_t> covered;
    for (const Hyperslab& h : tcert::hyperslabs(extents, first, last, cap)) {
      ASSERT_LE(h.elements(), cap);
      ASSERT_EQ(h.start.size(), extents.size());
      for (std::size_t d = 0; d < extents.size(); ++d)
        ASSERT_LE(h.start[d] + h.count[d], static_cast<std::uint64_t>(extents[d]));
      for (std::uint64_t e : elements_of(extents, h)) covered.push_back(e);
    }
    std::vector<std::uint64_t> expected(last - first);
    std::iota(expected.begin(), expected.end(), first);
    ASSERT_EQ(covered, expected) << "trial " << trial;
  }
}

// Writes `data` as dataset `name` of `type` and `dims` (empty: a scalar) into a new file.
void write_dataset(const std::string& path, const std::string& name, hid_t type, const std::vector<hsize_t>& dims,
                   const void* data) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space =
      dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t links = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(links, 1);
  const hid_t set = H5Dcreate2(file, name.c_str(), type, space, links, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(set);
  H5Pclose(links);
  H5Sclose(space);
  H5Fclose(file);
}

TEST(CheckHdf5Input, AcceptsFloat64OfTheShape) {
  TempDir dir;
  const std::vector<double> values(12, 1.5);
  write_dataset(dir.file("in.h5"), "A", H5T_NATIVE_DOUBLE, {3, 4}, values.data());
  const std::vector<std::int64_t> shape = {3, 4};
  EXPECT_EQ(message_of([&] { tcert::check_hdf5_input("A", {dir.file("in.h5"), ""}, shape); }), "no error");
  write_dataset(dir.file("big.h5"), "g/h/T", H5T_IEEE_F64BE, {3, 4}, values.data());  // either byte order
  EXPECT_EQ(message_of([&] { tcert::check_hdf5_input("A", {dir.file("big.h5"), "g/h/T"}, shape); }), "no error");
  write_dataset(dir.file("scalar.h5"), "e", H5T_NATIVE_DOUBLE, {}, values.data());
  EXPECT_EQ(message_of([&] { tcert::check_hdf5_input("e", {dir.file("scalar.h5"), ""}, {}); }), "no error");
}

TEST(CheckHdf5Input, ClearErrors) {
  TempDir dir;
  const std::vector<double> values(12, 1.5);
  const std::vector<std::int64_t> ints(12, 3);
  const std::string in = dir.file("in.h5");
  write_dataset(in, "A", H5T_NATIVE_DOUBLE, {3, 4}, values.data());
  const std::vector<std::int64_t> shape = {3, 5};
  EXPECT_EQ(message_of([&] {
              tcert::check_hdf5_input("A", {in, ""}, shape);
            }),
            "input A: dataset A in " + in + " has shape (3, 4) but the program expects (3, 5)");
  EXPECT_EQ(message_of([&] { tcert::check_hdf5_input("B", {in, ""}, shape); }), "input B: " + in + " has no dataset B");
  EXPECT_EQ(message_of([&] {
              tcert::check_hdf5_input("B", {in, "g/B"}, shape);
            }),
            "input B: " + in + " has no dataset g/B");
  EXPECT_EQ(message_of([&] {
              tcert::check_hdf5_input("A", {dir.file("none.h5"), ""}, shape);
            }),
            "input A: cannot open " + dir.file("none.h5") + ": No such file or directory");
  tcert_test::TempDir other;
  const std::string text = other.file("text.h5");
  FILE* f = std::fopen(text.c_str(), "w");
  std::fputs("not hdf5\n", f);
  std::fclose(f);
  EXPECT_EQ(message_of([&] {
              tcert::check_hdf5_input("A", {text, ""}, shape);
            }),
            "input A: " + text + " is not an HDF5 file");
  write_dataset(dir.file("int.h5"), "A", H5T_NATIVE_INT64, {3, 4}, ints.data());
  EXPECT_EQ(
      message_of([&] {
        tcert::check_hdf5_input("A", {dir.file("int.h5"), ""}, {{3, 4}});
      }),
      "input A: dataset A in " + dir.file("int.h5") + " holds 8-byte integers but tcert needs 8-byte floats (float64)");
  const std::vector<float> floats(12, 1.0f);
  write_dataset(dir.file("f32.h5"), "A", H5T_NATIVE_FLOAT, {3, 4}, floats.data());
  EXPECT_EQ(
      message_of([&] {
        tcert::check_hdf5_input("A", {dir.file("f32.h5"), ""}, {{3, 4}});
      }),
      "input A: dataset A in " + dir.file("f32.h5") + " holds 4-byte floats but tcert needs 8-byte floats (float64)");
}

}  // namespace
