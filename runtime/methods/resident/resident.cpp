// runtime/methods/resident/resident.cpp — ResidentGemm: one step of a resident accumulation (resident_spec.h THE
// SCHEDULE): the block held across the group's steps, the panels streamed along K, the product
// added into the block, and the block read and written once per group.
#include "runtime/methods/resident/resident.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/base/fault.h"
#include "runtime/index/linear_map.h"
#include "runtime/index/split_map.h"
#include "runtime/kernel/kernel.h"
#include "runtime/methods/contraction_steps.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/units.h"
#include "runtime/storage/mapped_walk.h"

namespace tcert {

ResidentGemm::ResidentGemm(Run& run, GemmSpec spec) : run_(run), spec_(std::move(spec)) {
  if (!std::holds_alternative<ResidentSpec>(spec_.method)) throw Error("ResidentGemm needs a resident plan");
  const Context& ctx = run_.context();
  begin_contraction(run_, spec_);  // the step's peak (the held block included), checked in compute()
  range_ = resident_range(part(), spec_, ctx.rank());
  split_ = resident_split(part(), spec_);
  const std::vector<i64> eI = extents_of(spec_.I), eJ = extents_of(spec_.J);
  k_ = product(extents_of(spec_.K));
  rows_A_ = split_.in_I ? restricted_rows(eI, split_.position, range_.start, range_.length)
                        : std::vector<RowRange>{{0, product(eI)}};
  rows_B_ = split_.in_I ? std::vector<RowRange>{{0, product(eJ)}}
                        : restricted_rows(eJ, split_.position, range_.start, range_.length);
  const bool holds = range_.length > 0;
  for (const auto& [first, count] : rows_A_) rows_I_ += count;
  for (const auto& [first, count] : rows_B_) rows_J_ += count;
  run_.records().next_contraction();
  {  // Gao et al. §2.3 stage 1: only the flushes of kept tensors, which this step reads from the store
    PhaseScope phase(Phase::Redistribute);
    const Volumes before = redistribution_now();
    flush_kept(run_, spec_.A.shape.name);
    flush_kept(run_, spec_.B.shape.name);
    if (part().first && spec_.accumulate) flush_kept(run_, spec_.C.shape.name);
    redistribution_ = redistribution_now() - before;
  }
  if (part().first) {
    if (spec_.accumulate && holds) C0_ = initial_C(run_, spec_);
    run_.kept().hold_resident(spec_.C.shape.name,
                              allocate(static_cast<std::size_t>(range_.elements), "resident block"));
  } else {
    run_.kept().resident(spec_.C.shape.name);  // Error unless an earlier step of the group holds it
  }
  // X's new version, written in place by every rank with a block (the last step).
  if (part().last) result_ = std::make_unique<DirectResult>(run_, spec_.C.shape, holds);
  if (!holds) return;
  A_ = run_.input(spec_.A.shape);
  B_ = run_.input(spec_.B.shape);
  map_A_ = std::make_unique<SplitMap>(spec_.A, eI, extents_of(spec_.K));
  map_B_ = std::make_unique<SplitMap>(spec_.B, eJ, extents_of(spec_.K));
  T_ = allocate(static_cast<std::size_t>(rows_I_ * rows_J_), "product");
  panel_A_ = allocate(static_cast<std::size_t>(rows_I_ * part().chunk), "A panel");
  panel_B_ = allocate(static_cast<std::size_t>(rows_J_ * part().chunk), "B panel");
  chunks_ = (k_ + part().chunk - 1) / part().chunk;
}

void ResidentGemm::compute(const std::function<void()>& body) {
  compute_phase(run_, spec_, progress_, [&] {
    Buffer& block = run_.kept().resident(spec_.C.shape.name);
    if (range_.length > 0 && part().first) {
      if (C0_)
        block_pass(true);
      else
        std::fill_n(block.data(), block.size(), 0.0);
    }
    if (range_.length > 0) std::fill_n(T_.data(), T_.size(), 0.0);
    body();
    if (next_ != chunks_)
      throw Error(fmt::format("{}: the step ran {} of its {} chunks", spec_.statement, next_, chunks_));
    if (range_.length == 0) return;
    // block += T, T's dimensions (GEMM order, the split's position cut to the range) in X's order.
    std::vector<i64> extents;
    for (const GroupSpec* g : {&spec_.I, &spec_.J})
      for (const IndexTiling& x : g->indices) extents.push_back(x.extent);
    const std::size_t at = (split_.in_I ? 0 : spec_.I.indices.size()) + split_.position;
    extents[at] = range_.length;
    std::vector<int> perm(spec_.C.perm.size());  // dimension q of X is GEMM position perm[q]
    for (std::size_t p = 0; p < perm.size(); ++p) perm[static_cast<std::size_t>(spec_.C.perm[p])] = static_cast<int>(p);
    const Stopwatch clock;  // kernel busy time, as gemm_tile counts its own
    permute(T_.data(), extents, perm, block.data(), 1.0, 1.0, StoreHint::Cached);
    counters().add_kernel_time(clock.seconds());
    if (part().last) block_pass(false);
  });
}

void ResidentGemm::run_chunk(std::int64_t c) {
  if (c != next_ || c >= chunks_)
    throw Error(fmt::format("resident chunk {} of a step with {} chunks; the chunks run in order and chunk {} is next",
                            c, chunks_, next_));
  ++next_;
  const i64 k0 = c * part().chunk, kc = std::min(part().chunk, k_ - k0);
  read_panel_rows(run_, *map_A_, *A_, rows_A_, k0, kc, panel_A_.data());
  read_panel_rows(run_, *map_B_, *B_, rows_B_, k0, kc, panel_B_.data());
  const auto z = [](i64 x) { return static_cast<std::size_t>(x); };
  gemm_tile(z(rows_I_), z(rows_J_), z(kc), spec_.alpha, panel_A_.data(), z(kc), panel_B_.data(), z(kc), 1.0, T_.data(),
            z(rows_J_));
  if (progress_) progress_->update(static_cast<double>(c + 1) / static_cast<double>(chunks_));
}

void ResidentGemm::block_pass(bool read) {
  const std::vector<i64>& e = spec_.C.shape.extents;
  const auto split = static_cast<std::size_t>(part().split);
  i64 outer = 1, inner = 1;
  for (std::size_t d = 0; d < split; ++d) outer *= e[d];
  for (std::size_t d = split + 1; d < e.size(); ++d) inner *= e[d];
  const auto span = static_cast<std::uint64_t>(range_.length * inner);
  double* block = run_.kept().resident(spec_.C.shape.name).data();
  const Stopwatch clock;  // disk busy time, as DiskFile counts its transfers
  RunCounter requests;    // the block, in one pass
  MappedWalk walk(read ? kFaultAroundBytes : kMappedPageBytes);
  for (i64 o = 0; o < outer; ++o, block += span) {
    const auto at = static_cast<std::uint64_t>((o * e[split] + range_.start) * inner);
    requests.span(at, span);
    if (read) {
      if (C0_->data()) run_.mapped().touched_span(walk, at, span);
      C0_->copy(at, span, block);
    } else {
      result_->write(walk, at, span, block);
    }
  }
  if (read)
    C0_->flush();  // streamed: the runs, in few requests
  else
    result_->flush();
  const auto bytes = bytes_of(static_cast<std::uint64_t>(range_.elements));
  if (read)
    counters().add_disk_read(bytes);
  else
    counters().add_disk_write(bytes);
  requests.add();
  counters().add_disk_time(clock.seconds());
  if (!read) counted_fault_point(run_.context().rank(), "write_C");
}

void ResidentGemm::finish() {
  if (result_) result_->commit(run_.context());
  record_redistribution(run_, redistribution_);
  // --verify: this step's product (its contribution to X) against alpha·Σ_K A·B.
  GemmSpec product = spec_;
  product.accumulate = false;
  const std::vector<i64> eI = extents_of(spec_.I), eJ = extents_of(spec_.J);
  verify_result(run_, product, range_.length > 0, [&](const i64* rv, const i64* cv) -> std::optional<double> {
    const i64* values = split_.in_I ? rv : cv;
    const i64 v = values[split_.position];
    if (v < range_.start || v >= range_.start + range_.length) return std::nullopt;
    auto flat = [&](const i64* x, const std::vector<i64>& extents, bool restricted) {
      i64 f = 0;
      for (std::size_t p = 0; p < extents.size(); ++p) {
        const bool here = restricted && p == split_.position;
        f = f * (here ? range_.length : extents[p]) + (here ? x[p] - range_.start : x[p]);
      }
      return f;
    };
    return T_[static_cast<std::size_t>(flat(rv, eI, split_.in_I) * rows_J_ + flat(cv, eJ, !split_.in_I))];
  });
  if (part().last) run_.kept().drop_resident();
  run_.end_step();
}

}  // namespace tcert
