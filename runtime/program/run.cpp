// runtime/program/run.cpp — Run: options, scratch, store, inputs, and the end-of-run trace and summary.
#include "runtime/program/run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/base/error.h"
#include "runtime/base/fault.h"
#include "runtime/base/memory.h"
#include "runtime/base/random.h"
#include "runtime/base/trace.h"
#include "runtime/kernel/kernel.h"
#include "runtime/program/tensor_files.h"
#include "runtime/storage/io_worker.h"
#include "runtime/storage/npy.h"
#include "runtime/storage/spare_files.h"

namespace tcert {

namespace {

constexpr double kVerifyTolerance = 1e-10;
constexpr const char* kVolumeNames[5] = {"disk_read_bytes", "disk_write_bytes", "comm_sent_bytes", "comm_recv_bytes",
                                         "disk_requests"};

nlohmann::json volumes_json(const std::vector<std::uint64_t> (&v)[5]) {
  nlohmann::json out = nlohmann::json::object();
  for (int q = 0; q < 5; ++q) out[kVolumeNames[q]] = v[q];
  return out;
}

bool volumes_equal(const ContractionRecord& r) {
  if (r.resumed_at != 0) return false;  // part of the contraction ran before the resume
  for (int q = 0; q < 5; ++q)
    if (r.predicted[q] != r.measured[q]) return false;
  for (int q = 0; q < 3; ++q)  // requests: unless an older program predicts none
    if ((q < 2 || !r.redistribution_predicted[q].empty()) &&
        r.redistribution_predicted[q] != r.redistribution_measured[q])
      return false;
  return true;
}

}  // namespace

Run::Run(const Context& ctx, RunOptions options, TensorLocations tensors, ProgramInfo info)
    : ctx_(ctx), options_(std::move(options)), tensors_(std::move(tensors)), info_(std::move(info)) {
  if (ctx_.size() != info_.processors)  // the same on every rank
    throw Error(
        fmt::format("this program was planned for P = {} processes but runs on {}; start it "
                    "with mpirun -np {}",
                    info_.processors, ctx_.size(), info_.processors));
  counters().reset();
  bound_heap_threshold();
  budget().set_limit_bytes(info_.memory_bytes);
  budget().reset_peak();
  bound_mapped_pages(budget().in_use_bytes());  // the mapped pages earlier runs left, within this run's bound
  if (!defers_writes())                         // else the first scratch() makes it
    ctx_.check_all([&] { scratch_ = std::make_unique<Scratch>(options_.scratch, ctx_.rank(), options_.keep); });
  if (!options_.checkpoint.empty()) {  // the store is the checkpoint's; it outlives a failed run
    checkpoint_ = std::make_unique<Checkpoint>(ctx_, info_, tensors_, options_);
    store_.path = checkpoint_->store_dir();
    ctx_.check_root([&] { check_locations(info_, tensors_, options_); });
    if (options_.resume) {
      resumed_steps_ = saved_steps_ = checkpoint_->steps_done();
      versions_ = checkpoint_->versions();
      for (const auto& [name, paths] : versions_)
        for (const std::string& path : paths)  // STORE/NAME.vN.npy: N counts on from the largest
          versions_made_ = std::max<std::uint64_t>(
              versions_made_, std::stoull(path.substr(path.rfind(".v") + 2, path.size() - path.rfind(".v") - 6)));
      if (shows_progress())
        std::fprintf(stderr, "%s: resuming from the checkpoint in %s: %d of %d steps done\n", info_.name.c_str(),
                     options_.checkpoint.c_str(), resumed_steps_, info_.steps);
      return;  // HDF5 inputs were imported before the checkpoint
    }
    import_inputs(*this);
    checkpoint_->save(0, versions_);
    since_save_ = Stopwatch();
    return;
  }
  ctx_.check_root([&] {
    const char* tmp = std::getenv("TMPDIR");
    const std::string base = options_.scratch.empty() ? std::string(tmp && *tmp ? tmp : "/tmp") : options_.scratch;
    store_.remove = !options_.keep;
    if (defers_writes()) {  // named now, made by the first write (make_store()), if any
      static std::atomic<std::uint64_t> runs{0};
      store_.path = fmt::format("{}/tcec-store-{}-{}-{:08x}", base, ::getpid(), ++runs, std::random_device{}());
      store_.made = false;
      return;
    }
    std::string pattern = base + "/tcec-store-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error("cannot create the tensor store " + pattern + ": " + std::strerror(errno));
    store_.path = pattern;
  });
  store_.path = ctx_.bcast_string(store_.path);
  ctx_.check_root([&] { check_locations(info_, tensors_, options_); });
  import_inputs(*this);
}

namespace {

/// An input file mapped for the process (Run::read_npy()) and the identity of the file it maps.
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
std::map<std::string, MappedInput>& mapped_inputs() {
  static std::map<std::string, MappedInput> inputs;
  return inputs;
}

}  // namespace

Run::~Run() {
  inputs_.clear(), patches_.clear();
  for (auto it = mapped_inputs().begin(); it != mapped_inputs().end();) {  // files gone or changed
    struct stat now {};
    const bool same = ::stat(it->first.c_str(), &now) == 0 && same_file(now, it->second.file);
    it = same ? std::next(it) : mapped_inputs().erase(it);
  }
  if (last_removal_ != 0) remover().wait(last_removal_);  // before the store's directory goes
}

IoWorker& Run::remover() {
  static IoWorker worker;
  return worker;
}

Scratch& Run::scratch() {
  if (!scratch_) scratch_ = std::make_unique<Scratch>(options_.scratch, ctx_.rank(), options_.keep);
  return *scratch_;
}

void Run::make_store() {
  if (store_.made) return;
  std::error_code ec;  // --scratch DIR itself too: the scratch directory, lazy as well, may not have made it
  std::filesystem::create_directories(std::filesystem::path(store_.path).parent_path(), ec);
  if (ec || ::mkdir(store_.path.c_str(), 0700) != 0)
    throw Error("cannot create the tensor store " + store_.path + ": " + (ec ? ec.message() : std::strerror(errno)));
  store_.made = true;
}

Run::StoreDirectory::~StoreDirectory() {
  if (!remove || !made) return;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

std::string Run::latest(const std::string& name) const {
  auto it = versions_.find(name);
  return it == versions_.end() || it->second.empty() ? "" : it->second.back();
}

std::string Run::previous(const std::string& name) const {
  auto it = versions_.find(name);
  return it == versions_.end() || it->second.size() < 2 ? "" : it->second[it->second.size() - 2];
}

std::string Run::next_version(const std::string& name) {
  drop_kept(name);  // superseded
  std::vector<std::string>& v = versions_[name];
  v.push_back(fmt::format("{}/{}.v{}.npy", store_.path, name, ++versions_made_));
  return v.back();
}

bool Run::updates_in_place(const std::string& name, std::initializer_list<std::string_view> operands) const {
  return !checkpoint_ && !options_.verify && !options_.keep && !latest(name).empty() && kept_.count(name) == 0 &&
         std::find(operands.begin(), operands.end(), name) == operands.end();
}

NpyPatch& Run::patch_latest(const std::string& name) {
  const std::string path = latest(name);
  if (path.empty()) throw Error("tensor " + name + " has no version in the store to update in place");
  write_out(path), take_in_memory(path);  // written through the mapping from now on
  std::unique_ptr<NpyPatch>& patch = patches_[path];
  if (!patch) patch = std::make_unique<NpyPatch>(path, options_.sync_results);
  return *patch;
}

void Run::hold_in_memory(const std::string& path, FileMemory data) {
  const std::uint64_t bytes = 8 * data.size();
  if (bytes == 0 || ctx_.size() != 1 || held_bytes_ + bytes > mapped_drop_bytes()) return;  // back to the pool
  take_in_memory(path);
  held_bytes_ += bytes;
  held_.emplace(path, Held{std::move(data), {}, true});
}

void Run::hold_unwritten(const std::string& path, const TensorShape& tensor, FileMemory data, bool new_version) {
  take_in_memory(path);
  if (new_version) unfiled_.insert(path);
  held_bytes_ += 8 * data.size();
  held_.emplace(path, Held{std::move(data), {tensor.extents.begin(), tensor.extents.end()}, false});
  if (defers_writes() && held_bytes_ <= mapped_drop_bytes()) return;
  write_out(path), take_in_memory(path);  // past the bound: in the file only
}

const FileMemory* Run::unwritten(const std::string& path) const {
  const auto it = held_.find(path);
  return it == held_.end() || it->second.written ? nullptr : &it->second.data;
}

void Run::write_out(const std::string& path) {
  const auto it = held_.find(path);
  if (it == held_.end() || it->second.written) return;
  Held& held = it->second;
  if (unfiled_.count(path) != 0) {
    make_store();
    write_npy(path, held.shape, held.data.data(), options_.sync_results, &spare_files());
    unfiled_.erase(path);
  } else {  // the file's data in place: its mappings (patch_latest(), read_npy()) see them
    NpyUpdate file(path, options_.sync_results, std::move(held.data));
    file.write_back();
    held.data = file.take_memory();
  }
  held.written = true;
}

FileMemory Run::take_in_memory(const std::string& path) {
  const auto it = held_.find(path);
  if (it == held_.end()) return {};
  FileMemory data = std::move(it->second.data);
  held_.erase(it);
  held_bytes_ -= 8 * data.size();
  return data;
}

void Run::keep(KeptTensor tensor) {
  const std::string name = tensor.shape.name;
  if (std::any_of(info_.outputs.begin(), info_.outputs.end(), [&](const TensorShape& t) { return t.name == name; }))
    throw Error("output " + name + " cannot be kept on the ranks; outputs go to the store");
  drop_kept(name);  // superseded
  kept_[name] = std::make_unique<KeptTensor>(std::move(tensor));
}

KeptTensor* Run::kept(const std::string& name) {
  const auto it = kept_.find(name);
  return it == kept_.end() ? nullptr : it->second.get();
}

void Run::drop_kept(const std::string& name) {
  if (std::unique_ptr<KeptTensor> gone = withdraw(name); gone && gone->file) gone->file->file().remove();
}

std::unique_ptr<KeptTensor> Run::withdraw(const std::string& name) {
  const auto it = kept_.find(name);
  if (it == kept_.end()) return nullptr;
  std::unique_ptr<KeptTensor> out = std::move(it->second);
  kept_.erase(it);
  return out;
}

void Run::release(const std::string& name) {
  drop_kept(name);
  auto it = versions_.find(name);
  if (it == versions_.end()) return ctx_.barrier();
  for (const std::string& path : it->second) {
    inputs_.erase(path), patches_.erase(path), take_in_memory(path);
    if (unfiled_.erase(path) != 0) continue;  // held unwritten, dropped: no file to remove
    if (checkpoint_)
      checkpoint_->remove_later(path);  // the checkpoint on disk may still name it
    else if (ctx_.rank() == 0 && !spare_files().give(path, std::filesystem::path(store_.path).parent_path().string()))
      last_removal_ = remover().submit([path] { std::remove(path.c_str()); });
  }
  versions_.erase(it);
  ctx_.barrier();
}

ElementSource Run::input(const TensorShape& tensor) {
  if (const KeptTensor* k = kept(tensor.name); k && !k->shadowed)
    throw Error("tensor " + tensor.name +
                " is kept on the ranks and has no version in the store; a step must take it "
                "rank to rank or flush it first");
  const std::string stored = latest(tensor.name);
  if (!stored.empty()) return read_npy(stored, tensor);
  if (const auto at = tensors_.inputs.find(tensor.name); at != tensors_.inputs.end()) {
    if (file_format(at->second.path) != FileFormat::Npy)  // HDF5 inputs are in the store since the start
      throw Error("input " + tensor.name + ": " + at->second.path + " was not imported into the store");
    return read_npy(at->second.path, tensor);
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

ResidentGuard& Run::mapped_guard() {
  static ResidentGuard guard(kMappedDropBytes);
  return guard;
}

void Run::end_step() {
  if (mapped_guard().due()) {
    drop_mapped_pages();
    mapped_guard().dropped();
  }
  kernel_workspace().trim(kKeptFreeHeapBytes);
  release_free_heap();
}

void Run::bound_mapped_pages(std::uint64_t tile_bytes) {
  const std::uint64_t memory = info_.memory_bytes, left = memory > tile_bytes ? memory - tile_bytes : 0;
  mapped_guard().set_limit(std::max(kMappedDropBytes, left / 2));
  if (!mapped_guard().due()) return;
  drop_mapped_pages();
  mapped_guard().dropped();
}

void Run::touched_mapped(std::uint64_t bytes, std::uint64_t accesses) {
  if (!mapped_guard().touched(bytes, accesses)) return;
  drop_mapped_pages();
  mapped_guard().dropped();
}

void Run::drop_mapped_pages() {
  for (const auto& [path, input] : mapped_inputs()) input.reader->drop_pages();
  for (const auto& [path, reader] : inputs_)
    if (reader.use_count() == 1) reader->drop_pages();  // a store version (the others: above)
  for (const auto& [path, patch] : patches_) patch->drop_pages();
}

ElementSource Run::read_npy(const std::string& path, const TensorShape& tensor) {
  if (const auto held = held_.find(path); held != held_.end()) {
    if (held->second.data.size() == tensor.elements())
      return ElementSource(held->second.data.data());  // this process wrote them (hold_in_memory())
    write_out(path);                                   // the file's shape check says what is wrong
  }
  auto it = inputs_.find(path);
  if (it == inputs_.end()) {
    std::shared_ptr<NpyReader> reader;
    const bool stored = path.compare(0, store_.path.size() + 1, store_.path + "/") == 0;
    struct stat file {};
    if (!stored && ::stat(path.c_str(), &file) == 0) {  // else NpyReader says what is wrong
      const auto kept = mapped_inputs().find(path);
      if (kept != mapped_inputs().end() && same_file(kept->second.file, file)) {
        reader = kept->second.reader;
      } else {
        reader = std::make_shared<NpyReader>(path);  // throws before the map holds it
        mapped_inputs()[path] = {reader, file};
      }
    } else {
      reader = std::make_shared<NpyReader>(path);
    }
    const std::vector<std::uint64_t> expected(tensor.extents.begin(), tensor.extents.end());
    check_shape(reader->header(), expected, tensor.name);
    it = inputs_.emplace(path, std::move(reader)).first;
  }
  const NpyReader& reader = *it->second;
  if (streams(8 * reader.size())) return ElementSource(reader.file(), reader.data());
  return ElementSource(reader.data());
}

void ElementSource::queue(std::uint64_t first, std::size_t n, double* out, std::size_t step) const {
  if (!pending_) pending_ = std::make_unique<RunReads>(*file_);
  pending_->add(first, n, out, step);
}

void ElementSource::flush() const {
  if (pending_) pending_->flush();
}

double ElementSource::lookup(std::uint64_t linear) const {
  if (lookup_ != nullptr) return lookup_[linear];
  double value = 0;
  file_->read(linear, 1, &value);
  return value;
}

void Run::hold_resident(const std::string& name, Buffer block) {
  if (!resident_name_.empty())
    throw Error(fmt::format("a resident accumulation of {} starts while {} is still held", name, resident_name_));
  resident_name_ = name, resident_ = std::move(block);
}

Buffer& Run::resident(const std::string& name) {
  if (resident_name_ != name)
    throw Error(fmt::format("a resident accumulation step of {} found no block of it held by an earlier step", name));
  return resident_;
}

void Run::drop_resident() { resident_name_.clear(), resident_ = Buffer(); }

void Run::step(void (*step)(Run&)) {
  save_checkpoint();
  if (++steps_ <= resumed_steps_) return;       // done before the checkpoint this run resumed from
  if (checkpoint_) step_versions_ = versions_;  // what a checkpoint inside the step holds
  bound_mapped_pages(budget().in_use_bytes());  // a contraction bounds them by its plan (begin_contraction())
  step(*this);
  fault_point(ctx_.rank(), fmt::format("step:{}", steps_));
}

void Run::save_checkpoint() {
  // Kept tensors live in the ranks' scratch files, outside the store, and a resident block in
  // memory: no consistent point.
  if (!checkpoint_ || steps_ <= saved_steps_ || !kept_.empty() || !resident_name_.empty()) return;
  checkpoint_->save(steps_, versions_);
  saved_steps_ = steps_;
  since_save_ = Stopwatch();
  fault_point(ctx_.rank(), fmt::format("checkpoint:{}", steps_));
}

bool Run::checkpoints_within() const {
  return checkpoint_ && options_.checkpoint_every >= 0 && saved_steps_ == steps_ - 1;
}

bool Run::within_due() {
  if (options_.checkpoint_every <= 0) return true;
  return ctx_.max_over_ranks(since_save_.seconds()) >= options_.checkpoint_every;
}

void Run::save_within(std::uint64_t position, std::uint64_t nest_steps, const PartialC& c) {
  checkpoint_->save_within(steps_ - 1, step_versions_, WithinStep{steps_, position, nest_steps}, c);
  since_save_ = Stopwatch();
  fault_point(ctx_.rank(), fmt::format("within:{}", ++within_saves_));
}

std::uint64_t Run::resume_within(std::uint64_t nest_steps, const PartialC& c) {
  if (!checkpoint_ || !checkpoint_->within() || checkpoint_->within()->step != steps_ || resumed_at_ != 0) return 0;
  const WithinStep& w = *checkpoint_->within();
  if (w.nest_steps != nest_steps)  // the same on every rank (the manifest's)
    throw Error(
        fmt::format("cannot resume from {}: its checkpoint inside step {} is for a loop nest of {} steps, "
                    "not {}",
                    options_.checkpoint, steps_, w.nest_steps, nest_steps));
  checkpoint_->restore_within(c);
  resumed_at_ = w.position, nest_steps_ = nest_steps;
  if (shows_progress())
    std::fprintf(stderr, "%s: resuming step %d inside its contraction, after %llu of %llu loop-nest steps\n",
                 info_.name.c_str(), steps_, static_cast<unsigned long long>(w.position),
                 static_cast<unsigned long long>(nest_steps));
  return w.position;
}

void Run::record(ContractionRecord record) {
  if (resumed_at_ != 0 && checkpoint_->within()->step == steps_)
    record.resumed_at = resumed_at_, record.nest_steps = nest_steps_;
  records_.push_back(std::move(record));
  fault_point(ctx_.rank(), fmt::format("compute:{}", steps_));
}

void Run::record_redistribution(std::vector<std::uint64_t> read, std::vector<std::uint64_t> write,
                                std::vector<std::uint64_t> requests, std::vector<double> seconds) {
  if (records_.empty()) throw Error("redistribution recorded before any contraction");
  records_.back().redistribution_measured[0] = std::move(read);
  records_.back().redistribution_measured[1] = std::move(write);
  records_.back().redistribution_measured[2] = std::move(requests);
  records_.back().redistribution_seconds = std::move(seconds);
}

void Run::record_verify(const VerifyResult& result) {
  verified_ = true;
  verify_.checked += result.checked;
  verify_.max_rel_error = std::max(verify_.max_rel_error, result.max_rel_error);
}

FileTransfers Run::gather_transfers(Phase phase) const {
  const Volumes v = counters().snapshot(phase);
  FileTransfers out{ctx_.gather_u64(v.disk_read_bytes), ctx_.gather_u64(v.disk_write_bytes), {}};
  for (std::uint64_t ns : ctx_.gather_u64(static_cast<std::uint64_t>(v.seconds * 1e9)))
    out.seconds.push_back(static_cast<double>(ns) * 1e-9);
  return out;
}

namespace {

nlohmann::json transfers_json(const FileTransfers& t) {
  return {{"disk_read_bytes", t.read_bytes}, {"disk_write_bytes", t.write_bytes}, {"seconds", t.seconds}};
}

nlohmann::json record_json(const ContractionRecord& r) {
  nlohmann::json measured = volumes_json(r.measured);
  measured["seconds"] = r.seconds;
  measured["disk_seconds"] = r.disk_seconds;
  measured["comm_seconds"] = r.comm_seconds;
  measured["kernel_seconds"] = r.kernel_seconds;
  nlohmann::json predicted = volumes_json(r.predicted);
  predicted["seconds"] = r.predicted_seconds;
  nlohmann::json stages_predicted = {{"disk_read_bytes", r.redistribution_predicted[0]},
                                     {"disk_write_bytes", r.redistribution_predicted[1]},
                                     {"seconds", r.redistribution_predicted_seconds}};
  if (!r.redistribution_predicted[2].empty()) stages_predicted["disk_requests"] = r.redistribution_predicted[2];
  if (r.resumed_at != 0) measured["resumed_at_nest_step"] = {r.resumed_at, r.nest_steps};
  return {{"statement", r.statement},
          {"plan", r.plan},
          {"comm", r.comm},
          {"algorithm", r.algorithm},
          {"order", r.order},
          {"predicted", predicted},
          {"measured", measured},
          {"peak_tile_memory_bytes", r.peak_tile_memory_bytes},
          {"planned_memory_bytes", r.planned_memory_bytes},
          {"redistribution",
           {{"predicted", stages_predicted},
            {"measured",
             {{"disk_read_bytes", r.redistribution_measured[0]},
              {"disk_write_bytes", r.redistribution_measured[1]},
              {"disk_requests", r.redistribution_measured[2]},
              {"seconds", r.redistribution_seconds}}}}}};
}

}  // namespace

void Run::finish() {
  save_checkpoint();
  export_outputs(*this);
  const bool passed = !verified_ || verify_.max_rel_error <= kVerifyTolerance;
  if (!options_.trace.empty()) {  // the same on every rank: the gathers are collective
    const std::vector<std::uint64_t> peak_rss = ctx_.gather_u64(peak_resident_bytes());
    const FileTransfers imported = gather_transfers(Phase::Import), exported = gather_transfers(Phase::Export);
    ctx_.check_root([&] {
      nlohmann::json doc = {{"program", info_.name},
                            {"source", info_.source},
                            {"processors", info_.processors},
                            {"memory_bytes", info_.memory_bytes}};
      if (resumed_steps_ > 0) doc["resumed_steps"] = resumed_steps_;  // steps done before, not in this trace
      nlohmann::json list = nlohmann::json::array();
      for (const ContractionRecord& r : records_) list.push_back(record_json(r));
      doc["contractions"] = list;
      // HDF5 inputs copied into the store, outputs copied out of it: outside every contraction.
      doc["files"] = {{"import", transfers_json(imported)}, {"export", transfers_json(exported)}};
      doc["peak_resident_bytes"] = peak_rss;  // per rank, VmHWM at the end (memory.h)
      doc["blas_kernels"] = blas_kernels();   // rank 0's (kernel.h)
      if (verified_)
        doc["verify"] = {{"checked", verify_.checked}, {"max_rel_error", verify_.max_rel_error}, {"passed", passed}};
      write_json_atomically(options_.trace, doc);
    });
  }
  if (ctx_.rank() == 0 && !options_.quiet) {
    for (std::size_t i = 0; i < records_.size(); ++i) {
      const ContractionRecord& r = records_[i];
      double seconds = 0;
      for (double s : r.seconds) seconds = std::max(seconds, s);
      if (r.resumed_at != 0)
        std::fprintf(stderr,
                     "contraction %zu: %s, compute %.3f s; resumed after %llu of %llu loop-nest steps: "
                     "measured bytes not compared\n",
                     i + 1, r.plan.c_str(), seconds, static_cast<unsigned long long>(r.resumed_at),
                     static_cast<unsigned long long>(r.nest_steps));
      else
        std::fprintf(stderr, "contraction %zu: %s, compute %.3f s; measured bytes %s the prediction\n", i + 1,
                     r.plan.c_str(), seconds, volumes_equal(r) ? "equal" : "DIFFER FROM");
    }
    if (verified_)
      std::fprintf(stderr, "verify: %llu sampled elements, max relative error %.3g: %s\n",
                   static_cast<unsigned long long>(verify_.checked), verify_.max_rel_error,
                   passed ? "passed" : "FAILED (tolerance 1e-10)");
  }
  // The run is complete (also when the verification failed: a resume would skip every step and
  // so the verification too).
  if (checkpoint_ && !options_.keep) checkpoint_->discard();
  if (!passed)
    throw Error(
        fmt::format("verification failed: max relative error {:.3g} of {} sampled elements is above the "
                    "tolerance 1e-10",
                    verify_.max_rel_error, verify_.checked));
}

}  // namespace tcert
