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
#include "runtime/storage/io_worker.h"
#include "runtime/storage/spare_files.h"

namespace tcert {

namespace {

/// Whether every rank of `ctx` runs on rank 0's host and sees rank 0's directory `dir` (the same
/// device and inode of it, or of its nearest existing ancestor: it may be made later), so that
/// the files under it are one page cache's. Collective.
bool one_page_cache(const Context& ctx, const std::string& dir) {
  if (ctx.size() == 1) return true;
  std::filesystem::path at = std::filesystem::absolute(dir);
  struct stat st {};
  while (::stat(at.c_str(), &st) != 0 && at.has_relative_path()) at = at.parent_path();
  const std::string mine = fmt::format("{} {} {} {}", host_name(), at.string(), st.st_dev, st.st_ino);
  return ctx.all_true(mine == ctx.bcast_string(mine));
}

}  // namespace

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
  dir_.remove = ctx_.rank() == 0 && !options.keep;
  coherent_ = one_page_cache(ctx_, std::filesystem::path(dir_.path).parent_path().string());
}

TensorStore::~TensorStore() {
  if (last_removal_ != 0) remover().wait(last_removal_);  // before the directory goes
  if (ctx_.rank() != 0) return;
  std::error_code ignored;  // renamed into place by export_outputs(), else left by a failed run
  for (const std::string& path : outside_) std::filesystem::remove(path, ignored);
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
  ctx_.check_root([&] {
    std::error_code ec;  // --scratch DIR itself too: the scratch directory, lazy as well, may not have made it
    std::filesystem::create_directories(std::filesystem::path(dir_.path).parent_path(), ec);
    if (ec || ::mkdir(dir_.path.c_str(), 0700) != 0)
      throw Error("cannot create the tensor store " + dir_.path + ": " + (ec ? ec.message() : std::strerror(errno)));
  });
  dir_.made = true;
  if (ctx_.size() == 1) return;
  // Every rank reads and writes the store's files: its directory must be one all ranks see.
  std::optional<std::string> unseen;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir_.path, ec))
    unseen = fmt::format(
        "rank {} (host {}) does not see the tensor store {} that rank 0 made for {}: every rank reads and writes "
        "the store, so its directory (--scratch DIR, else $TMPDIR, else /tmp) must be one every node mounts; give "
        "--scratch a shared directory, or --checkpoint DIR on one (the store is then DIR/store); a program compiled "
        "for a machine with ranks_per_node keeps its intermediates on the ranks instead",
        ctx_.rank(), host_name(), dir_.path, what);
  if (const std::optional<std::string> error = ctx_.first_error(unseen)) throw Error(*error);  // dir_ removes it
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
  return in_place_ && !latest(name).empty() && kept_.find(name) == nullptr &&
         std::find(operands.begin(), operands.end(), name) == operands.end();
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
  if (ctx_.rank() == 0 && !spare_files().give(path, std::filesystem::path(dir_.path).parent_path().string()))
    last_removal_ = remover().submit([path] { std::remove(path.c_str()); });
}

}  // namespace tcert
