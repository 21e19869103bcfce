// runtime/program/direct_result.cpp — DirectResult (direct_result.h).
#include "runtime/program/direct_result.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/spec/units.h"
#include "runtime/storage/spare_files.h"

namespace tcert {

namespace {

/// Whether at most one rank of `ctx` has `writes`. Collective.
bool single_writer(const Context& ctx, bool writes) {
  const double last = ctx.max_over_ranks(writes ? ctx.rank() : -1);
  const double first = -ctx.max_over_ranks(writes ? -ctx.rank() : -ctx.size());
  return last < 0 || first == last;
}

}  // namespace

DirectResult::DirectResult(Run& run, const TensorShape& shape, bool writes, Update update, bool overwrites,
                           bool may_stream)
    : run_(run), shape_(shape), flush_(run.options().sync_results) {
  const Context& ctx = run.context();
  // One rank writes it all and it fits under the bound of its mapped pages: in memory, written
  // to the file at sync() and commit() (NpyWriter::Backing: no write faults into the file system),
  // or held there unwritten (Run::defers_writes()) until something needs the file.
  // Not where a checkpoint may be saved inside a step: it copies C's file, and a resumed run
  // restores the file, under a result that would then be in memory.
  const bool in_memory = ctx.size() == 1 && writes && bytes_of(shape.elements()) <= run.mapped().drop_bytes() &&
                         run.options().checkpoint_every < 0;
  deferred_ = in_memory && run.defers_writes();
  // Larger than the memory per rank: written with explicit requests, no rank maps it.
  streamed_ = may_stream && !in_memory && run.mapped().streams(bytes_of(shape.elements()));
  if (update == Update::InPlace) {
    temp_ = run.store().latest(shape.name);
    if (run.store().per_node() && !run.store().output_version(temp_))  // TensorStore::updates_in_place()
      throw Error("internal: " + temp_ + " updated in place in a store of one directory per node");
    // A program output's version in its output's directory (below): updated with explicit
    // requests where the store is not coherent(), as it was written.
    if (!in_memory && !streamed_ && !run.store().coherent() && run.store().output_version(temp_))
      streamed_ = !single_writer(ctx, writes);
    if (!in_memory && !streamed_) guard_.emplace(run.mapped().drop_bytes());  // the pages a mapping makes resident
    ctx.check_all([&] {
      if (streamed_) {
        if (writes) run.held().write_out(temp_), run.held().take(temp_), open_file();  // the file holds its values
        return;
      }
      if (!in_memory) {
        if (writes) patch_ = &run.mapped().patch_latest(shape.name);
        return;
      }
      FileMemory held = run.held().take(temp_);  // written to the file or not
      if (deferred_)
        memory_ = held.size() > 0 ? std::move(held) : NpyUpdate(temp_, flush_).take_memory();
      else
        update_ = held.size() > 0 ? std::make_unique<NpyUpdate>(temp_, flush_, std::move(held))
                                  : std::make_unique<NpyUpdate>(temp_, flush_);
    });
    if (writes && !streamed_) data_ = deferred_ ? memory_.data() : update_ ? update_->data() : patch_->data();
    return;
  }
  // A program output's version where the store is not one page cache's (TensorStore::coherent():
  // ranks on several nodes, node-local scratch), and a .npy output's also where it is larger than
  // the memory per rank: written straight into a file beside the output, which every rank writes
  // with explicit requests and none maps (a shared file system need not keep mappings on several
  // nodes coherent), and from which export_outputs() renames the last version into place (or
  // writes an HDF5 dataset), so that no store is needed for it (a node-local --scratch then
  // serves a run on several nodes). Not with a checkpoint (it names the store's versions) or
  // --keep (it leaves every version in the store), nor after a version in the store.
  const auto output = run.tensors().outputs.find(shape.name);
  const std::string latest = run.store().latest(shape.name);
  const FileFormat format = output != run.tensors().outputs.end()
                                ? file_format(output->second.path).value_or(FileFormat::Npy)
                                : FileFormat::Npy;
  const bool beside = output != run.tensors().outputs.end() &&
                      (format == FileFormat::Npy ? streamed_ || !run.store().coherent() : !run.store().coherent());
  const bool to_output = may_stream && !in_memory && beside && (latest.empty() || run.store().output_version(latest)) &&
                         run.options().checkpoint.empty() && !run.options().keep;
  // Several writers: explicit requests. One (a method that computes the whole result on one rank
  // and writes it through data()): mapped, as no other rank writes the file's pages.
  if (to_output && !streamed_) streamed_ = !single_writer(ctx, writes);
  if (!in_memory && !streamed_) guard_.emplace(run.mapped().drop_bytes());  // the pages a mapping makes resident
  const std::string path =
      to_output ? run.store().add_output_version(shape.name, output->second.path, format != FileFormat::Npy)
                : run.store().next_version(shape.name);
  if (deferred_) {  // no file until one is needed (HeldVersions::hold_unwritten())
    memory_ = FileMemory(static_cast<std::size_t>(shape.elements()));
    if (!overwrites) std::fill_n(memory_.data(), memory_.size(), 0.0);
    temp_ = path, new_version_ = true, data_ = memory_.data();
    return;
  }
  const std::vector<std::uint64_t> extents(shape.extents.begin(), shape.extents.end());
  renames_ = true;
  if (!to_output) run.store().make(shape.name);
  // A store of one directory per node: each node's rank 0 makes the file in its node's
  // directory, the node's ranks write theirs into it, and commit() completes it from the others.
  completes_ = !to_output && run.store().per_node();
  const Context& owner = completes_ ? run.store().node() : ctx;
  temp_ = owner.root_value([&] {  // a full disk fails here on rank 0, and so on every rank
    const NpyWriter::Backing backing = in_memory   ? NpyWriter::Backing::Memory
                                       : streamed_ ? NpyWriter::Backing::File
                                                   : NpyWriter::Backing::Mapped;
    // The spare files are the store's (its parent directory): not for a file in an output's
    // directory, nor where the file must start as zeros (complete()).
    writer_ = std::make_unique<NpyWriter>(path, extents, to_output || completes_ ? nullptr : &spare_files(), backing);
    return writer_->temp_path();
  });
  ctx.check_all([&] {
    if (writes && streamed_) return open_file();
    if (writes && owner.rank() != 0) own_patch_ = std::make_unique<NpyPatch>(temp_, flush_), patch_ = own_patch_.get();
  });
  if (writes && !streamed_) data_ = writer_ ? writer_->data() : patch_->data();
}

DirectResult::~DirectResult() = default;

void DirectResult::open_file() {
  file_ = std::make_shared<ElementFile>(temp_, read_npy_header(temp_).data_offset_bytes, true);
  // Written pages behind: as many as a mapping's, and enough for the device to write at its speed
  // (page cache of the node, not the plan's memory: the kernel throttles dirty pages of a cgroup).
  file_->set_window(std::max(run_.mapped().drop_bytes(), ElementFile::kDeviceWindowBytes));
  writes_ = std::make_unique<RunWrites>(*file_);
}

void DirectResult::write(MappedWalk& walk, std::uint64_t at, std::size_t n, const double* src, std::size_t step) {
  if (writes_) return writes_->add(at, n, src, step);
  double* const out = data_ + at;
  if (step == 1)
    std::copy_n(src, n, out);
  else
    for (std::size_t e = 0; e < n; ++e) out[e] = src[e * step];
  wrote_span(walk, at, n);
}

void DirectResult::put(MappedWalk& walk, std::uint64_t at, double value) {
  if (writes_) return writes_->put(at, value);
  wrote(walk.touch(at));
  data_[at] = value;
}

void DirectResult::copy(const ElementSource& from, MappedWalk& walk, std::uint64_t at, std::size_t n) {
  if (!writes_) {
    from.copy(at, n, data_ + at);
    return wrote_span(walk, at, n);
  }
  if (from.data() != nullptr) return writes_->add(at, n, from.data() + at);
  if (from.streamed() == nullptr) {
    for (std::size_t e = 0; e < n; ++e) writes_->put(at + e, from(at + e));
    return;
  }
  writes_->flush();  // what was queued before lands first
  file_->copy_from(*from.streamed(), at, n);
  file_->wrote(file_->byte_of(at), file_->byte_of(at + n));
}

void DirectResult::flush() {
  if (writes_) writes_->flush();
}

ElementSource DirectResult::source() const {
  if (file_) return ElementSource(file_, nullptr);
  return ElementSource(data_);
}

void DirectResult::wrote(std::uint64_t bytes, std::uint64_t accesses) {
  if (!guard_ || !guard_->touched(bytes, accesses)) return;  // in memory: no file pages
  if (writer_)
    writer_->drop_pages();
  else if (patch_)
    patch_->drop_pages();
  guard_->dropped();
}

void DirectResult::sync(const Context& ctx) {
  ctx.check_all([&] {
    if (deferred_) throw Error("a result held unwritten (" + temp_ + ") has no file to sync");
    if (writes_) writes_->flush();
    if (file_ && flush_) file_->sync();
    if (patch_) patch_->sync();
    if (writer_) writer_->write_out();  // in memory: the file gets it now
    if (update_) update_->write_back();
  });
}

void DirectResult::commit(const Context& ctx, const std::function<void()>& writes) {
  ctx.check_all([&] {
    if (writes) writes();
    if (writes_) writes_->flush();
    if (file_ && flush_ && !writer_) file_->sync();  // rank 0's writer syncs the file
    if (patch_) patch_->sync();
    if (deferred_) run_.held().hold_unwritten(temp_, shape_, std::move(memory_), new_version_);
    if (update_) {
      update_->write_back();
      run_.held().hold(temp_, update_->take_memory());
    }
  });
  // (The node's writes through mappings are in its page cache, where complete() reads them.)
  if (completes_) {  // the other nodes' elements: moving the result between ranks, Gao et al. §2.3 stage 3
    // Counted with the step's stage 3, also where the compute stage wrote the version (direct
    // tile I/O of C); in the phase that writes it otherwise (a copy step or a --verify shadow:
    // Phase::WriteOut; an imported input: Phase::Import).
    const Phase now = counters().current_phase();
    std::optional<PhaseScope> phase;
    if (now == Phase::Compute || now == Phase::Load) phase.emplace(Phase::Redistribute);
    ctx.check_all([&] { run_.store().complete(temp_, shape_.elements(), read_npy_header(temp_).data_offset_bytes); });
  }
  // Rank 0 (of each node, where the store has one directory per node) renames the file once
  // every rank's writes are durable: a shared file system need not show a file's new name with
  // another node's writes still on their way.
  const Context& owner = completes_ ? run_.store().node() : ctx;
  if (renames_)
    owner.check_root([&] {
      writer_->commit(flush_);
      run_.held().hold(writer_->path(), writer_->take_memory());  // empty when mapped
    });
}

}  // namespace tcert
