// runtime/program/hdf5_io.cpp — checking, reading and writing tensors' datasets with parallel HDF5.
//
// Reader's map:
//   hyperslabs()         a contiguous range of row-major elements as blocks HDF5 can select
//   Quiet, Handle        HDF5's error printing silenced per call; identifiers closed at scope exit
//   check_hdf5_input()   serial: the dataset exists, holds float64, has the tensor's shape
//   read_hdf5_range()    collective: each rank's blocks, H5Dread with H5FD_MPIO_COLLECTIVE
//   Hdf5Output           collective: H5Fcreate, H5Dcreate + H5Dwrite per tensor, H5Fclose
#include "runtime/program/hdf5_io.h"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/storage/npy.h"

namespace tcert {

std::uint64_t Hyperslab::elements() const {
  std::uint64_t n = 1;
  for (std::uint64_t c : count) n *= c;
  return n;
}

std::vector<Hyperslab> hyperslabs(std::span<const std::int64_t> extents, std::uint64_t first, std::uint64_t last,
                                  std::uint64_t max_elements) {
  std::vector<Hyperslab> out;
  if (first >= last) return out;
  const std::size_t n = extents.size();
  if (n == 0) return {Hyperslab{}};  // the scalar
  max_elements = std::max<std::uint64_t>(max_elements, 1);
  std::vector<std::uint64_t> row(n, 1);  // row[d]: elements per index of dimension d
  for (std::size_t d = n - 1; d > 0; --d) row[d - 1] = row[d] * static_cast<std::uint64_t>(extents[d]);
  std::vector<std::uint64_t> prefix;  // the fixed indices of the dimensions before d
  const auto emit = [&](std::size_t d, std::uint64_t from, std::uint64_t rows) {
    Hyperslab h{prefix, std::vector<std::uint64_t>(d, 1)};
    h.start.push_back(from), h.count.push_back(rows);
    for (std::size_t e = d + 1; e < n; ++e)
      h.start.push_back(0), h.count.push_back(static_cast<std::uint64_t>(extents[e]));
    out.push_back(std::move(h));
  };
  // Elements [lo, hi) of the sub-array of dimensions d.. at `prefix`.
  const auto cover = [&](const auto& self, std::size_t d, std::uint64_t lo, std::uint64_t hi) -> void {
    if (lo >= hi) return;
    const std::uint64_t s = row[d], a = (lo + s - 1) / s, b = hi / s;  // whole rows [a, b)
    const auto inside = [&](std::uint64_t i, std::uint64_t from, std::uint64_t to) {
      prefix.push_back(i);
      self(self, d + 1, from, to);
      prefix.pop_back();
    };
    if (a > b) return inside(lo / s, lo % s, hi - lo / s * s);  // within one row (d < n − 1 here)
    if (lo < a * s) inside(a - 1, lo - (a - 1) * s, s);
    if (s <= max_elements) {
      const std::uint64_t per_block = max_elements / s;
      for (std::uint64_t i = a; i < b; i += per_block) emit(d, i, std::min(per_block, b - i));
    } else {
      for (std::uint64_t i = a; i < b; ++i) inside(i, 0, s);
    }
    if (hi > b * s) inside(b, 0, hi - b * s);
  };
  cover(cover, 0, first, last);
  return out;
}

namespace {

/// The buffer a rank without data passes to a collective transfer (HDF5 wants one).
double no_data = 0;

/// Silences HDF5's printing of its error stack for a scope (restoring what was set before), so
/// failures reach the user only as our messages.
class Quiet {
 public:
  Quiet() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~Quiet() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

/// An HDF5 identifier whose close is local to this process (property lists, dataspaces,
/// datatypes, and files opened with the serial driver), closed at scope exit.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), close_(other.close_) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

/// The innermost message of HDF5's current error stack, e.g. "unable to open file", or "".
std::string hdf5_error() {
  std::string text;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
        if (e->desc != nullptr && *e->desc != '\0') *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &text);
  return text.empty() ? "HDF5 reported no reason" : text;
}

/// Python's tuple form of a shape, as in .npy messages.
std::string shape_text(std::span<const std::int64_t> extents) {
  const std::vector<std::uint64_t> shape(extents.begin(), extents.end());
  return format_shape(shape);
}

std::string dataset_of(const std::string& tensor, const TensorFile& file) {
  return file.dataset.empty() ? tensor : file.dataset;
}

/// "8-byte integers", "4-byte floats", "strings", … for a datatype that is not float64.
std::string type_text(hid_t type) {
  const std::size_t size = H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: return fmt::format("{}-byte integers", size);
    case H5T_FLOAT: return fmt::format("{}-byte floats", size);
    case H5T_STRING: return "strings";
    case H5T_COMPOUND: return "compound values";
    case H5T_ENUM: return "enumerated values";
    case H5T_ARRAY: return "arrays";
    default: return "values of a type other than float64";
  }
}

/// File access with the MPI-IO driver on ctx's communicator.
Handle mpio_access(const Context& ctx) {
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_mpio(fapl.get(), ctx.comm(), MPI_INFO_NULL);
  return fapl;
}

/// Transfers that every rank makes together (MPI-IO collective).
Handle collective_transfer() {
  Handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
  return dxpl;
}

/// The most blocks any rank moves (every rank makes that many collective calls).
std::uint64_t most_blocks(const Context& ctx, std::size_t mine) {
  std::uint64_t most = 0;
  for (std::uint64_t n : ctx.gather_u64(mine)) most = std::max(most, n);
  return most;
}

/// Selects `block` in the dataset's space `file_space` and returns the matching memory space;
/// or, for nullopt, selects nothing in both (a rank that takes part in a collective call
/// without data).
Handle select(hid_t file_space, const std::optional<Hyperslab>& block) {
  const bool scalar = H5Sget_simple_extent_ndims(file_space) == 0;
  if (!block) {
    H5Sselect_none(file_space);
    Handle memory(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, std::array<hsize_t, 1>{1}.data(), nullptr),
                  H5Sclose);
    H5Sselect_none(memory.get());
    return memory;
  }
  if (scalar) {
    H5Sselect_all(file_space);
    return Handle(H5Screate(H5S_SCALAR), H5Sclose);
  }
  const std::vector<hsize_t> start(block->start.begin(), block->start.end()),
      count(block->count.begin(), block->count.end());
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  const hsize_t elements = block->elements();
  return Handle(H5Screate_simple(1, &elements, nullptr), H5Sclose);
}

/// Runs the collective calls of `blocks` (this rank's; every rank calls as many times as the
/// rank with the most): transfer(memory space, file space, offset of the block in the rank's
/// buffer) for each, then done(elements); each call is checked on every rank, and a failure
/// throws Error("WHAT: <HDF5's reason>") on all.
void transfer_blocks(const Context& ctx, hid_t dataset, const std::vector<Hyperslab>& blocks,
                     const std::function<herr_t(hid_t memory, hid_t file, std::uint64_t offset)>& transfer,
                     const std::function<void(std::uint64_t)>& done, const std::string& what) {
  const std::uint64_t calls = most_blocks(ctx, blocks.size());
  std::uint64_t offset = 0;
  for (std::uint64_t c = 0; c < calls; ++c) {
    ctx.check_all([&] {
      Handle file_space(H5Dget_space(dataset), H5Sclose);
      const std::optional<Hyperslab> block = c < blocks.size() ? std::optional(blocks[c]) : std::nullopt;
      const Handle memory = select(file_space.get(), block);
      if (transfer(memory.get(), file_space.get(), offset) < 0) throw Error(what + ": " + hdf5_error());
      if (!block) return;
      offset += block->elements();
      done(block->elements());
    });
  }
}

}  // namespace

void check_hdf5_input(const std::string& tensor, const TensorFile& file, std::span<const std::int64_t> extents) {
  const Quiet quiet;
  const std::string name = dataset_of(tensor, file), where = "input " + tensor + ": ";
  if (::access(file.path.c_str(), R_OK) != 0)
    throw Error(where + "cannot open " + file.path + ": " + errno_text(errno));
  if (H5Fis_hdf5(file.path.c_str()) <= 0) throw Error(where + file.path + " is not an HDF5 file");
  const Handle f(H5Fopen(file.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.valid()) throw Error(where + "cannot open " + file.path + ": " + hdf5_error());
  // Each group on the dataset's path, then the dataset: H5Lexists fails on a missing group.
  for (std::size_t slash = name.find('/', 1);; slash = name.find('/', slash + 1)) {
    const std::string part = name.substr(0, slash);
    if (H5Lexists(f.get(), part.c_str(), H5P_DEFAULT) <= 0) throw Error(where + file.path + " has no dataset " + name);
    if (slash == std::string::npos) break;
  }
  const Handle d(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.valid()) throw Error(where + name + " in " + file.path + " is not a dataset");
  const std::string dataset = where + "dataset " + name + " in " + file.path;
  const Handle type(H5Dget_type(d.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT || H5Tget_size(type.get()) != 8)
    throw Error(dataset + " holds " + type_text(type.get()) + " but tcert needs 8-byte floats (float64)");
  const Handle space(H5Dget_space(d.get()), H5Sclose);
  if (H5Sget_simple_extent_type(space.get()) == H5S_NULL) throw Error(dataset + " holds no data (a null dataspace)");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  const std::vector<std::int64_t> shape(dims.begin(), dims.end());
  if (!std::equal(shape.begin(), shape.end(), extents.begin(), extents.end()))
    throw Error(dataset + " has shape " + shape_text(shape) + " but the program expects " + shape_text(extents));
}

void read_hdf5_range(const Context& ctx, const std::string& tensor, const TensorFile& file,
                     std::span<const std::int64_t> extents, std::uint64_t first, std::uint64_t last, double* out,
                     const std::function<void(std::uint64_t elements)>& done) {
  const Quiet quiet;
  const std::string name = dataset_of(tensor, file), where = "input " + tensor + ": ";
  const std::vector<Hyperslab> blocks = hyperslabs(extents, first, last, kMaxTransferElements);
  hid_t f = -1, d = -1;
  const auto close = [&] {  // on every rank: the failures before were thrown on all
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    d = f = -1;
  };
  try {
    ctx.check_all([&] {
      const Handle fapl = mpio_access(ctx);
      f = H5Fopen(file.path.c_str(), H5F_ACC_RDONLY, fapl.get());
      if (f < 0) throw Error(where + "cannot open " + file.path + ": " + hdf5_error());
    });
    ctx.check_all([&] {
      d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
      if (d < 0) throw Error(where + "cannot open dataset " + name + " in " + file.path + ": " + hdf5_error());
    });
    const Handle dxpl = collective_transfer();
    transfer_blocks(
        ctx, d, blocks,
        [&](hid_t memory, hid_t space, std::uint64_t offset) {
          return H5Dread(d, H5T_NATIVE_DOUBLE, memory, space, dxpl.get(), out == nullptr ? &no_data : out + offset);
        },
        done, where + "cannot read dataset " + name + " in " + file.path);
  } catch (...) {
    close();
    throw;
  }
  close();
}

Hdf5Output::Hdf5Output(const Context& ctx, std::string temp_path, const std::string& tensor)
    : ctx_(ctx), temp_path_(std::move(temp_path)) {
  const Quiet quiet;
  ctx_.check_all([&] {
    const Handle fapl = mpio_access(ctx_);
    file_ = H5Fcreate(temp_path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
    if (file_ < 0) throw Error("output " + tensor + ": cannot create " + temp_path_ + ": " + hdf5_error());
  });
}

Hdf5Output::~Hdf5Output() = default;

void Hdf5Output::write(const std::string& tensor, const std::string& dataset, std::span<const std::int64_t> extents,
                       std::uint64_t first, std::uint64_t last, const double* data,
                       const std::function<void(std::uint64_t elements)>& done) {
  const Quiet quiet;
  const std::string where = "output " + tensor + ": ";
  const std::vector<Hyperslab> blocks = hyperslabs(extents, first, last, kMaxTransferElements);
  hid_t d = -1;
  try {
    ctx_.check_all([&] {
      const std::vector<hsize_t> dims(extents.begin(), extents.end());
      const Handle space(
          dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
          H5Sclose);
      const Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
      H5Pset_create_intermediate_group(links.get(), 1);
      d = H5Dcreate2(static_cast<hid_t>(file_), dataset.c_str(), H5T_IEEE_F64LE, space.get(), links.get(), H5P_DEFAULT,
                     H5P_DEFAULT);
      if (d < 0) throw Error(where + "cannot create dataset " + dataset + " in " + temp_path_ + ": " + hdf5_error());
    });
    const Handle dxpl = collective_transfer();
    transfer_blocks(
        ctx_, d, blocks,
        [&](hid_t memory, hid_t space, std::uint64_t offset) {
          return H5Dwrite(d, H5T_NATIVE_DOUBLE, memory, space, dxpl.get(), data == nullptr ? &no_data : data + offset);
        },
        done, where + "cannot write dataset " + dataset + " in " + temp_path_);
    ctx_.check_all([&] {
      const herr_t closed = H5Dclose(d);
      d = -1;
      if (closed < 0)
        throw Error(where + "cannot write dataset " + dataset + " in " + temp_path_ + ": " + hdf5_error());
    });
  } catch (...) {  // on every rank: the failures before were thrown on all
    if (d >= 0) H5Dclose(d);
    if (file_ >= 0) H5Fclose(static_cast<hid_t>(file_));
    file_ = -1;
    throw;
  }
}

void Hdf5Output::close() {
  const Quiet quiet;
  ctx_.check_all([&] {
    const herr_t closed = file_ >= 0 ? H5Fclose(static_cast<hid_t>(file_)) : 0;
    file_ = -1;
    if (closed < 0) throw Error("cannot write " + temp_path_ + ": " + hdf5_error());
  });
}

}  // namespace tcert
