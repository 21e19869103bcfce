// runtime/base/memory.h — the per-rank memory budget of tile buffers, and the buffers themselves.
//
// A plan is chosen so that its tile buffers fit in the machine's memory per processor
// (Gao et al. §3, the memory constraint of each plan). Generated programs allocate every tile
// buffer through allocate(), so a plan that would exceed the limit fails with a clear Error
// instead of swapping, and peak_bytes() reports what the run really used.
// Not thread-safe: allocate and release from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "runtime/spec/units.h"

namespace tcert {

class Buffer;

/// Bytes of tile buffers in use on this process, their peak, and the limit.
class MemoryBudget {
 public:
  /// Limit on in_use_bytes(); 0 means unlimited (the default). Lowering the limit below
  /// in_use_bytes() is allowed; the next allocate() then fails.
  void set_limit_bytes(std::uint64_t limit_bytes) { limit_bytes_ = limit_bytes; }
  std::uint64_t limit_bytes() const { return limit_bytes_; }
  /// Bytes held by live Buffers (8 per element; alignment padding is not counted).
  std::uint64_t in_use_bytes() const { return in_use_bytes_; }
  /// Largest in_use_bytes() since the start or the last reset_peak().
  std::uint64_t peak_bytes() const { return peak_bytes_; }
  /// Sets peak_bytes() to in_use_bytes().
  void reset_peak() { peak_bytes_ = in_use_bytes_; }

 private:
  friend class Buffer;
  friend class Reservation;
  friend Buffer allocate(std::size_t elements, std::string_view what);
  void acquire(std::uint64_t bytes, std::string_view what);
  void release(std::uint64_t bytes) { in_use_bytes_ -= bytes; }

  std::uint64_t limit_bytes_ = 0;
  std::uint64_t in_use_bytes_ = 0;
  std::uint64_t peak_bytes_ = 0;
};

/// The budget of this process.
MemoryBudget& budget();

/// Free heap memory (bytes) that release_free_heap() leaves in place: 8 MiB.
inline constexpr std::size_t kKeptFreeHeapBytes = std::size_t{8} << 20;

/// Gives the heap's free memory back to the system (glibc's malloc_trim: the top of each arena
/// and its free pages inside; nothing elsewhere) when it holds kKeptFreeHeapBytes or more
/// (mallinfo2's fordblks), else nothing: the next step's buffers then reuse pages that are
/// already resident instead of faulting in zeroed ones (trimming at every step cost tcec-ccsd
/// ~500 page faults per step on H2O/cc-pVDZ). glibc raises its mmap threshold to the largest
/// block freed so far (up to 32 MiB), after which large buffers come from the heaps of its
/// arenas and may stay resident after they are freed, by an amount that depends on how the
/// threads interleave: up to 20 MB above the budget per rank in the e2e tests, hence
/// bound_heap_threshold(). Run::end_step() calls it.
void release_free_heap();

/// Makes heap blocks of 1 MiB or more their own mappings, given back when freed (glibc; nothing
/// elsewhere), so that glibc does not raise that threshold (see release_free_heap()). 1 MiB
/// rather than less: each such block costs an mmap, page faults and an munmap (at 256 KiB, 15%
/// of tcec-ccsd's time on H2O/cc-pVDZ). And keeps up to kKeptFreeHeapBytes free at the top of
/// the heap (glibc's M_TRIM_THRESHOLD), as release_free_heap() does. Run's constructor calls it.
void bound_heap_threshold();

/// This process's peak resident set so far, in bytes: VmHWM of /proc/self/status (everything
/// resident: the budget's buffers, MPI, the program, and the pages of mapped files it touched);
/// 0 where that file cannot be read.
std::uint64_t peak_resident_bytes();

/// A move-only, 64-byte aligned array of doubles charged to budget() while it lives.
/// The elements are NOT initialised. A default-constructed or moved-from Buffer is empty.
class Buffer {
 public:
  Buffer() = default;  ///< empty
  /// Moves take ownership (and the budget charge); the source becomes empty.
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();  ///< frees the memory and returns its bytes to budget()

  /// The elements (64-byte aligned), nullptr when empty.
  double* data() { return data_; }
  const double* data() const { return data_; }
  std::size_t size() const { return size_; }  ///< elements
  /// size() in bytes: what the buffer is charged to budget().
  std::uint64_t bytes() const { return bytes_of(size_); }
  /// The elements as a span of size() elements.
  std::span<double> span() { return {data_, size_}; }
  std::span<const double> span() const { return {data_, size_}; }
  double& operator[](std::size_t i) { return data_[i]; }
  const double& operator[](std::size_t i) const { return data_[i]; }

 private:
  friend Buffer allocate(std::size_t elements, std::string_view what);
  Buffer(double* data, std::size_t size) : data_(data), size_(size) {}
  void release() noexcept;

  double* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A charge of `bytes` to budget() for memory that another component allocates, held while the
/// Reservation lives; it holds no memory itself. (CosmaGemm's local mode charges the slices and
/// the block its plan budgets, whose place the mapped operands take.) Move-only.
class Reservation {
 public:
  Reservation() = default;  ///< charges nothing
  /// Charges `bytes`; throws Error as allocate() does when the charge would pass the limit
  /// ("tile buffers need N bytes on this rank (WHAT) but the memory per rank is L bytes").
  Reservation(std::uint64_t bytes, std::string_view what);
  Reservation(Reservation&& other) noexcept;
  Reservation& operator=(Reservation&& other) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation();  ///< returns the bytes to budget()
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::uint64_t bytes_ = 0;
};

/// Allocates `elements` doubles (8·elements bytes), 64-byte aligned, uninitialised, and charges
/// them to budget() until the Buffer is destroyed. `what` names the buffer in errors
/// ("tile of A"). 0 elements gives an empty Buffer (data() == nullptr).
/// Throws Error("tile buffers need N bytes on this rank (WHAT) but the memory per rank is
/// L bytes") when in_use + 8·elements > limit (N = in_use + 8·elements), and Error("cannot
/// allocate N bytes for WHAT: out of memory") when the system has no memory left.
Buffer allocate(std::size_t elements, std::string_view what);

}  // namespace tcert
