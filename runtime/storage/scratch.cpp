// runtime/storage/scratch.cpp — creation, probing and recursive removal of the rank's scratch directory.
#include "runtime/storage/scratch.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "runtime/base/error.h"

namespace tcert {

namespace fs = std::filesystem;

namespace {

// Returns whether this call made `dir` (it did not exist).
bool create_directories(const std::string& dir) {
  std::error_code ec;
  const bool made = fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create scratch directory " + dir + ": " + ec.message());
  if (!made && !fs::is_directory(dir, ec))
    throw Error("cannot create scratch directory " + dir + ": " + errno_text(ENOTDIR));
  return made;
}

// Removes everything inside dir (not dir itself).
void empty_directory(const std::string& dir) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    fs::remove_all(entry.path(), ec);
    if (ec) throw Error("cannot empty scratch directory " + dir + ": " + ec.message());
  }
  if (ec) throw Error("cannot list scratch directory " + dir + ": " + ec.message());
}

std::string make_temporary_directory() {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string base = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::string pattern = base + "/tcert-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr)
    throw Error("cannot create scratch directory " + pattern + ": " + errno_text(errno));
  return std::string(name.data());
}

// Creating a file is the only reliable test (access(W_OK) says yes to root on read-only mounts).
void probe_writable(const std::string& dir) {
  std::string probe = dir + "/.tcert-probe";
  int fd = ::open(probe.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("scratch directory " + dir + " is not writable: " + errno_text(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace

Scratch::Scratch(const std::string& base_dir, int rank, bool keep) : keep_(keep) {
  // A directory made here is empty, and writable: its file system took the mkdir (a read-only
  // one refuses it), and it is this process's, with its owner's write permission. One that was
  // there is emptied and probed (each a few inode operations: tcec-ccsd makes one per call).
  if (base_dir.empty()) {
    dir_ = make_temporary_directory();
    return;
  }
  std::string base = base_dir;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  create_directories(base);
  dir_ = base + "/rank-" + std::to_string(rank);
  if (create_directories(dir_)) return;
  empty_directory(dir_);
  probe_writable(dir_);
}

Scratch::~Scratch() {
  if (keep_) return;
  std::error_code ec;  // a destructor must not throw; a leftover directory is harmless
  fs::remove_all(dir_, ec);
}

std::string Scratch::path(std::string_view name) const {
  std::string full = dir_;
  full += '/';
  full += name;
  return full;
}

}  // namespace tcert
