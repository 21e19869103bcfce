// runtime/program/kept_tensors.cpp — KeptTensors (kept_tensors.h).
#include "runtime/program/kept_tensors.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "runtime/base/error.h"

namespace tcert {

KeptTensors::KeptTensors(std::vector<TensorShape> outputs) : outputs_(std::move(outputs)) {}

void KeptTensors::keep(KeptTensor tensor) {
  const std::string name = tensor.shape.name;
  if (std::any_of(outputs_.begin(), outputs_.end(), [&](const TensorShape& t) { return t.name == name; }))
    throw Error("output " + name + " cannot be kept on the ranks; outputs go to the store");
  drop(name);  // superseded
  kept_[name] = std::make_unique<KeptTensor>(std::move(tensor));
}

KeptTensor* KeptTensors::find(const std::string& name) {
  const auto it = kept_.find(name);
  return it == kept_.end() ? nullptr : it->second.get();
}

void KeptTensors::drop(const std::string& name) {
  if (std::unique_ptr<KeptTensor> gone = withdraw(name); gone && gone->file) gone->file->file().remove();
}

std::unique_ptr<KeptTensor> KeptTensors::withdraw(const std::string& name) {
  const auto it = kept_.find(name);
  if (it == kept_.end()) return nullptr;
  std::unique_ptr<KeptTensor> out = std::move(it->second);
  kept_.erase(it);
  return out;
}

void KeptTensors::hold_resident(const std::string& name, Buffer block) {
  if (!resident_name_.empty())
    throw Error(fmt::format("a resident accumulation of {} starts while {} is still held", name, resident_name_));
  resident_name_ = name, resident_ = std::move(block);
}

Buffer& KeptTensors::resident(const std::string& name) {
  if (resident_name_ != name)
    throw Error(fmt::format("a resident accumulation step of {} found no block of it held by an earlier step", name));
  return resident_;
}

void KeptTensors::drop_resident() { resident_name_.clear(), resident_ = Buffer(); }

}  // namespace tcert
