// runtime/program/run.cpp — Run: the run's start, its steps, releases and end, over its parts.
#include "runtime/program/run.h"

#include <cstdio>

#include <fmt/format.h>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/base/fault.h"
#include "runtime/base/random.h"
#include "runtime/program/shared_paths.h"
#include "runtime/program/tensor_files.h"
#include "runtime/storage/element_file.h"

namespace tcert {

Run::Run(const Context& ctx, RunOptions options, TensorLocations tensors, ProgramInfo info)
    : ctx_(ctx),
      options_(std::move(options)),
      tensors_(std::move(tensors)),
      info_(std::move(info)),
      scratch_(start()),
      checkpoints_(ctx_, options_, tensors_, info_),
      kept_(info_.outputs),
      store_(ctx_, options_, checkpoints_.store_dir(), kept_),
      held_(ctx_, options_, store_, defers_writes()),
      mapped_(store_, held_, options_, info_.memory_bytes),
      records_(ctx_, options_, info_, checkpoints_) {
  ctx_.check_root([&] { check_locations(info_, tensors_, options_); });  // makes the output directories
  check_parts(ctx_, info_, tensors_);
  check_shared_paths(ctx_, shared_paths(options_, tensors_));
  warn_if_not_the_planned_nodes();
  if (checkpoints_.resumed()) {  // HDF5 inputs were imported before the checkpoint
    store_.resume(checkpoints_.resumed_versions());
    if (shows_progress())
      std::fprintf(stderr, "%s: resuming from the checkpoint in %s: %d of %d steps done\n", info_.name.c_str(),
                   options_.checkpoint.c_str(), checkpoints_.resumed_steps(), info_.steps);
    return;
  }
  import_inputs(*this);
  if (checkpoints_.active()) checkpoints_.save_first(store_.versions());
}

Run::~Run() = default;

void Run::warn_if_not_the_planned_nodes() const {
  const std::int64_t R = info_.ranks_per_node, P = info_.processors;
  const std::int64_t planned = R > 0 && R < P ? (P + R - 1) / R : 1, here = store_.nodes();
  if (planned == here || ctx_.rank() != 0 || options_.quiet) return;
  if (here > 1)
    std::fprintf(stderr,
                 "%s: warning: the plans are for %s, but the ranks see the scratch as node-local on %lld nodes: the "
                 "tensor store is one directory per node and each version written there is copied to every node, "
                 "%s (compile for a machine with ranks_per_node)\n",
                 info_.name.c_str(), planned == 1 ? "one node" : fmt::format("{} nodes", planned).c_str(),
                 static_cast<long long>(here),
                 planned == 1 ? "which the prediction does not count" : "not as the prediction counts it");
  else
    std::fprintf(stderr,
                 "%s: warning: the plans are for %lld nodes with node-local scratch, but the tensor store is one "
                 "directory all ranks see: the copies of its versions to every node that the prediction counts are "
                 "not made\n",
                 info_.name.c_str(), static_cast<long long>(planned));
}

std::unique_ptr<Scratch> Run::start() {
  if (ctx_.size() != info_.processors)  // the same on every rank
    throw Error(
        fmt::format("this program was planned for P = {} processes but runs on {}; start it "
                    "with mpirun -np {}",
                    info_.processors, ctx_.size(), info_.processors));
  counters().count_device(!options_.trace.empty());  // the trace's device bytes (off: no /proc reads)
  counters().reset();
  set_direct_reads(options_.buffered_reads ? 0 : info_.direct_read_bytes);
  bound_heap_threshold();
  budget().set_limit_bytes(info_.memory_bytes);
  budget().reset_peak();
  std::unique_ptr<Scratch> scratch;
  if (!defers_writes())  // else the first scratch() makes it
    ctx_.check_all([&] { scratch = std::make_unique<Scratch>(options_.scratch, ctx_.rank(), options_.keep); });
  return scratch;
}

Scratch& Run::scratch() {
  if (!scratch_) scratch_ = std::make_unique<Scratch>(options_.scratch, ctx_.rank(), options_.keep);
  return *scratch_;
}

ElementSource Run::input(const TensorShape& tensor) {
  if (const KeptTensor* k = kept_.find(tensor.name); k && !k->shadowed)
    throw Error("tensor " + tensor.name +
                " is kept on the ranks and has no version in the store; a step must take it "
                "rank to rank or flush it first");
  const std::string stored = store_.latest(tensor.name);
  if (!stored.empty()) return mapped_.read_npy(stored, tensor);
  if (const auto at = tensors_.inputs.find(tensor.name); at != tensors_.inputs.end()) {
    if (file_format(at->second.path) != FileFormat::Npy)  // HDF5 inputs are in the store since the start
      throw Error("input " + tensor.name + ": " + at->second.path + " was not imported into the store");
    return mapped_.read_npy(at->second.path, tensor);
  }
  if (options_.random_seed) {
    const std::uint64_t seed = *options_.random_seed, id = tensor_id_of(tensor.name);
    return ElementSource([seed, id](std::uint64_t linear) { return random_element(seed, id, linear); });
  }
  throw Error("input " + tensor.name + ": no location given and no random seed");
}

Workspace& Run::kernel_workspace() {
  static Workspace workspace;
  return workspace;
}

void Run::step(void (*step)(Run&)) {
  checkpoints_.save(store_.versions(), kept_.empty());
  if (!checkpoints_.begin_step(store_.versions())) return;
  mapped_.bound_pages(budget().in_use_bytes());  // a contraction bounds them by its plan (begin_contraction())
  step(*this);
  fault_point(ctx_.rank(), fmt::format("step:{}", checkpoints_.step()));
}

void Run::end_step() {
  mapped_.drop_if_due();
  kernel_workspace().trim(kKeptFreeHeapBytes);
  release_free_heap();
}

void Run::release(const std::string& name) {
  kept_.drop(name);
  for (const std::string& path : store_.forget(name)) {
    mapped_.close(path);
    if (held_.drop(path)) continue;  // held unwritten, dropped: no file to remove
    if (checkpoints_.active())
      checkpoints_.remove_later(path);  // the checkpoint on disk may still name it
    else
      store_.remove(path);
  }
  ctx_.barrier();
}

void Run::finish() {
  checkpoints_.save(store_.versions(), kept_.empty());
  export_outputs(*this);
  records_.write_trace(checkpoints_.resumed_steps());
  records_.print_summary();
  // The run is complete (also when the verification failed: a resume would skip every step and
  // so the verification too).
  checkpoints_.discard();
  records_.check_passed();
}

}  // namespace tcert
