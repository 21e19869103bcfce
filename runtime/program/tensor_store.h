// runtime/program/tensor_store.h — TensorStore: the run's tensor store, a directory all ranks see
// that holds the versions the steps write as .npy files, STORE/NAME.vN.npy, made when a version
// is first written there; and a program output's versions when they are written straight into
// its output's directory.
//
// Each write of a tensor makes its next version (an accumulating step reads the version before,
// previous()); release() of the tensor forgets them all. Which version's data are held in memory
// is HeldVersions' (held_versions.h), which files are mapped MappedInputs' (mapped_inputs.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/comm/comm.h"
#include "runtime/program/options.h"

namespace tcert {

class IoWorker;
class KeptTensors;

/// The node of each rank of ctx (element q for rank q) by its view of directory `dir`: its host
/// and the device and inode of `dir`, or of its nearest existing ancestor. Ranks with one view
/// share one page cache of the files under it; ranks with different views see different
/// directories there (node-local scratch, or one shared directory seen from several hosts).
/// Nodes are numbered 0, 1, ... in the order of their first ranks. Collective.
std::vector<int> nodes_by_view(const Context& ctx, const std::string& dir);

/// A store's versions: by tensor name, the paths of its versions, oldest first.
using StoreVersions = std::map<std::string, std::vector<std::string>>;

/// The store's directory and its versions.
class TensorStore {
 public:
  /// The store of a run on `ctx`. With `checkpoint_dir` (not ""): that directory (the
  /// checkpoint's DIR/store, made and kept by Checkpoint). Else rank 0 names
  /// tcec-store-<pid>-<run>-<random> under options.store_base, else options.scratch (or $TMPDIR,
  /// or /tmp), made by make() when a version is first written in it and removed at the end
  /// unless options.keep: a run whose results all stay in memory (tcec-ccsd's three calls an
  /// iteration: 0.2-0.4 ms each), or all go straight to their output files
  /// (add_output_version()), makes and removes no directory, so a node-local --scratch serves
  /// it. A new version drops the kept version of its tensor in `kept`. Collective.
  TensorStore(const Context& ctx, const RunOptions& options, const std::string& checkpoint_dir, KeptTensors& kept);
  /// Waits for this store's removals (release()); rank 0 (of each node where per_node()) then
  /// removes the directory with its files unless it is kept (--keep, a checkpoint's) or was
  /// never made.
  ~TensorStore();
  TensorStore(const TensorStore&) = delete;
  TensorStore& operator=(const TensorStore&) = delete;

  /// The store's directory (the same path on every rank of a node, and on every node unless
  /// per_node(); see the constructor for when it exists).
  const std::string& dir() const { return dir_.path; }
  /// Makes the store's directory if it is only named yet (and --scratch DIR above it), for
  /// `what` (the tensor, or the version, that needs it: the error names it); every writer of a
  /// file there calls it first (DirectResult, HeldVersions::write_out()). Collective (nothing
  /// when the directory is made). Throws Error on every rank: "cannot create the tensor store
  /// DIR: ..."; "rank R (host H) does not see the tensor store DIR that rank 0 made for NAME: ..."
  /// where a rank does not see the directory that rank 0 (of its node, where per_node()) made.
  void make(const std::string& what);
  /// Whether `path` names a file in the store's directory (a version, not an input).
  bool contains(const std::string& path) const;
  /// Whether every rank runs on rank 0's host and sees the directory the store is made in as
  /// rank 0 does (the same device and inode): its files are then one page cache's, and mappings
  /// that several ranks write are coherent. Else (ranks on several nodes, or node-local scratch)
  /// a program output is written in its output's directory with explicit requests
  /// (DirectResult). Always true on one rank.
  bool coherent() const { return coherent_; }
  /// Whether the store is one directory per node: the ranks see the directory it is made in as
  /// several different directories (node-local scratch on several nodes: the ranks sharing one
  /// host's view of it are a node). Each node then holds every version whole in its own
  /// directory (dir() differs by node: STORE-node<K>), written by its own ranks, and complete()
  /// copies each rank's elements to the other nodes over MPI; no rank reads, maps or renames a
  /// file that a rank of another node writes. Never with a checkpoint's directory.
  bool per_node() const { return nodes_ > 1; }
  /// The number of nodes of a per_node() store, else 1.
  int nodes() const { return nodes_; }
  /// The ranks of this rank's node (ranks sharing its view of the store's directory), rank 0
  /// of it first; the whole run's context where the store is not per_node().
  const Context& node() const { return per_node() ? *node_ : ctx_; }
  /// Of a per_node() store: makes the version file `path` (a .npy of `elements` elements whose
  /// data start at `data_offset_bytes`) whole on every node, after every rank wrote its own
  /// elements into its node's file (which holds +0.0 wherever no rank of the node wrote): each
  /// node's local rank j < S (S: the fewest ranks of a node) takes the j-th of S balanced
  /// element ranges, and for that range the nodes' files are combined by bitwise OR
  /// (allreduce_file(), Combine::BitwiseOr, among the ranks of local rank j) and written back.
  /// Every element must have been written on exactly one node. Counted (bytes, per rank, m its
  /// range's elements): disk read 8·m, disk write 8·m, network as allreduce() of m elements over
  /// the nodes; chunks of kCompletionChunkElements (spec/step_memory.h). Collective
  /// (nothing where the store is not per_node()). Throws Error on I/O and MPI errors.
  void complete(const std::string& path, std::uint64_t elements, std::uint64_t data_offset_bytes) const;

  /// The latest version of `name` (a path), or "" when no step wrote it.
  std::string latest(const std::string& name) const;
  /// The version before the latest, or "" (what an accumulating step started from).
  std::string previous(const std::string& name) const;
  /// Registers and returns the path of the next version of `name` (every rank, same order):
  /// STORE/NAME.vN.npy with N counting the versions of the whole run (a released name that is
  /// written again gets a new file name); drops a kept version of `name` (it is superseded).
  std::string next_version(const std::string& name);
  /// Registers and returns the path of the next version of `name`, a program output whose file is
  /// `output`, as a file beside it (DirectResult): OUTPUT.part-<pid of rank 0>-v<N>, or for an
  /// HDF5 `output` (`hdf5`) OUTPUT.NAME.part-<pid>-v<N>.npy (one HDF5 file may hold several
  /// outputs), N counting the versions of `name`. export_outputs() renames the last .npy one
  /// into place (output_version()) or writes its dataset from it; the destructor removes the
  /// others. Collective (rank 0's process id, broadcast); every rank in the same order.
  std::string add_output_version(const std::string& name, const std::string& output, bool hdf5);
  /// Whether `path` is a version that add_output_version() registered.
  bool output_version(const std::string& path) const { return outside_.count(path) > 0; }

  /// Whether a step that adds to the latest version of `name` and reads the tensors `operands`
  /// may update that version's file in place (DirectResult::Update::InPlace) instead of writing
  /// the next version: the store holds a version of `name` (not kept on the ranks), no operand is
  /// `name`, and nothing needs the values it holds now: no checkpoint (it names the version), no
  /// --verify (it checks a step against the version the step started from), no --keep (it leaves
  /// every version for inspection). The same on every rank.
  bool updates_in_place(const std::string& name, std::initializer_list<std::string_view> operands) const;

  /// Every tensor's versions (what a checkpoint records).
  const StoreVersions& versions() const { return versions_; }
  /// Takes `versions` (a checkpoint's, paths in dir()) as the store's; the next version's N counts
  /// on from their largest.
  void resume(const StoreVersions& versions);
  /// Forgets every version of `name` and returns their paths, oldest first (none: empty). Their
  /// files stay: the caller closes them and then remove()s them or leaves them to the checkpoint.
  std::vector<std::string> forget(const std::string& name);
  /// Deletes the file of forgotten version `path` (rank 0; other ranks: nothing): gives it to
  /// spare_files() for a next version of its size to be written in, or removes it on a thread of
  /// its own that the destructor waits for, so that a step does not wait while the file system
  /// frees its pages and blocks (unlinks took about 5% of tcec-ccsd's iteration on H2O/cc-pVDZ).
  void remove(const std::string& path);

 private:
  /// The store's directory, removed with its files by rank 0 at destruction unless kept.
  struct Directory {
    std::string path;
    bool remove = false;
    bool made = true;  // false: named only (make())
    ~Directory();
  };
  /// Where the ranks do not share one view of `parent` (the directory the store is made in):
  /// the nodes of per_node(), and this node's directory name. Collective.
  void split_nodes(const std::string& parent);
  /// The thread that removes released files, one per process.
  static IoWorker& remover();

  const Context& ctx_;
  KeptTensors& kept_;
  bool in_place_ = false;                  // no checkpoint, --verify or --keep (updates_in_place())
  bool coherent_ = true;                   // coherent()
  int nodes_ = 1;                          // per_node(): the number of nodes, else 1
  int node_ranks_ = 1;                     // the fewest ranks of a node (complete()'s S)
  std::unique_ptr<Context> node_, peers_;  // per_node(): this node's ranks; the ranks of this local rank
  Directory dir_;
  StoreVersions versions_;
  std::uint64_t versions_made_ = 0;  // N of the last NAME.vN.npy
  std::uint64_t last_removal_ = 0;   // the ticket of this store's last removal (0: none)
  std::set<std::string> outside_;    // add_output_version()'s paths
};

}  // namespace tcert
