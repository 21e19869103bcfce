// runtime/program/shared_paths.h — the paths of a run that every rank must see as rank 0 does:
// on a cluster, a node-local directory (a node's /local/scratch, $TMPDIR under a batch system)
// is seen by the ranks of one node only, and a file written there never reaches the others.
//
// A run checks them at its start (Run's constructor), so that a path on the wrong kind of file
// system is a clear error naming the rank, its host and the path, before any work, instead of a
// missing file later or an output that exists on one node only. docs/cluster.md says which path
// is which.
#pragma once

#include <string>
#include <vector>

#include "runtime/comm/comm.h"
#include "runtime/program/options.h"

namespace tcert {

/// A path every rank must see as the same file or directory, with what it is for.
struct SharedPath {
  std::string path;  ///< a directory (directory = true) or a file
  std::string role;  ///< what it is, for messages: "the output directory of C", "input A"
  bool directory = true;
};

/// The paths of a run with `options` and `tensors` that every rank must see as rank 0 does:
/// the directory of every output file, the checkpoint directory (--checkpoint), and every input
/// file. Inputs generated from a seed have none.
std::vector<SharedPath> shared_paths(const RunOptions& options, const TensorLocations& tensors);

/// Checks that every rank sees each of `paths` as rank 0 does. A path that passed in an earlier
/// call of this process (rank 0's record, so that every rank takes part in the same
/// collectives) is not checked again: tcec-ccsd runs three calls an iteration.
///   - A directory: rank 0 writes a probe file holding a random token in it
///     (DIR/.tcec-shared-TOKEN, removed after), and every rank reads the token back. A directory
///     that rank 0 does not have is not checked here (the run's own checks report it).
///   - A file: every rank sees it, with rank 0's size in bytes (one rank 0 lacks: not checked).
/// Collective: one broadcast and one Context::first_error() (none on one rank). Throws Error
/// on every rank, with the lowest failing rank's message: "rank 2 (host node7) does not see the
/// output directory of C /shared/out as rank 0 (host node1) does: it must be on a file system
/// every node mounts (a node-local directory is seen by the ranks of one node only)".
void check_shared_paths(const Context& ctx, const std::vector<SharedPath>& paths);

/// This process's host name (gethostname(); "?" when it fails), for messages.
std::string host_name();

}  // namespace tcert
