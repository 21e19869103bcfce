// runtime/storage/scratch.h — Scratch: this rank's private directory for out-of-core tensor files.
#pragma once

#include <string>
#include <string_view>

namespace tcert {

/// The directory where one rank keeps its disk-resident tensors (Gao et al. §3: every
/// processor has a local disk). Each rank owns its own directory; ranks never share files.
///
/// - With a base directory (--scratch DIR): DIR (created with its parents if missing) gets a
///   subdirectory DIR/rank-N for rank N. An existing DIR/rank-N is emptied first, so a run
///   never sees files of an earlier run.
/// - Without one: each rank makes its own fresh directory $TMPDIR/tcert-XXXXXX with mkdtemp
///   ($TMPDIR defaults to /tmp). No name is exchanged between ranks, so this needs no MPI.
///
/// The destructor removes the rank directory recursively unless keep is true (DIR itself is
/// left in place). Non-copyable, non-movable.
class Scratch {
 public:
  /// rank: this process's rank (Context::rank()), used for the rank-N name.
  /// Throws Error("cannot create scratch directory DIR: ...") when a directory cannot be
  /// made, and Error("scratch directory DIR is not writable: ...") when a probe file
  /// cannot be created in a rank directory that was there already (one it makes is writable:
  /// the mkdir succeeded).
  Scratch(const std::string& base_dir, int rank, bool keep);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  /// The rank directory, without a trailing slash.
  const std::string& dir() const { return dir_; }
  /// dir() + "/" + name: the full path of the file `name` in the rank directory.
  std::string path(std::string_view name) const;

 private:
  std::string dir_;
  bool keep_;
};

}  // namespace tcert
