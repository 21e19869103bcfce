// runtime/base/memory.cpp — tile buffers charged to the per-rank memory budget.
#include "runtime/base/memory.h"

#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <fstream>
#include <limits>
#include <string>
#include <utility>

#include "runtime/base/error.h"
#include "runtime/spec/units.h"

namespace tcert {

namespace {
constexpr std::size_t kAlignmentBytes = 64;
}  // namespace

void MemoryBudget::acquire(std::uint64_t bytes, std::string_view what) {
  std::uint64_t needed = in_use_bytes_ + bytes;
  if (limit_bytes_ != 0 && needed > limit_bytes_)
    throw Error("tile buffers need " + std::to_string(needed) + " bytes on this rank (" + std::string(what) +
                ") but the memory per rank is " + std::to_string(limit_bytes_) + " bytes");
  in_use_bytes_ = needed;
  if (in_use_bytes_ > peak_bytes_) peak_bytes_ = in_use_bytes_;
}

MemoryBudget& budget() {
  static MemoryBudget instance;
  return instance;
}

Buffer::Buffer(Buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this == &other) return *this;
  release();
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  return *this;
}

Buffer::~Buffer() { release(); }

void Buffer::release() noexcept {
  if (data_ == nullptr) return;
  std::free(data_);
  budget().release(bytes());
  data_ = nullptr;
  size_ = 0;
}

Reservation::Reservation(std::uint64_t bytes, std::string_view what) : bytes_(bytes) { budget().acquire(bytes, what); }

Reservation::Reservation(Reservation&& other) noexcept : bytes_(std::exchange(other.bytes_, 0)) {}

Reservation& Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    budget().release(bytes_);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Reservation::~Reservation() { budget().release(bytes_); }

Buffer allocate(std::size_t elements, std::string_view what) {
  if (elements == 0) return Buffer();
  if (elements > std::numeric_limits<std::size_t>::max() / kElementBytes - kAlignmentBytes)
    throw Error("cannot allocate " + std::to_string(elements) + " elements for " + std::string(what) +
                ": the size overflows");
  std::size_t bytes = kElementBytes * elements;
  budget().acquire(bytes, what);
  // std::aligned_alloc needs a size that is a multiple of the alignment.
  std::size_t padded = (bytes + kAlignmentBytes - 1) / kAlignmentBytes * kAlignmentBytes;
  void* p = std::aligned_alloc(kAlignmentBytes, padded);
  if (p == nullptr) {
    budget().release(bytes);
    throw Error("cannot allocate " + std::to_string(bytes) + " bytes for " + std::string(what) + ": out of memory");
  }
  return Buffer(static_cast<double*>(p), elements);
}

void bound_heap_threshold() {
#if defined(__GLIBC__)
  ::mallopt(M_MMAP_THRESHOLD, 1 << 20);  // fixed: glibc no longer raises it
  // The free top of the heap is kept up to kKeptFreeHeapBytes, as release_free_heap() keeps it,
  // rather than glibc's 128 KiB: a kernel's tables of a few hundred KiB, freed at the end of a
  // call, were given back and faulted in again by the next (tcec-ccsd: 170 faults an iteration).
  ::mallopt(M_TRIM_THRESHOLD, kKeptFreeHeapBytes);
#endif
}

void release_free_heap() {
#if defined(__GLIBC__)
  if (::mallinfo2().fordblks >= kKeptFreeHeapBytes) ::malloc_trim(0);
#endif
}

std::uint64_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

}  // namespace tcert
