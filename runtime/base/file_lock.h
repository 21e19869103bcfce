// runtime/base/file_lock.h — FileLock: one process at a time on a directory that runs share.
#pragma once

#include <string>

namespace tcert {

/// An exclusive advisory lock (flock(2)) on the file `path`, created (mode 0644) when missing,
/// held from construction to destruction. Two runs on one checkpoint or work directory would
/// write each other's manifests; the ranks of an `mpirun` killed with SIGKILL, which Open MPI
/// leaves running in process groups of their own until they notice, are such a second run. The
/// kernel releases the lock when its holder dies, however it dies. The file stays; removing it
/// while held is allowed.
///
/// Throws Error("PATH is held by another process (WHO)") when another open description holds
/// the lock (in this process too), naming `who` (e.g. "a run of this program on the same
/// checkpoint directory, still running or its ranks not yet ended"), and Error("cannot open
/// PATH: …") / Error("cannot lock PATH: …") on other failures. Non-copyable, non-movable.
class FileLock {
 public:
  FileLock(const std::string& path, const std::string& who);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace tcert
