// runtime/storage/npy.h — reading and writing NumPy .npy files of float64, little-endian, C order.
//
// Inputs and outputs of generated programs are .npy files (format versions 1.0, 2.0 and 3.0
// are read, 1.0 or 2.0 is written: https://numpy.org/doc/stable/reference/generated/
// numpy.lib.format.html). Data is mapped with mmap, never copied (NpyReader::file() opens it for
// explicit requests instead, element_file.h); these classes do NOT add to counters(): the caller
// counts the bytes it copies (e.g. add_disk_read(8·elements)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tcert {

class ElementFile;

/// What the header of a float64 C-order .npy file says.
struct NpyHeader {
  std::vector<std::uint64_t> shape;     ///< extents in elements, outermost first; {} for 0-d
  std::uint64_t data_offset_bytes = 0;  ///< file offset of element 0 (a multiple of 64 in files NumPy writes)
  /// Product of the extents (1 for a 0-d array).
  std::uint64_t element_count() const;
};

/// Python tuple form of a shape, as in messages: "(3, 4)", "(5,)", "()".
std::string format_shape(std::span<const std::uint64_t> shape);

/// Parses the header of `path` and checks the file is float64 ('<f8'), C order, and long
/// enough for its data. Throws Error naming the path: "cannot open input PATH: ...",
/// "input PATH is not a .npy file ...", "input PATH has dtype '<i8' but tcert needs '<f8'
/// (float64)", "input PATH is stored in Fortran order ...", "input PATH is truncated ...",
/// "input PATH has a malformed .npy header: ...".
NpyHeader read_npy_header(const std::string& path);

/// Throws Error("input NAME has shape (3, 4) but the program expects (3, 5)") unless the
/// header's shape equals `expected`. `name` is what messages call the input (its path or
/// tensor name).
void check_shape(const NpyHeader& header, std::span<const std::uint64_t> expected, std::string_view name);

/// A .npy file mapped read-only (MAP_PRIVATE). Move-only; unmapped by the destructor.
class NpyReader {
 public:
  /// read_npy_header(path), then mmap. Throws Error as read_npy_header or on mmap failure.
  explicit NpyReader(const std::string& path);
  NpyReader(NpyReader&& other) noexcept;
  NpyReader& operator=(NpyReader&& other) = delete;
  NpyReader(const NpyReader&) = delete;
  NpyReader& operator=(const NpyReader&) = delete;
  ~NpyReader();

  /// The parsed header (shape and data offset).
  const NpyHeader& header() const { return header_; }
  /// The elements in C (row-major) order; header().element_count() of them.
  const double* data() const;
  /// The number of elements (product of the shape).
  std::size_t size() const { return static_cast<std::size_t>(header_.element_count()); }
  /// data() as a span of size() elements.
  std::span<const double> span() const { return {data(), size()}; }
  /// Drops this process's resident pages of the mapping (madvise MADV_DONTNEED): they stay in
  /// the page cache and fault back in when read again, but no longer count in its memory.
  void drop_pages() const;
  /// The same file open for reads with explicit requests (element_file.h), opened at the first
  /// call. For one thread at a time. Throws Error("cannot open PATH: …").
  std::shared_ptr<const ElementFile> file() const;

 private:
  std::string path_;
  NpyHeader header_;
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  mutable std::shared_ptr<const ElementFile> file_;
};

class SpareFiles;

/// Memory for the data of a .npy file filled in this process (NpyWriter::Backing::Memory,
/// NpyUpdate): taken from a process-wide pool and given back to it on destruction. The pool
/// keeps up to 32 MiB of freed blocks, and a request takes the smallest that holds it and is at
/// most twice its size: a run's results come in few sizes, a reused block costs no new pages to
/// fault in and clear (fresh, they took as long as the write faults they replace), and a large
/// block stays for the large requests (tcec-ccsd's 4.4 MB intermediate, every iteration, once
/// took it for a 1.16 MB one and then faulted in a new one). Contents are undefined when taken.
/// Thread-safe. Move-only.
class FileMemory {
 public:
  FileMemory() = default;
  /// Memory for `elements` doubles. Throws std::bad_alloc.
  explicit FileMemory(std::size_t elements);
  FileMemory(FileMemory&& other) noexcept;
  FileMemory& operator=(FileMemory&& other) noexcept;
  ~FileMemory();
  double* data() const { return data_; }
  std::size_t size() const { return size_; }  ///< elements
  /// Gives the memory back to the pool now (size() becomes 0).
  void release() noexcept;

 private:
  double* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;  // elements
};

/// Writes a .npy file atomically: the constructor creates PATH.tmp-<pid> holding the header
/// and room for the data (ftruncate, then posix_fallocate so a full disk fails now, not with
/// SIGBUS later) and maps it read-write; the caller fills data(); commit() msyncs (unless told
/// not to), unmaps and renames it to PATH. Destroyed without commit(), it removes the temporary
/// file, so PATH never holds a partial result. Move-only.
///
/// With Backing::Memory the data are filled in this process's memory instead of the mapping,
/// and written to the file (pwrite) by write_out() or commit(). For a file that one process
/// writes whole and that fits in its memory: a first write to a page of a file mapping faults
/// into the file system (ext4 with large folios: 2–12 µs per 4 KiB page measured here, a
/// 4.4 MB result's faults 3.1 ms of a 5.9 ms product), where a pwrite of the 4.4 MB takes 0.2 ms.
class NpyWriter {
 public:
  /// Where data() lives until commit(): the file's mapping, or memory of this process; or
  /// nowhere (File: data() is null, the file is written by other means, e.g. a ElementFile on
  /// temp_path()).
  enum class Backing { Mapped, Memory, File };
  /// Throws Error("cannot create output PATH.tmp-<pid>: ...") or "disk full: ..." . With
  /// `spares`, the temporary file is a spare of the same size taken from them when they hold one
  /// (SpareFiles::take(): its blocks are allocated and its pages may be in the page cache), with
  /// its header and (Backing::Mapped, File) zeros written to it (pwrite: no page of it becomes
  /// resident in this process).
  NpyWriter(std::string path, std::vector<std::uint64_t> shape, SpareFiles* spares = nullptr,
            Backing backing = Backing::Mapped);
  NpyWriter(NpyWriter&& other) noexcept;
  NpyWriter& operator=(NpyWriter&& other) = delete;
  NpyWriter(const NpyWriter&) = delete;
  NpyWriter& operator=(const NpyWriter&) = delete;
  ~NpyWriter();

  /// The final path (the file is written elsewhere until commit()).
  const std::string& path() const { return path_; }
  /// Where the file is written until commit(): other processes may fill it through NpyPatch.
  const std::string& temp_path() const { return temp_path_; }
  /// Row-major elements to fill; size() of them (the product of shape). Zero-initialised.
  /// Unmaps the resident pages of the mapping (madvise MADV_DONTNEED): what was written stays in
  /// the page cache and reaches the file; touching the pages again reads them back. Bounds the
  /// process's resident memory while a large tensor is written. Nothing with Backing::Memory.
  void drop_pages();
  /// With Backing::Memory, writes data() to the temporary file (pwrite, not flushed), so that
  /// a copy of it sees what was written so far; nothing with Backing::Mapped. Throws Error
  /// ("cannot write output …" or "disk full: …").
  void write_out();
  double* data();
  /// The number of elements (product of the shape).
  std::size_t size() const { return static_cast<std::size_t>(header_.element_count()); }
  /// data() as a span of size() elements.
  std::span<double> span() { return {data(), size()}; }
  /// Flushes the data to disk (`flush`; else it stays in the page cache, to be written back by
  /// the kernel) and renames the file to path(). Throws Error on failure (the temporary file is
  /// then removed). Calling it twice is an error. With Backing::Memory the data stay in memory
  /// until take_memory() or destruction.
  void commit(bool flush = true);
  /// With Backing::Memory after commit(): the data, which path() now holds too (empty before
  /// commit() and with Backing::Mapped).
  FileMemory take_memory();

 private:
  void discard() noexcept;

  std::string path_, temp_path_;
  NpyHeader header_;
  int fd_ = -1;
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  FileMemory memory_;  // Backing::Memory: the data until commit()
  bool in_memory_ = false;
};

/// Writes the .npy file `path` holding `data`, the row-major elements of an array of `shape`
/// (their product of them), atomically: PATH.tmp-<pid> is written (pwrite; flushed to the disk
/// when `flush`), then renamed to `path` (replace_file()). For data this process holds in memory
/// (a store version written late, HeldVersions::write_out(); an export). With `spares`, the temporary is a
/// spare of the file's size where the pool has one, and a file that `path` replaces goes to the
/// pool (replace_file()). Throws Error ("cannot create output …", "cannot write output …", "disk
/// full: …"); `path` is then untouched.
void write_npy(const std::string& path, const std::vector<std::uint64_t>& shape, const double* data, bool flush,
               SpareFiles* spares = nullptr);
/// write_npy()'s writing of the file without its rename: writes `path` itself (a spare of its size
/// from `spares` where the pool has one), for a caller that writes under a temporary name of its
/// own and renames it (an export: one rename instead of two). Errors as write_npy(); `path` is
/// then removed.
void write_npy_file(const std::string& path, const std::vector<std::uint64_t>& shape, const double* data, bool flush,
                    SpareFiles* spares = nullptr);

/// Renames `from` to `to`, replacing a file `to` atomically (readers of `to` see the old file or
/// the new one). Where `to` is a regular file, the two are exchanged (renameat2 RENAME_EXCHANGE)
/// and the old file, then at `from`, is unlinked (anything else at `to` is left to rename(2): a
/// directory fails with EISDIR): a plain rename over an existing file makes ext4
/// (auto_da_alloc) start writing the new file's data out at once, 1.2 ms for a 1.16 MB file here
/// (tcec-ccsd's residual, every iteration) against 0.23 ms. Falls back to rename(2) where the
/// file system has no renameat2 flags. With `spares`, the old file is offered to the pool
/// (SpareFiles::give() under `to`'s directory) and unlinked only where the pool refuses it: a
/// file replaced every iteration (tcec-ccsd's residual) is written again in its blocks and cached
/// pages instead of created anew. Returns 0 (the old file's unlink is not checked: at worst it
/// stays under the name `from`), or the errno of the failure (`from` is then left as it was).
int replace_file(const std::string& from, const std::string& to, SpareFiles* spares = nullptr);

/// Flushes the file system that holds `path` (syncfs): every file written there, e.g. results
/// committed without a flush, reaches the disk. Throws Error("cannot sync PATH: ...").
void sync_file_system(const std::string& path);
/// Flushes the files `paths` and the directories that hold them (fsync): what was written to
/// them and their names reach the disk, and nothing else (a file already on disk costs little).
/// Throws Error("cannot sync PATH: ...") for the first that fails.
void sync_files(const std::vector<std::string>& paths);

/// An existing float64 .npy file mapped read-write (MAP_SHARED), so that several processes on
/// one node can fill disjoint elements of one NpyWriter's temporary file. msync at
/// destruction when `flush` (errors there are ignored; call sync() to see them). Move-only.
class NpyPatch {
 public:
  /// read_npy_header(path), then mmap. `flush`: sync() and the destructor msync; false: both
  /// leave the writes in the page cache. Throws Error("cannot open output PATH: ...").
  explicit NpyPatch(const std::string& path, bool flush = true);
  NpyPatch(const NpyPatch&) = delete;
  NpyPatch& operator=(const NpyPatch&) = delete;
  ~NpyPatch();
  /// Row-major elements, header().element_count() of them.
  void drop_pages();  ///< as NpyWriter::drop_pages()
  double* data();
  /// Flushes the mapping to the file. Throws Error on failure.
  void sync();

 private:
  std::string path_;
  NpyHeader header_;
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  bool flush_ = true;
};

/// An existing float64 .npy file's data read whole into this process's memory (pread), updated
/// there and written back in place by write_back() (pwrite): for a file that one process updates
/// whole and that fits in its memory, without the write faults of a mapping (NpyWriter::Backing
/// says what they cost). What is not written back is not in the file.
class NpyUpdate {
 public:
  /// read_npy_header(path), then reads the data. `flush`: write_back() also flushes the file to
  /// the disk (fdatasync). Throws Error("cannot open output PATH: …", "cannot read output …").
  NpyUpdate(const std::string& path, bool flush);
  /// The same with the data already in memory: `held`, the file's elements as this process last
  /// wrote them (HeldVersions::take()); nothing is read but the header.
  NpyUpdate(const std::string& path, bool flush, FileMemory held);
  NpyUpdate(const NpyUpdate&) = delete;
  NpyUpdate& operator=(const NpyUpdate&) = delete;
  ~NpyUpdate();
  /// Row-major elements, as many as the file's shape holds.
  double* data() { return memory_.data(); }
  /// Writes data() to the file. Throws Error("cannot write output PATH: …" or "disk full: …").
  void write_back();
  /// The data, moved out (for HeldVersions::hold() after write_back()).
  FileMemory take_memory() { return std::move(memory_); }

 private:
  std::string path_;
  NpyHeader header_;
  int fd_ = -1;
  FileMemory memory_;
  bool flush_ = true;
};

}  // namespace tcert
