// tools/ccsd/integrals.cpp — Integrals (integrals.h): .npy through the runtime's reader, HDF5
// through its C API (small reads of the Fock blocks by every rank; the large blocks are read by
// the generated code's import).
#include "integrals.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "runtime/base/error.h"
#include "runtime/storage/npy.h"
#include "tools/diagnostics.h"

namespace tcec::ccsd {

namespace {

/// A square dataset `name` of an HDF5 file, whole (row-major), and its extent.
std::vector<double> read_square(const std::string& path, const std::string& name, std::int64_t* n) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_open_integrals, path));
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  std::vector<double> out;
  hsize_t dims[2] = {0, 0};
  const hid_t space = d < 0 ? -1 : H5Dget_space(d);
  const bool square = space >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
                      H5Sget_simple_extent_dims(space, dims, nullptr) == 2 && dims[0] == dims[1];
  if (square) {
    out.resize(static_cast<std::size_t>(dims[0] * dims[1]));
    if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) out.clear();
  }
  if (space >= 0) H5Sclose(space);
  if (d >= 0) H5Dclose(d);
  H5Fclose(f);
  if (!square || out.size() != dims[0] * dims[1])
    throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_integrals_dataset, path, name));
  *n = static_cast<std::int64_t>(dims[0]);
  return out;
}

}  // namespace

Integrals::Integrals(std::string path) : path_(std::move(path)) {
  const std::string ext = std::filesystem::path(path_).extension().string();
  hdf5_ = ext == ".h5" || ext == ".hdf5";
  if (hdf5_) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are ours to report
    read_square(path_, "f_hh", &O_);
    read_square(path_, "f_pp", &V_);
    return;
  }
  std::ifstream in(std::filesystem::path(path_) / "meta.json");
  if (!in) throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_read_meta, path_));
  const nlohmann::json meta = nlohmann::json::parse(in);
  O_ = meta.at("O").get<std::int64_t>(), V_ = meta.at("V").get<std::int64_t>();
}

tcert::TensorFile Integrals::file(const std::string& name) const {
  if (hdf5_) return {path_, name};
  return {fmt::format("{}/{}.npy", path_, name), ""};
}

std::vector<double> Integrals::diagonal(const std::string& name) const {
  std::vector<double> d;
  if (hdf5_) {
    std::int64_t n = 0;
    const std::vector<double> m = read_square(path_, name, &n);
    for (std::int64_t i = 0; i < n; ++i) d.push_back(m[static_cast<std::size_t>(i * n + i)]);
    return d;
  }
  const std::string file = fmt::format("{}/{}.npy", path_, name);
  const tcert::NpyReader f(file);
  const std::vector<std::uint64_t>& shape = f.header().shape;
  if (shape.size() != 2 || shape[0] != shape[1])
    throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_not_square, file));
  for (std::uint64_t i = 0; i < shape[0]; ++i) d.push_back(f.data()[i * shape[0] + i]);
  return d;
}

}  // namespace tcec::ccsd
