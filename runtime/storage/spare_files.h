// runtime/storage/spare_files.h — SpareFiles: files whose contents are no longer needed, kept to be
// written again instead of removed and created anew.
//
// A released store version (Run::release()) and a new one of the same size follow each other
// all through a program and from one call of it to the next (tcec-ccsd's residuals make the same
// intermediates every iteration). A new file costs its blocks (posix_fallocate), a page fault
// that allocates and zeroes each page, and later an unlink that frees them; a file that is
// reused keeps its blocks and its pages in the page cache, so writing it again costs a lighter
// fault per page (here, a 1.16 MB file: 0.90 ms created and written, 0.24 ms to unlink; 0.46 ms
// reused and written). A spare's pages may still be dirty: the kernel writes them back as it
// would the version's (RunOptions::sync_results), at most the pool's bound of them, where a
// removed file's were dropped.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

namespace tcert {

/// A pool of spare files in one directory of its own (made on the first give(), under the
/// directory that give() names), at most kMaxBytes in all, oldest out first. Spares are whole
/// files of any content; take() hands one out by its exact size. Thread-safe. The process's pool
/// (spare_files()) removes its files and its directory when the process exits.
class SpareFiles {
 public:
  /// The pool's bound (bytes): 64 MiB of spares; a larger file is not kept.
  static constexpr std::uint64_t kMaxBytes = std::uint64_t{64} << 20;

  SpareFiles() = default;
  /// Removes the spares and the pool's directory (errors are ignored).
  ~SpareFiles();
  SpareFiles(const SpareFiles&) = delete;
  SpareFiles& operator=(const SpareFiles&) = delete;

  /// Takes the file `path` (no longer needed) into the pool, moving it (rename) into the pool's
  /// directory, which is made under `under` on the first call. Returns false, leaving the file
  /// where it is, when it is larger than kMaxBytes, when it has another name (a hard link: an
  /// output exported from the store keeps its contents), when `under` is not the directory the pool
  /// was made under, or when the pool's directory cannot be made or the rename fails (e.g. across
  /// file systems): the caller then removes it. Spares beyond kMaxBytes in all are removed, the
  /// oldest first.
  bool give(const std::string& path, const std::string& under);
  /// Moves a spare of exactly `bytes` bytes to `to` (rename; its content is whatever it held) and
  /// returns true; false when the pool has none of that size or the rename fails (that spare is
  /// then removed).
  bool take(std::uint64_t bytes, const std::string& to);
  /// Bytes of the spares held now.
  std::uint64_t bytes() const;

 private:
  struct Spare {
    std::string path;
    std::uint64_t bytes;
  };
  mutable std::mutex mutex_;
  std::string under_, dir_;   // give()'s `under` of the first call, and the directory made there
  std::deque<Spare> spares_;  // oldest first
  std::uint64_t bytes_ = 0, made_ = 0;
};

/// The process's pool (Run::release() gives it released store versions on rank 0; NpyWriter
/// takes from it).
SpareFiles& spare_files();

}  // namespace tcert
