// runtime/storage/spare_files.cpp — SpareFiles (spare_files.h).
#include "runtime/storage/spare_files.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace tcert {

SpareFiles::~SpareFiles() {
  for (const Spare& s : spares_) std::remove(s.path.c_str());
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

bool SpareFiles::give(const std::string& path, const std::string& under) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) > kMaxBytes) return false;
  if (st.st_nlink > 1) return false;  // another name (an exported output) keeps its contents
  const std::lock_guard<std::mutex> lock(mutex_);
  if (dir_.empty()) {
    std::string pattern = under + "/tcert-spares-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) return false;
    under_ = under, dir_ = pattern;
  } else if (under != under_) {
    return false;
  }
  Spare spare{dir_ + "/" + std::to_string(++made_), static_cast<std::uint64_t>(st.st_size)};
  if (std::rename(path.c_str(), spare.path.c_str()) != 0) return false;
  spares_.push_back(spare);
  bytes_ += spare.bytes;
  while (bytes_ > kMaxBytes) {
    std::remove(spares_.front().path.c_str());
    bytes_ -= spares_.front().bytes;
    spares_.pop_front();
  }
  return true;
}

bool SpareFiles::take(std::uint64_t bytes, const std::string& to) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = spares_.begin(); it != spares_.end(); ++it) {
    if (it->bytes != bytes) continue;
    const Spare spare = *it;
    spares_.erase(it);
    bytes_ -= spare.bytes;
    if (std::rename(spare.path.c_str(), to.c_str()) == 0) return true;
    std::remove(spare.path.c_str());
    return false;
  }
  return false;
}

std::uint64_t SpareFiles::bytes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

SpareFiles& spare_files() {
  static SpareFiles pool;
  return pool;
}

}  // namespace tcert
