// runtime/mapped_walk.cpp — ResidentGuard and resident_file_bytes() (mapped_walk.h).
#include "runtime/mapped_walk.h"

#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>

namespace tcert {

std::uint64_t resident_file_bytes() {
  static const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);  // one syscall a check
  static const auto page_bytes = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  char text[128];
  const ssize_t got = fd < 0 ? -1 : ::pread(fd, text, sizeof text - 1, 0);
  if (got <= 0) return 0;
  text[got] = '\0';
  std::uint64_t size = 0, resident = 0, shared = 0;
  if (std::sscanf(text, "%" SCNu64 " %" SCNu64 " %" SCNu64, &size, &resident, &shared) != 3) return 0;
  return shared * page_bytes;
}

ResidentGuard::ResidentGuard(std::uint64_t limit) : limit_(limit), base_(resident_file_bytes()) {}

bool ResidentGuard::touched(std::uint64_t bytes) {
  if (bytes == 0) return false;
  const std::uint64_t touches = ++touches_, so_far = bytes_ += bytes;
  if (touches < kCheckEvery && so_far < kCheckBytes) return false;
  const std::lock_guard<std::mutex> lock(check_);
  touches_ = 0, bytes_ = 0;
  return resident_file_bytes() >= base_ + limit_;
}

void ResidentGuard::dropped() { base_ = resident_file_bytes(); }

}  // namespace tcert
