// runtime/blocks/block_file.cpp — block files: writing, opening, reading blocks (block_file.h).
#include "runtime/blocks/block_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/error.h"

namespace tcert {

namespace {

constexpr char kMagic[] = "tcec-blocks 1\n";
constexpr std::uint64_t kHeaderElements = kBlockHeaderBytes / sizeof(double);

std::string header_of(const BlockSymmetry& s) {
  nlohmann::json groups = nlohmann::json::array();
  for (const std::vector<BlockGroup>& dim : s.groups) {
    nlohmann::json d = nlohmann::json::array();
    for (const BlockGroup& g : dim) d.push_back({g.spin, g.irrep, g.extent});
    groups.push_back(d);
  }
  const nlohmann::json j = {{"upper", s.upper},
                            {"irrep", s.irrep},
                            {"restricted", s.restricted},
                            {"antisymmetric", s.antisymmetric},
                            {"groups", groups}};
  std::string out = kMagic + j.dump() + "\n";
  out.resize(kBlockHeaderBytes, ' ');
  return out;
}

/// The symmetry in the header of the open file `file`. Throws Error naming `path`.
BlockSymmetry read_header(DiskFile& file) {
  std::vector<double> raw(kHeaderElements);
  try {
    file.read(raw.data(), 0, raw.size());
  } catch (const Error&) {
    throw Error(file.path() + ": not a block file (shorter than its header)");
  }
  std::string text(reinterpret_cast<const char*>(raw.data()), kBlockHeaderBytes);
  if (text.compare(0, std::strlen(kMagic), kMagic) != 0) throw Error(file.path() + ": not a block file");
  try {
    const nlohmann::json j = nlohmann::json::parse(text.substr(std::strlen(kMagic)));
    BlockSymmetry s;
    s.upper = j.at("upper").get<std::size_t>();
    s.irrep = j.at("irrep").get<int>();
    s.restricted = j.at("restricted").get<bool>();
    s.antisymmetric = j.at("antisymmetric").get<std::vector<std::vector<int>>>();
    for (const nlohmann::json& dim : j.at("groups")) {
      s.groups.emplace_back();
      for (const nlohmann::json& g : dim)
        s.groups.back().push_back({g.at(0).get<int>(), g.at(1).get<int>(), g.at(2).get<std::int64_t>()});
    }
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw Error(file.path() + ": a block file with a broken header: " + e.what());
  }
}

/// The layout of `file`'s header. Throws Error naming the path for a symmetry BlockLayout refuses.
BlockLayout layout_of(DiskFile& file) {
  try {
    return BlockLayout(read_header(file));
  } catch (const std::invalid_argument& e) {
    throw Error(file.path() + ": " + e.what());
  }
}

}  // namespace

void write_block_file(const std::string& path, const BlockLayout& layout, const double* data) {
  const std::string header = header_of(layout.symmetry());
  if (header.find('\n', std::strlen(kMagic)) == std::string::npos)
    throw Error(path + ": the tensor's symmetry does not fit a block file's header of " +
                std::to_string(kBlockHeaderBytes) + " bytes");
  const std::string part = path + ".part";
  {
    DiskFile file(part);
    file.resize(0);
    std::vector<double> raw(kHeaderElements);
    std::memcpy(raw.data(), header.data(), kBlockHeaderBytes);
    file.write(raw.data(), 0, raw.size());
    file.write(data, kHeaderElements, static_cast<std::size_t>(layout.elements()));
  }
  if (std::rename(part.c_str(), path.c_str()) != 0) {
    std::remove(part.c_str());
    throw Error("cannot rename " + part + " to " + path + ": " + errno_text(errno));
  }
}

namespace {

/// `path` opened, after checking it exists (DiskFile would create it).
DiskFile open_existing(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error("cannot open " + path + ": no such file");
  return DiskFile(path);
}

}  // namespace

BlockFile::BlockFile(const std::string& path) : file_(open_existing(path)), layout_(layout_of(file_)) {
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes < kBlockHeaderBytes + static_cast<std::uint64_t>(layout_.elements()) * sizeof(double))
    throw Error(path + ": a block file shorter than its blocks");
}

const double* BlockFile::block(std::size_t b) {
  if (b == last_) return buffer_.data();
  buffer_.resize(static_cast<std::size_t>(layout_.block_elements(b)));
  file_.read(buffer_.data(), kHeaderElements + static_cast<std::uint64_t>(layout_.offset(b)), buffer_.size());
  last_ = b;
  return buffer_.data();
}

void BlockFile::read_all(double* out) {
  file_.read(out, kHeaderElements, static_cast<std::size_t>(layout_.elements()));
}

}  // namespace tcert
