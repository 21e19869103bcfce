// runtime/program/mapped_inputs.cpp — MappedInputs (mapped_inputs.h).
#include "runtime/program/mapped_inputs.h"

#include <sys/stat.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "runtime/base/error.h"
#include "runtime/base/memory.h"
#include "runtime/program/held_versions.h"
#include "runtime/program/tensor_store.h"
#include "runtime/spec/units.h"

namespace tcert {

namespace {

/// An input file mapped for the process (MappedInputs::read_npy()) and the identity of the file
/// it maps.
struct MappedInput {
  std::shared_ptr<NpyReader> reader;
  struct stat file {};
};

/// Whether `a` and `b` describe the same file, unchanged: device, inode, size, modification time.
bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

/// The process's mapped inputs, by path. For the thread that runs the steps (the I/O thread only
/// drops their pages, while no step opens one).
std::map<std::string, MappedInput>& process_inputs() {
  static std::map<std::string, MappedInput> inputs;
  return inputs;
}

/// The growth of resident mapped pages since the last drop, over the process (touched()): input
/// mappings outlive a run (read_npy()), and so do their pages.
ResidentGuard& guard() {
  static ResidentGuard guard(MappedInputs::kDropBytes);
  return guard;
}

/// The reader of input file `path` kept for the process, opened again when the file changed.
std::shared_ptr<NpyReader> process_reader(const std::string& path, const struct stat& file) {
  const auto kept = process_inputs().find(path);
  if (kept != process_inputs().end() && same_file(kept->second.file, file)) return kept->second.reader;
  auto reader = std::make_shared<NpyReader>(path);  // throws before the map holds it
  process_inputs()[path] = {reader, file};
  return reader;
}

}  // namespace

MappedInputs::MappedInputs(const TensorStore& store, HeldVersions& held, const RunOptions& options,
                           std::uint64_t memory_bytes)
    : store_(store),
      held_(held),
      sync_results_(options.sync_results),
      memory_bytes_(memory_bytes),
      stream_bytes_(options.stream_bytes) {
  bound_pages(budget().in_use_bytes());  // the mapped pages earlier runs left, within this run's bound
}

MappedInputs::~MappedInputs() {
  readers_.clear(), patches_.clear();
  for (auto it = process_inputs().begin(); it != process_inputs().end();) {  // files gone or changed
    struct stat now {};
    const bool same = ::stat(it->first.c_str(), &now) == 0 && same_file(now, it->second.file);
    it = same ? std::next(it) : process_inputs().erase(it);
  }
}

ElementSource MappedInputs::read_npy(const std::string& path, const TensorShape& tensor) {
  if (const FileMemory* held = held_.find(path)) {
    if (held->size() == tensor.elements()) return ElementSource(held->data());  // this process wrote them
    held_.write_out(path);  // the file's shape check says what is wrong
  }
  auto it = readers_.find(path);
  if (it == readers_.end()) {
    std::shared_ptr<NpyReader> reader;
    struct stat file {};
    if (!store_.contains(path) && ::stat(path.c_str(), &file) == 0)  // else NpyReader says what is wrong
      reader = process_reader(path, file);
    else
      reader = std::make_shared<NpyReader>(path);
    const std::vector<std::uint64_t> expected(tensor.extents.begin(), tensor.extents.end());
    check_shape(reader->header(), expected, tensor.name);
    it = readers_.emplace(path, std::move(reader)).first;
  }
  const NpyReader& reader = *it->second;
  if (streams(bytes_of(reader.size()))) return ElementSource(reader.file(), reader.data());
  return ElementSource(reader.data());
}

NpyPatch& MappedInputs::patch_latest(const std::string& name) {
  const std::string path = store_.latest(name);
  if (path.empty()) throw Error("tensor " + name + " has no version in the store to update in place");
  held_.write_out(path), held_.take(path);  // written through the mapping from now on
  std::unique_ptr<NpyPatch>& patch = patches_[path];
  if (!patch) patch = std::make_unique<NpyPatch>(path, sync_results_);
  return *patch;
}

void MappedInputs::close(const std::string& path) { readers_.erase(path), patches_.erase(path); }

void MappedInputs::touched(std::uint64_t bytes, std::uint64_t accesses) {
  if (!guard().touched(bytes, accesses)) return;
  drop_pages();
  guard().dropped();
}

void MappedInputs::drop_if_due() {
  if (!guard().due()) return;
  drop_pages();
  guard().dropped();
}

std::uint64_t MappedInputs::drop_bytes() { return guard().limit(); }

void MappedInputs::bound_pages(std::uint64_t tile_bytes) {
  const std::uint64_t left = memory_bytes_ > tile_bytes ? memory_bytes_ - tile_bytes : 0;
  guard().set_limit(std::max(kDropBytes, left / 2));
  drop_if_due();
}

void MappedInputs::drop_pages() {
  for (const auto& [path, input] : process_inputs()) input.reader->drop_pages();
  for (const auto& [path, reader] : readers_)
    if (reader.use_count() == 1) reader->drop_pages();  // a store version (the others: above)
  for (const auto& [path, patch] : patches_) patch->drop_pages();
}

}  // namespace tcert
