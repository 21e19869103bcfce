// runtime/storage/mapped_walk.cpp — ResidentGuard and resident_file_bytes() (mapped_walk.h).
#include "runtime/storage/mapped_walk.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
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

ResidentGuard::ResidentGuard(std::uint64_t limit) : limit_(limit), base_(resident_file_bytes()), checked_(base_) {}

bool ResidentGuard::touched(std::uint64_t bytes, std::uint64_t accesses) {
  if (bytes == 0) return false;
  // A count, not an exact one: threads may lose an increment (no locked instruction per access).
  const std::uint64_t touches = touches_.load(std::memory_order_relaxed) + std::max<std::uint64_t>(accesses, 1);
  touches_.store(touches, std::memory_order_relaxed);
  if (touches < interval_.load(std::memory_order_relaxed)) return false;
  const std::lock_guard<std::mutex> lock(check_);
  const std::uint64_t since = std::max<std::uint64_t>(touches_.exchange(0), 1);
  const std::uint64_t now = resident_file_bytes();
  const std::uint64_t grown = now > checked_ ? now - checked_ : 0,
                      per_touch = std::max<std::uint64_t>(grown / since, 1);
  checked_ = now;
  // The next check after about kCheckBytes more at the growth per access just seen.
  interval_ = std::clamp<std::uint64_t>(kCheckBytes / per_touch, kMinEvery, kMaxEvery);
  return now >= base_ + limit_;
}

bool ResidentGuard::due() {
  const std::lock_guard<std::mutex> lock(check_);
  checked_ = resident_file_bytes();
  return checked_ >= base_ + limit_;
}

void ResidentGuard::dropped() {
  const std::lock_guard<std::mutex> lock(check_);
  base_ = checked_ = resident_file_bytes();
}

}  // namespace tcert
