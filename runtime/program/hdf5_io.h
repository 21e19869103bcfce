// runtime/program/hdf5_io.h — tensors in HDF5 files through parallel HDF5's C API: checking an input's
// dataset, reading and writing each rank's range of a dataset's elements with collective MPI-IO
// transfers, and the hyperslabs that cover such a range.
//
// A tensor is one dataset: float64 (8-byte IEEE floats; HDF5 converts either byte order on
// read, and writes the native one), C order, of the tensor's shape (a scalar dataspace for a
// tensor of rank 0). Each rank moves a contiguous range of the row-major elements, in blocks of
// at most kMaxTransferElements, every block one H5Dread / H5Dwrite that all ranks make together
// (a rank with fewer blocks takes part with an empty selection). Every collective step ends
// with Context::check_all, so a failure on some ranks is thrown on all, and the file is closed
// on all before it is. hdf5.h stays inside hdf5_io.cpp: programs that include the runtime's
// headers need only link HDF5.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "runtime/comm/comm.h"
#include "runtime/program/options.h"

namespace tcert {

/// Elements moved by one H5Dread or H5Dwrite at most (16 MiB of doubles): bounds what a rank
/// holds resident of a mapped tensor between page drops, and stays far below MPI-IO's 2 GiB.
inline constexpr std::uint64_t kMaxTransferElements = std::uint64_t{1} << 21;

/// A block of a row-major array: per dimension its first index and its length (HDF5's start and
/// count of a hyperslab, stride and block 1). Empty vectors for the scalar of a rank-0 array.
struct Hyperslab {
  std::vector<std::uint64_t> start, count;
  std::uint64_t elements() const;  ///< product of count (1 for the scalar)
  friend bool operator==(const Hyperslab&, const Hyperslab&) = default;
};

/// The hyperslabs that cover the row-major elements [first, last) of an array of `extents`,
/// in order (block b starts where block b−1 ends), each of at most max(max_elements, 1)
/// elements: the partial rows at either end are covered by recursing into the next dimension,
/// the whole rows between by blocks of ⌊max / row⌋ rows (or row by row, recursing, when a row
/// is larger than max). A rank-0 array is one scalar block for [0, 1). Empty when first ≥ last.
/// Precondition: last ≤ the product of extents, extents all ≥ 1.
std::vector<Hyperslab> hyperslabs(std::span<const std::int64_t> extents, std::uint64_t first, std::uint64_t last,
                                  std::uint64_t max_elements);

/// Checks on this process alone (HDF5's serial driver) that the dataset of input `tensor` in
/// `file` (TensorFile::dataset, or the tensor's name) exists, holds 8-byte floats and has shape
/// `extents`. Throws Error, e.g. "input A: cannot open in.h5: No such file or directory",
/// "input A: in.h5 is not an HDF5 file", "input A: in.h5 has no dataset A", "input A: dataset A
/// in in.h5 has shape (90, 51) but the program expects (90, 50)", "input A: dataset A in in.h5
/// holds 8-byte integers but tcert needs 8-byte floats (float64)".
void check_hdf5_input(const std::string& tensor, const TensorFile& file, std::span<const std::int64_t> extents);

/// Reads the row-major elements [first, last) of input `tensor`'s dataset in `file` (shape
/// `extents`, as check_hdf5_input() accepts) into out[0, last − first), block by block (see
/// hyperslabs()); after each block, done(elements of the block). Collective over ctx: every rank
/// calls it with its own range (possibly empty; out may then be null). Does not count bytes.
/// Throws Error on every rank ("input A: …") when the file or dataset cannot be opened or read.
void read_hdf5_range(const Context& ctx, const std::string& tensor, const TensorFile& file,
                     std::span<const std::int64_t> extents, std::uint64_t first, std::uint64_t last, double* out,
                     const std::function<void(std::uint64_t elements)>& done);

/// An HDF5 file that every rank of a communicator writes, one dataset per tensor; the caller
/// renames it into place when it is complete (the file is `temp_path()` until then).
class Hdf5Output {
 public:
  /// Creates `temp_path` (truncating it) with parallel HDF5 on ctx's communicator. Collective.
  /// Throws Error on every rank: "output NAME: cannot create FILE: …" (`tensor` is the first
  /// tensor it will hold, for the message).
  Hdf5Output(const Context& ctx, std::string temp_path, const std::string& tensor);
  /// Leaves a file still open to HDF5 (its close is collective, which a destructor must not
  /// risk); close() normally closes it.
  ~Hdf5Output();
  Hdf5Output(const Hdf5Output&) = delete;
  Hdf5Output& operator=(const Hdf5Output&) = delete;

  const std::string& temp_path() const { return temp_path_; }

  /// Creates the dataset `dataset` (float64 of shape `extents`, contiguous; missing groups of
  /// its path are created) and writes this rank's row-major elements [first, last) from
  /// data[0, last − first), block by block; done(elements) after each block. Collective (every
  /// rank with its own range). Throws Error on every rank ("output NAME: …"), after closing the
  /// file.
  void write(const std::string& tensor, const std::string& dataset, std::span<const std::int64_t> extents,
             std::uint64_t first, std::uint64_t last, const double* data,
             const std::function<void(std::uint64_t elements)>& done);
  /// Closes the file. Collective. Throws Error on every rank when that fails.
  void close();

 private:
  const Context& ctx_;
  std::string temp_path_;
  std::int64_t file_ = -1;  // hid_t
};

}  // namespace tcert
