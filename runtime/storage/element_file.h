// runtime/storage/element_file.h — a tensor's file read and written with explicit requests: runs of
// elements gathered into few, large preadv/pwritev calls, and writes put behind (issue 51).
//
// A tensor larger than the memory per rank does not fit in it, nor, on a node whose page cache is
// smaller than the tensors, in the page cache: read through a mapping, its pages were evicted
// before use and faulted in again (77 GiB read from the device for 1.07 GB asked, 4-index
// transform N = 128 in a 384 MB cgroup), and written through one, reclaim decided when they
// reached the device. ElementFile moves the runs a tile or panel needs straight between the file
// and the plan's own buffers: RunReads queues the runs of a pass and reads them sorted by file
// offset, runs less than a gap apart in one preadv (the gap into a discarded buffer), runs that
// land strided (a column of a block) through a staging buffer; RunWrites queues the runs written,
// adjacent ones in one pwritev, short ones copied into a staging buffer; after each batch of
// writes the file's write-behind starts their write-back (sync_file_range) and, a window later,
// waits for it, so that dirty pages stay bounded and a write never waits for reclaim.
//
// Nothing here adds to counters(): callers count what they ask for (runs, bytes), as with a
// mapping. The staging and gap buffers (kStagingElems, kGapBytes, and kDirectBytes on threads that
// read direct: about 2.6 MiB per thread, three reading threads at most) are per thread, outside the
// tile budget: they replace the resident pages of the mappings (MappedInputs::drop_bytes(), at
// least 8 MiB), which the plan's memory per rank leaves room for. Units: elements (8 bytes) unless
// a name says bytes; element sizes through bytes_of() and elems_of(), runtime/spec/units.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "runtime/spec/units.h"

namespace tcert {

/// The data of a file of doubles from a byte offset on (a .npy file's elements), open for reading
/// or for reading and writing. Move-only; closed by the destructor.
class ElementFile {
 public:
  /// Opens `path` (read-only unless `writable`); element 0 is at byte `data_offset_bytes`.
  /// Throws Error("cannot open PATH: …").
  ElementFile(std::string path, std::uint64_t data_offset_bytes, bool writable);
  ElementFile(ElementFile&& other) noexcept;
  ElementFile& operator=(ElementFile&&) = delete;
  ElementFile(const ElementFile&) = delete;
  ElementFile& operator=(const ElementFile&) = delete;
  ~ElementFile();

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  /// The file opened a second time for reads that bypass the page cache (O_DIRECT), or -1: where
  /// direct_reads() was 0 when it was opened, the file system refuses O_DIRECT, or element 0 is
  /// not at a multiple of 8 bytes.
  int direct_fd() const { return direct_fd_; }
  /// The least bytes of a request read through direct_fd() (direct_reads() when opened).
  std::uint64_t direct_min_bytes() const { return direct_min_; }
  /// The byte offset of element `at`.
  std::uint64_t byte_of(std::uint64_t at) const { return data_offset_ + bytes_of(at); }

  /// Reads elements [at, at + n) into out[0, n) (pread until done). Throws Error("cannot read …
  /// from PATH at byte offset …", "… the file ends at byte …").
  void read(std::uint64_t at, std::size_t n, double* out) const;
  /// Copies elements [at, at + n) of `from` to the same elements of this file, in the kernel
  /// (copy_file_range; read and write where it cannot). Throws Error as read() and write.
  void copy_from(const ElementFile& from, std::uint64_t at, std::size_t n);

  /// Write-behind (the file is written through RunWrites): the bytes [first, end) were just
  /// written. Starts their write-back (sync_file_range SYNC_FILE_RANGE_WRITE); then, while more
  /// than window() bytes written before are still behind, waits for the oldest range's
  /// write-back to end and drops its pages from the page cache (POSIX_FADV_DONTNEED), so that
  /// the dirty and written-back pages of a result streamed out stay within about window() bytes
  /// and no later write waits for the kernel to reclaim them. Advisory: errors are ignored (a
  /// commit's flush reports them).
  void wrote(std::uint64_t first_byte, std::uint64_t end_byte);
  /// The least window() that keeps a device writing at its speed: 64 MiB (the 4-index step N = 128
  /// out of core, a 384 MiB cgroup: the compute stage 8% faster than with 8 MiB behind, in three
  /// alternating pairs; bench/ooc_regime.sh).
  static constexpr std::uint64_t kDeviceWindowBytes = std::uint64_t{64} << 20;
  /// The bytes written that may stay behind (default kDeviceWindowBytes).
  std::uint64_t window() const { return window_; }
  void set_window(std::uint64_t bytes) { window_ = bytes; }
  /// Flushes the file's data to the disk (fdatasync). Throws Error("cannot write output PATH: …").
  void sync() const;

 private:
  std::string path_;
  int fd_ = -1, direct_fd_ = -1;
  std::uint64_t data_offset_ = 0, direct_min_ = 0;
  std::uint64_t window_ = kDeviceWindowBytes;
  std::deque<std::pair<std::uint64_t, std::uint64_t>> behind_;  // byte ranges written back, not yet waited for
  std::uint64_t behind_bytes_ = 0;
};

/// From now on, ElementFiles read requests of at least `min_bytes` bytes (a run, or runs read in
/// one request) with O_DIRECT, through an aligned staging buffer, never through the page cache:
/// for the device regime, where the tensors are larger than the node's memory and buffered reads
/// fill the page cache that the kernel must then reclaim on the program's path, and smaller
/// requests, read one at a time, would wait for the device one by one (docs/out-of-core.md).
/// 0 (the default): every read buffered (the page cache regime: a read is a copy from memory
/// there). Process-wide; files opened before keep their mode.
void set_direct_reads(std::uint64_t min_bytes);
/// The least bytes of a direct read (set_direct_reads()), 0: none.
std::uint64_t direct_reads();

/// Copies the file `from` into `to` (created, or truncated) with large explicit requests: the
/// source read sequentially in kCopyBytes requests into one buffer, each written at once and put
/// behind (ElementFile::wrote()), the source's pages dropped once copied. The device reads and
/// writes the file's size once each, whatever the page cache holds (a kernel copy through the
/// page cache re-read about 40% of it in a cgroup whose limit counts the page cache). Units:
/// bytes. Throws Error("cannot open …", "cannot read N bytes from FROM …", "cannot write …").
void copy_file_streamed(const std::string& from, const std::string& to);
/// Gives the file `from` the second name `to` (a hard link; an existing `to` is replaced), so
/// that `to` holds from's data without moving a byte; as durable as a copy just written (the
/// kernel writes dirty pages back). Returns false, leaving `to` absent, where the two are on
/// different file systems or the file system has no hard links (the caller copies:
/// copy_file_streamed()). The data are shared: the caller must no longer change them through
/// `from` (SpareFiles::give() refuses a file with another name).
bool link_file(const std::string& from, const std::string& to);
/// The request size of copy_file_streamed() (1 MiB), and its one buffer.
inline constexpr std::size_t kCopyBytes = std::size_t{1} << 20;

/// Runs of a file's elements to read, queued by add() and read by flush() with few requests.
/// For one thread; the file outlives it.
class RunReads {
 public:
  /// Elements staged per thread: a strided run is read through them (512 KiB).
  static constexpr std::size_t kStagingElems = std::size_t{1} << 16;
  /// Runs at most this far apart (and not farther than the earlier run's length, or 8 KiB) are
  /// read in one request, the bytes between them into a discarded buffer of this size.
  static constexpr std::size_t kGapBytes = std::size_t{64} << 10;
  /// Of a file with a direct_fd(): the aligned staging buffer per thread that its requests read
  /// into (2 MiB, one request each), and the alignment of their offsets and lengths (4 KiB).
  static constexpr std::size_t kDirectBytes = std::size_t{2} << 20;
  static constexpr std::size_t kDirectAlign = std::size_t{4} << 10;

  explicit RunReads(const ElementFile& file) : file_(&file) {}
  /// out[e·step] = element at + e of the file, for e < n, by flush() at the latest.
  void add(std::uint64_t at, std::size_t n, double* out, std::size_t step = 1);
  /// Reads every queued run. Throws Error as ElementFile::read(); the queue is then empty.
  void flush();
  bool empty() const { return runs_.empty(); }

 private:
  struct Run {
    std::uint64_t at;
    std::size_t n;
    double* out;
    std::size_t step;
  };
  /// Reads runs_[first, end) (sorted, apart) through the page cache: one preadv per IOV_MAX
  /// iovecs or kStagingElems elements of strided runs, the bytes between runs into the gap buffer.
  void read_buffered(std::size_t first, std::size_t end) const;
  /// Reads runs_[first, end) (sorted, apart) with O_DIRECT: the aligned bytes that cover them in
  /// requests of at most kDirectBytes, each copied out to the runs it holds. Returns false,
  /// having copied nothing, where the file system refuses the first request (EINVAL: the caller
  /// reads them buffered). Throws Error as ElementFile::read().
  bool read_direct(std::size_t first, std::size_t end) const;

  const ElementFile* file_;
  std::vector<Run> runs_;
};

/// Runs of a file's elements to write, queued by add() and put() and written by flush() with few
/// requests, in the order queued; then the file's write-behind (ElementFile::wrote()). For one
/// thread; the file outlives it.
class RunWrites {
 public:
  /// Elements staged per writer: short and strided runs are copied there when queued (512 KiB).
  static constexpr std::size_t kStagingElems = std::size_t{1} << 16;
  /// Runs of at least this many contiguous elements are written from the caller's memory.
  static constexpr std::size_t kDirectElems = 512;

  explicit RunWrites(ElementFile& file) : file_(&file) {}
  ~RunWrites() = default;
  /// Elements at … at + n − 1 of the file = src[0], src[step], …, by flush() at the latest; a
  /// step-1 run of kDirectElems or more is written from `src`, which must stay unchanged until then.
  void add(std::uint64_t at, std::size_t n, const double* src, std::size_t step = 1);
  /// Element `at` of the file = value.
  void put(std::uint64_t at, double value) { add(at, 1, &value); }
  /// Writes every queued run, the reads of the pages they cover in part started first, all at
  /// once (POSIX_FADV_WILLNEED: a partial write of a page not in the page cache waits for it).
  /// Throws Error("cannot write … to PATH …", "disk full: …").
  void flush();
  bool empty() const { return pieces_.empty(); }

 private:
  struct Piece {
    std::uint64_t at;
    std::size_t n;
    const double* src;  // the caller's memory, or staged_
    bool staged;
  };
  ElementFile* file_;
  std::vector<Piece> pieces_;
  std::vector<double> staged_;  // capacity kStagingElems: pieces point into it
};

}  // namespace tcert
