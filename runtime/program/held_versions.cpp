// runtime/program/held_versions.cpp — HeldVersions (held_versions.h).
#include "runtime/program/held_versions.h"

#include <utility>

#include "runtime/program/mapped_inputs.h"
#include "runtime/program/tensor_store.h"
#include "runtime/spec/units.h"
#include "runtime/storage/spare_files.h"

namespace tcert {

HeldVersions::HeldVersions(const Context& ctx, const RunOptions& options, TensorStore& store, bool defers)
    : ctx_(ctx), store_(store), defers_(defers), sync_results_(options.sync_results) {}

void HeldVersions::hold(const std::string& path, FileMemory data) {
  const std::uint64_t bytes = bytes_of(data.size());
  if (bytes == 0 || ctx_.size() != 1 || held_bytes_ + bytes > MappedInputs::drop_bytes()) return;  // back to the pool
  take(path);
  held_bytes_ += bytes;
  held_.emplace(path, Held{std::move(data), {}, true});
}

void HeldVersions::hold_unwritten(const std::string& path, const TensorShape& tensor, FileMemory data,
                                  bool new_version) {
  take(path);
  if (new_version) unfiled_.insert(path);
  held_bytes_ += bytes_of(data.size());
  held_.emplace(path, Held{std::move(data), {tensor.extents.begin(), tensor.extents.end()}, false});
  if (defers_ && held_bytes_ <= MappedInputs::drop_bytes()) return;
  write_out(path), take(path);  // past the bound: in the file only
}

const FileMemory* HeldVersions::unwritten(const std::string& path) const {
  const auto it = held_.find(path);
  return it == held_.end() || it->second.written ? nullptr : &it->second.data;
}

const FileMemory* HeldVersions::find(const std::string& path) const {
  const auto it = held_.find(path);
  return it == held_.end() ? nullptr : &it->second.data;
}

void HeldVersions::write_out(const std::string& path) {
  const auto it = held_.find(path);
  if (it == held_.end() || it->second.written) return;
  Held& held = it->second;
  if (unfiled_.count(path) != 0) {
    store_.make(path);
    write_npy(path, held.shape, held.data.data(), sync_results_, &spare_files());
    unfiled_.erase(path);
  } else {  // the file's data in place: its mappings (patch_latest(), read_npy()) see them
    NpyUpdate file(path, sync_results_, std::move(held.data));
    file.write_back();
    held.data = file.take_memory();
  }
  held.written = true;
}

FileMemory HeldVersions::take(const std::string& path) {
  const auto it = held_.find(path);
  if (it == held_.end()) return {};
  FileMemory data = std::move(it->second.data);
  held_.erase(it);
  held_bytes_ -= bytes_of(data.size());
  return data;
}

bool HeldVersions::drop(const std::string& path) {
  take(path);
  return unfiled_.erase(path) != 0;
}

}  // namespace tcert
