// runtime/storage/disk.h — DiskFile: positioned, counted reads and writes of doubles in a local file.
//
// Out-of-core plans keep tensors on each rank's local disk and move tiles between disk and
// memory (Gao et al. §3, disk placement order). All offsets and sizes below count elements
// (doubles); the file holds them in native (little-endian) byte order with no header.
// Every byte transferred is added to counters() (disk_read_bytes / disk_write_bytes), and every
// call that moves data counts one disk request (its elements are one contiguous file range).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tcert {

/// A move-only open file of doubles. The destructor closes it (keeping its contents).
class DiskFile {
 public:
  DiskFile() = default;  ///< not open
  /// Opens `path` for reading and writing, creating it (mode 0644) if missing; an existing
  /// file keeps its contents. `direct` asks for O_DIRECT (bypass the page cache); when the
  /// file system refuses it, or a later transfer is not aligned as O_DIRECT requires (EINVAL),
  /// the file silently falls back to buffered I/O. Throws Error("cannot open PATH: ...").
  explicit DiskFile(std::string path, bool direct = false);
  /// Moves take over the open file; the source is left closed.
  DiskFile(DiskFile&& other) noexcept;
  DiskFile& operator=(DiskFile&& other) noexcept;
  DiskFile(const DiskFile&) = delete;
  DiskFile& operator=(const DiskFile&) = delete;
  ~DiskFile();

  bool is_open() const { return fd_ >= 0; }          ///< false after remove() or a move
  const std::string& path() const { return path_; }  ///< as given to the constructor
  /// Whether transfers still bypass the page cache: opened with `direct` and O_DIRECT taken,
  /// and no transfer since fell back to buffered I/O.
  bool direct() const { return direct_; }

  /// Reads file elements [offset_elems, offset_elems + n_elems) into dst[0, n_elems).
  /// Throws Error naming the path, byte offset and strerror on failure, and
  /// Error("... end of file ...") when the file ends before the last element.
  void read(double* dst, std::uint64_t offset_elems, std::size_t n_elems);
  /// Writes src[0, n_elems) to file elements [offset_elems, offset_elems + n_elems), growing
  /// the file if needed. Throws Error; a full disk (ENOSPC, EDQUOT) gives "disk full: ...".
  void write(const double* src, std::uint64_t offset_elems, std::size_t n_elems);

  /// Gather read: the rows·cols contiguous file elements starting at offset_elems, taken as a
  /// rows×cols row-major block, land in the row-major sub-block of a larger matrix whose
  /// leading dimension (row stride) is ld_elems >= cols:
  ///   dst[i·ld_elems + j] = file[offset_elems + i·cols + j]   for i < rows, j < cols.
  /// One preadv per IOV_MAX rows (an iovec per row). Errors as read().
  void read_rows(double* dst, std::size_t ld_elems, std::size_t rows, std::size_t cols, std::uint64_t offset_elems);
  /// Scatter write, the mirror of read_rows (pwritev):
  ///   file[offset_elems + i·cols + j] = src[i·ld_elems + j]   for i < rows, j < cols.
  /// Errors as write().
  void write_rows(const double* src, std::size_t ld_elems, std::size_t rows, std::size_t cols,
                  std::uint64_t offset_elems);

  /// Sets the file size to n_elems elements (ftruncate; new elements read as 0.0).
  void resize(std::uint64_t n_elems);
  /// The file size in elements (bytes / 8, rounded down).
  std::uint64_t size_elems() const;
  /// Closes and deletes the file; afterwards is_open() is false. A file that is already gone
  /// is not an error. Throws Error("cannot remove PATH: ...") otherwise.
  void remove();

 private:
  void close() noexcept;
  void transfer_rows(double* data, std::size_t ld_elems, std::size_t rows, std::size_t cols, std::uint64_t offset_elems,
                     bool is_write);

  std::string path_;
  int fd_ = -1;
  bool direct_ = false;
};

}  // namespace tcert
