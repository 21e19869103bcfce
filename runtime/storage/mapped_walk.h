// runtime/storage/mapped_walk.h — keeping what mapped files make resident bounded (issue 21, "memory
// honoured"): MappedWalk says when a walk over a mapping may fault in more of it, ResidentGuard
// measures and says when to drop the mapped pages (MappedInputs::touched(), DirectResult::wrote()).
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <mutex>

#include "runtime/spec/units.h"

namespace tcert {

/// Bytes of a page: a write through a shared file mapping makes one page resident.
inline constexpr std::uint64_t kMappedPageBytes = 4096;
/// Bytes Linux maps around a read fault on a file mapping from the page cache (its
/// fault_around_bytes, 64 KiB by default): reading one element can make this much resident.
inline constexpr std::uint64_t kFaultAroundBytes = std::uint64_t{64} << 10;

/// Follows a walk over the 8-byte elements of a mapped file, window by window (pages for writes,
/// fault-around windows for reads), and says how many bytes each access may newly make
/// resident: the whole window when the access leaves the window of the previous one, else 0.
/// Windows are counted from element 0 of the data (not the file), so an estimate can be one
/// window off; a walk that comes back to an earlier window is charged again (a bound, not a
/// count).
class MappedWalk {
 public:
  /// window_bytes: kMappedPageBytes for writes, kFaultAroundBytes for reads; a power of two ≥ 8.
  explicit MappedWalk(std::uint64_t window_bytes)
      : shift_(static_cast<unsigned>(std::countr_zero(elems_of(window_bytes)))), window_bytes_(window_bytes) {}

  /// Bytes element `at` (an index into the data, in elements) may newly make resident.
  std::uint64_t touch(std::uint64_t at) { return span(at, 1); }

  /// Bytes elements at, at + 1, …, at + n − 1 may newly make resident (0 for n = 0).
  std::uint64_t span(std::uint64_t at, std::uint64_t n) {
    if (n == 0) return 0;
    const std::uint64_t first = at >> shift_, last = (at + n - 1) >> shift_;
    const std::uint64_t windows = last - first + 1 - (first == last_ ? 1 : 0);
    last_ = last;
    return windows * window_bytes_;
  }
  /// The windows that `bytes` of span() entered: the accesses that may fault which a walk element
  /// by element over the same span would have made (ResidentGuard::touched()).
  std::uint64_t windows(std::uint64_t bytes) const { return bytes / window_bytes_; }

 private:
  unsigned shift_;  // log2 of the elements of a window
  std::uint64_t window_bytes_;
  std::uint64_t last_ = ~std::uint64_t{0};
};

/// Keeps the pages that mappings make resident within about `limit` bytes by measuring them:
/// the kernel may map more than an access asks for (a fault-around window; a whole large folio
/// of the page cache, whose size depends on how the file was read or written), and a walk that
/// comes back to windows it mapped before makes nothing new resident, so estimates alone neither
/// bound it nor say when to look. At intervals of accesses that may fault it reads the process's
/// resident file-backed bytes (resident_file_bytes(), a few microseconds) and says a drop is due
/// when they have grown by `limit` since the last drop. The interval adapts to the growth per
/// access it measured: about kCheckBytes of growth between two checks, from kMinEvery accesses
/// (each may map 64 KiB or more) to kMaxEvery (walks that revisit what is mapped). Thread-safe.
class ResidentGuard {
 public:
  static constexpr std::uint64_t kMinEvery = 16, kMaxEvery = 1024;
  static constexpr std::uint64_t kCheckBytes = std::uint64_t{1} << 20;

  /// limit: bytes of growth in resident file-backed pages that makes a drop due.
  explicit ResidentGuard(std::uint64_t limit);

  /// Notes `accesses` accesses (1; a span: the windows it entered, MappedWalk::windows()) that may
  /// have made `bytes` newly resident (MappedWalk; 0: none) and returns true when the caller
  /// should drop its mappings' resident pages now, and then call dropped(). A span counts as the
  /// accesses an element-by-element walk would have made, so the checks come as often.
  bool touched(std::uint64_t bytes, std::uint64_t accesses = 1);
  /// Whether a drop is due now, whatever the accesses since the last check: the resident
  /// file-backed bytes have grown by `limit` since the last drop (one resident_file_bytes()).
  bool due();
  /// After the caller's drop: the current level becomes the base of the next growth.
  void dropped();
  /// The growth (bytes) that makes a drop due, from now on.
  void set_limit(std::uint64_t limit) { limit_.store(limit, std::memory_order_relaxed); }
  std::uint64_t limit() const { return limit_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> limit_;
  std::atomic<std::uint64_t> touches_{0}, interval_{kMinEvery};
  std::uint64_t base_, checked_;  // resident file bytes after the last drop, at the last check
  std::mutex check_;
};

/// This process's resident file-backed and shared-memory bytes now (the third field of
/// /proc/self/statm, in pages); 0 where that file cannot be read.
std::uint64_t resident_file_bytes();

}  // namespace tcert
