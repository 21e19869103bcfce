// runtime/program/step_checkpoints.cpp — StepCheckpoints (step_checkpoints.h).
#include "runtime/program/step_checkpoints.h"

#include <cstdio>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/base/fault.h"

namespace tcert {

StepCheckpoints::StepCheckpoints(const Context& ctx, const RunOptions& options, const TensorLocations& tensors,
                                 const ProgramInfo& info)
    : ctx_(ctx), options_(options), info_(info), resumed_(options.resume) {
  if (options_.checkpoint.empty()) return;
  checkpoint_ = std::make_unique<Checkpoint>(ctx_, info_, tensors, options_);
  if (resumed_) resumed_steps_ = saved_steps_ = checkpoint_->steps_done();
}

void StepCheckpoints::save_first(const StoreVersions& versions) {
  checkpoint_->save(0, versions);
  since_save_ = Stopwatch();
}

void StepCheckpoints::save(const StoreVersions& versions, bool consistent) {
  // Kept tensors live in the ranks' scratch files, outside the store, and a resident block in
  // memory: no consistent point.
  if (!checkpoint_ || steps_ <= saved_steps_ || !consistent) return;
  checkpoint_->save(steps_, versions);
  saved_steps_ = steps_;
  since_save_ = Stopwatch();
  fault_point(ctx_.rank(), fmt::format("checkpoint:{}", steps_));
}

bool StepCheckpoints::begin_step(const StoreVersions& versions) {
  if (++steps_ <= resumed_steps_) return false;  // done before the checkpoint this run resumed from
  if (checkpoint_) step_versions_ = versions;    // what a checkpoint inside the step holds
  return true;
}

bool StepCheckpoints::saves_within() const {
  return checkpoint_ && options_.checkpoint_every >= 0 && saved_steps_ == steps_ - 1;
}

bool StepCheckpoints::within_due() {
  if (options_.checkpoint_every <= 0) return true;
  return ctx_.max_over_ranks(since_save_.seconds()) >= options_.checkpoint_every;
}

void StepCheckpoints::save_within(std::uint64_t position, std::uint64_t nest_steps, const PartialC& c) {
  checkpoint_->save_within(steps_ - 1, step_versions_, WithinStep{steps_, position, nest_steps}, c);
  since_save_ = Stopwatch();
  fault_point(ctx_.rank(), fmt::format("within:{}", ++within_saves_));
}

std::uint64_t StepCheckpoints::resume_within(std::uint64_t nest_steps, const PartialC& c) {
  if (!checkpoint_ || !checkpoint_->within() || checkpoint_->within()->step != steps_ || resumed_nest_.at != 0)
    return 0;
  const WithinStep& w = *checkpoint_->within();
  if (w.nest_steps != nest_steps)  // the same on every rank (the manifest's)
    throw Error(
        fmt::format("cannot resume from {}: its checkpoint inside step {} is for a loop nest of {} steps, "
                    "not {}",
                    options_.checkpoint, steps_, w.nest_steps, nest_steps));
  checkpoint_->restore_within(c);
  resumed_nest_ = {w.position, nest_steps};
  if (ctx_.rank() == 0 && !options_.quiet)
    std::fprintf(stderr, "%s: resuming step %d inside its contraction, after %llu of %llu loop-nest steps\n",
                 info_.name.c_str(), steps_, static_cast<unsigned long long>(w.position),
                 static_cast<unsigned long long>(nest_steps));
  return w.position;
}

ResumedNest StepCheckpoints::resumed_nest() const {
  if (resumed_nest_.at != 0 && checkpoint_->within()->step == steps_) return resumed_nest_;
  return {};
}

void StepCheckpoints::discard() {
  if (checkpoint_ && !options_.keep) checkpoint_->discard();
}

}  // namespace tcert
