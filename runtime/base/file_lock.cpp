// runtime/base/file_lock.cpp — FileLock (file_lock.h).
#include "runtime/base/file_lock.h"

#include <cerrno>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "runtime/base/error.h"

namespace tcert {

FileLock::FileLock(const std::string& path, const std::string& who)
    : fd_(::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
  if (fd_ < 0) throw Error(fmt::format("cannot open {}: {}", path, errno_text(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  const int e = errno;
  ::close(fd_);
  if (e == EWOULDBLOCK) throw Error(fmt::format("{} is held by another process ({})", path, who));
  throw Error(fmt::format("cannot lock {}: {}", path, errno_text(e)));
}

FileLock::~FileLock() { ::close(fd_); }

}  // namespace tcert
