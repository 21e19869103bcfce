// runtime/program/tensor_store.cpp — TensorStore (tensor_store.h).
#include "runtime/program/tensor_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/program/kept_tensors.h"
#include "runtime/program/shared_paths.h"
#include "runtime/spec/step_memory.h"
#include "runtime/storage/disk.h"
#include "runtime/storage/io_worker.h"
#include "runtime/storage/spare_files.h"

namespace tcert {

namespace {

/// This rank's view of directory `dir`: its host and the device and inode of `dir`, or of its
/// nearest existing ancestor (it may be made later). Ranks with the same view share one page
/// cache of the files under it.
std::string view_of(const std::string& dir) {
  std::filesystem::path at = std::filesystem::absolute(dir);
  struct stat st {};
  while (::stat(at.c_str(), &st) != 0 && at.has_relative_path()) at = at.parent_path();
  return fmt::format("{} {} {} {}", host_name(), at.string(), st.st_dev, st.st_ino);
}

/// Whether every rank of `ctx` has rank 0's view_of(`dir`). Collective.
bool one_page_cache(const Context& ctx, const std::string& dir) {
  if (ctx.size() == 1) return true;
  const std::string mine = view_of(dir);
  return ctx.all_true(mine == ctx.bcast_string(mine));
}

}  // namespace

std::vector<int> nodes_by_view(const Context& ctx, const std::string& dir) {
  const std::vector<std::uint64_t> views = ctx.gather_u64(std::hash<std::string>{}(view_of(dir)));
  std::vector<std::uint64_t> firsts;  // each node's view, by node number
  std::vector<int> node_of(views.size());
  for (std::size_t r = 0; r < views.size(); ++r) {
    const auto at = std::find(firsts.begin(), firsts.end(), views[r]);
    node_of[r] = static_cast<int>(at - firsts.begin());
    if (at == firsts.end()) firsts.push_back(views[r]);
  }
  return node_of;
}

TensorStore::TensorStore(const Context& ctx, const RunOptions& options, const std::string& checkpoint_dir,
                         KeptTensors& kept)
    : ctx_(ctx), kept_(kept), in_place_(checkpoint_dir.empty() && !options.verify && !options.keep) {
  if (!checkpoint_dir.empty()) {  // the checkpoint's; it outlives a failed run
    dir_.path = checkpoint_dir;
    coherent_ = one_page_cache(ctx_, dir_.path);
    return;
  }
  ctx_.check_root([&] {  // named now, made by the first write (make()), if any
    const char* tmp = std::getenv("TMPDIR");
    const std::string base = !options.store_base.empty() ? options.store_base
                             : options.scratch.empty()   ? std::string(tmp && *tmp ? tmp : "/tmp")
                                                         : options.scratch;
    static std::atomic<std::uint64_t> runs{0};
    dir_.path = fmt::format("{}/tcec-store-{}-{}-{:08x}", base, ::getpid(), ++runs, std::random_device{}());
  });
  dir_.path = ctx_.bcast_string(dir_.path);
  dir_.made = false;
  const std::string parent = std::filesystem::path(dir_.path).parent_path().string();
  coherent_ = one_page_cache(ctx_, parent);
  if (!coherent_) split_nodes(parent);
  dir_.remove = node().rank() == 0 && !options.keep;
}

void TensorStore::split_nodes(const std::string& parent) {
  // Nodes: the ranks with one view of the directory the store is made in; one node (a shared
  // directory, seen from several hosts) stays one store.
  const std::vector<int> node_of = nodes_by_view(ctx_, parent);
  std::vector<int> local_of(node_of.size()), size_of;
  for (std::size_t r = 0; r < node_of.size(); ++r) {
    const auto node = static_cast<std::size_t>(node_of[r]);
    if (node == size_of.size()) size_of.push_back(0);
    local_of[r] = size_of[node]++;
  }
  if (size_of.size() < 2) return;
  nodes_ = static_cast<int>(size_of.size());
  node_ranks_ = *std::min_element(size_of.begin(), size_of.end());
  const auto me = static_cast<std::size_t>(ctx_.rank());
  node_ = std::make_unique<Context>(ctx_.split(node_of[me], ctx_.rank()));
  peers_ = std::make_unique<Context>(ctx_.split(local_of[me], node_of[me]));
  dir_.path += fmt::format("-node{}", node_of[me]);
  set_nodes(ctx_, node_of);  // from now on, the counters tell the bytes that cross nodes
}

TensorStore::~TensorStore() {
  if (last_removal_ != 0) remover().wait(last_removal_);  // before the directory goes
  if (ctx_.rank() == 0) {
    std::error_code ignored;  // renamed into place by export_outputs(), else left by a failed run
    for (const std::string& path : outside_) std::filesystem::remove(path, ignored);
  }
  if (node_) Context::free_split(*node_);
  if (peers_) Context::free_split(*peers_);
  if (nodes_ > 1) clear_nodes();
}

TensorStore::Directory::~Directory() {
  if (!remove || !made) return;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

IoWorker& TensorStore::remover() {
  static IoWorker worker;
  return worker;
}

void TensorStore::make(const std::string& what) {
  if (dir_.made) return;
  const Context& node = this->node();  // per_node(): each node makes its own
  node.check_root([&] {
    std::error_code ec;  // --scratch DIR itself too: the scratch directory, lazy as well, may not have made it
    std::filesystem::create_directories(std::filesystem::path(dir_.path).parent_path(), ec);
    if (ec || ::mkdir(dir_.path.c_str(), 0700) != 0)
      throw Error("cannot create the tensor store " + dir_.path + ": " + (ec ? ec.message() : std::strerror(errno)));
  });
  dir_.made = true;
  if (node.size() == 1) return;
  // Every rank of the node reads and writes the store's files: its directory must be one they all see.
  std::optional<std::string> unseen;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir_.path, ec))
    unseen = fmt::format(
        "rank {} (host {}) does not see the tensor store {} that rank 0 made for {}: every rank reads and writes "
        "the store, so its directory (--scratch DIR, else $TMPDIR, else /tmp) must be one every node mounts; give "
        "--scratch a shared directory, or --checkpoint DIR on one (the store is then DIR/store); a program compiled "
        "for a machine with ranks_per_node keeps its intermediates on the ranks instead",
        ctx_.rank(), host_name(), dir_.path, what);
  if (const std::optional<std::string> error = node.first_error(unseen)) throw Error(*error);  // dir_ removes it
}

void TensorStore::complete(const std::string& path, std::uint64_t elements, std::uint64_t data_offset_bytes) const {
  if (!per_node()) return;
  const auto j = static_cast<std::uint64_t>(node_->rank()), S = static_cast<std::uint64_t>(node_ranks_);
  if (j >= S) return;  // a node's ranks beyond the fewest any node has: the others' ranges
  const std::uint64_t first = j * (elements / S) + std::min(j, elements % S);
  const std::uint64_t n = elements / S + (j < elements % S ? 1 : 0);
  std::vector<double> buffer(2 * kCompletionChunkElements);  // not tile memory (step_memory.h)
  DiskFile file(path);
  allreduce_file(*peers_, file, &file, data_offset_bytes / sizeof(double) + first, static_cast<std::size_t>(n), buffer,
                 Combine::BitwiseOr);
}

bool TensorStore::contains(const std::string& path) const {
  return path.compare(0, dir_.path.size() + 1, dir_.path + "/") == 0;
}

std::string TensorStore::latest(const std::string& name) const {
  auto it = versions_.find(name);
  return it == versions_.end() || it->second.empty() ? "" : it->second.back();
}

std::string TensorStore::previous(const std::string& name) const {
  auto it = versions_.find(name);
  return it == versions_.end() || it->second.size() < 2 ? "" : it->second[it->second.size() - 2];
}

std::string TensorStore::add_output_version(const std::string& name, const std::string& output, bool hdf5) {
  std::vector<std::string>& v = versions_[name];  // an output is never kept (KeptTensors::keep()): nothing to drop
  const std::string stem = hdf5 ? fmt::format("{}.{}", output, name) : output;
  v.push_back(ctx_.bcast_string(fmt::format("{}.part-{}-v{}{}", stem, ::getpid(), v.size() + 1, hdf5 ? ".npy" : "")));
  outside_.insert(v.back());
  return v.back();
}

std::string TensorStore::next_version(const std::string& name) {
  kept_.drop(name);  // superseded
  std::vector<std::string>& v = versions_[name];
  v.push_back(fmt::format("{}/{}.v{}.npy", dir_.path, name, ++versions_made_));
  return v.back();
}

bool TensorStore::updates_in_place(const std::string& name, std::initializer_list<std::string_view> operands) const {
  // Per node: a version is written anew (complete() needs +0.0 where another node's ranks write).
  return in_place_ && !latest(name).empty() && (!per_node() || output_version(latest(name))) &&
         kept_.find(name) == nullptr && std::find(operands.begin(), operands.end(), name) == operands.end();
}

void TensorStore::resume(const StoreVersions& versions) {
  versions_ = versions;
  for (const auto& [name, paths] : versions_)
    for (const std::string& path : paths)  // STORE/NAME.vN.npy: N counts on from the largest
      versions_made_ = std::max<std::uint64_t>(
          versions_made_, std::stoull(path.substr(path.rfind(".v") + 2, path.size() - path.rfind(".v") - 6)));
}

std::vector<std::string> TensorStore::forget(const std::string& name) {
  const auto it = versions_.find(name);
  if (it == versions_.end()) return {};
  std::vector<std::string> paths = std::move(it->second);
  versions_.erase(it);
  return paths;
}

void TensorStore::remove(const std::string& path) {
  // Per node: no spare files (a next version must start as zeros, complete()).
  if (node().rank() == 0 &&
      (per_node() || !spare_files().give(path, std::filesystem::path(dir_.path).parent_path().string())))
    last_removal_ = remover().submit([path] { std::remove(path.c_str()); });
}

}  // namespace tcert
