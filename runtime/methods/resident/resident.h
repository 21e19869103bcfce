// runtime/methods/resident/resident.h — ResidentGemm, the executor of a resident accumulation step
// (resident_spec.h THE SCHEDULE): one statement of a group adding into a tensor X whose block each
// rank holds in memory from the group's first step to its last, so that X is written once.
// Generated code runs a step as
//   tcert::ResidentGemm x(run, std::move(spec));
//   x.compute([&] { for (std::int64_t c = 0; c < x.chunks(); ++c) x.run_chunk(c); });
//   x.finish();
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/base/memory.h"
#include "runtime/base/progress.h"
#include "runtime/methods/panel_read.h"
#include "runtime/program/direct_result.h"
#include "runtime/program/run.h"
#include "runtime/spec/gemm_spec.h"

namespace tcert {

class ResidentGemm {
 public:
  /// The load stage: checks the spec (check_spec(): Error as resident_spec.h check_method, or
  /// when the buffers exceed the memory per rank; Error "ResidentGemm needs a resident plan" when
  /// spec.method holds no ResidentSpec), flushes kept A and B (and C in the first step when
  /// spec.accumulate) to the store; in the first step allocates this rank's block and holds it in
  /// the run (KeptTensors::hold_resident), in later ones finds it there (Error when no earlier step
  /// holds it); in the last step registers X's next version in the store and creates it (rank 0,
  /// zero-filled), mapped on the ranks with a block; allocates through budget() the product and
  /// the two panels. Collective over run.context().
  ResidentGemm(Run& run, GemmSpec spec);
  ResidentGemm(const ResidentGemm&) = delete;
  ResidentGemm& operator=(const ResidentGemm&) = delete;

  /// Runs body as the compute phase (as GaoGemm::compute): first, in the group's first
  /// step, the block's start (0, or X's current values read in one pass); after body, block +=
  /// product (X's order), and in the last step the block written into X's new version in one
  /// pass. Collective.
  void compute(const std::function<void()>& body);
  /// K's chunks of this step: ⌈|K| / chunk⌉ on a rank with a block, 0 on the others.
  std::int64_t chunks() const { return chunks_; }
  /// Chunk c (0, 1, … in order, each once): the A panel and the B panel of its columns read
  /// straight from the tensors (8 bytes of disk read per element, one RunCounter per panel),
  /// then product += alpha · A panel · B panelᵀ. Throws Error unless c is the next chunk.
  void run_chunk(std::int64_t c);
  /// Records the redistribution of the flushes (none otherwise); with --verify checks this
  /// step's product against alpha·Σ_K A·B (its contribution to X); in the last step commits X's
  /// new version and frees the block; ends the step. Collective.
  void finish();

 private:
  using i64 = std::int64_t;
  const ResidentSpec& part() const { return std::get<ResidentSpec>(spec_.method); }
  /// Reads (read = true) X's current values into the block or writes the block into X's new
  /// version, one span per value of X's dimensions before the split, in one pass.
  void block_pass(bool read);

  Run& run_;
  GemmSpec spec_;
  ResidentRange range_;                      // this rank's range along split and its block's elements
  ResidentSplit split_;                      // where the split lies in the GEMM
  i64 rows_I_ = 0, rows_J_ = 0, k_ = 1;      // the product's rows and columns, |K|
  std::vector<RowRange> rows_A_, rows_B_;    // the panels' rows (restricted_rows() for the split's operand)
  std::unique_ptr<SplitMap> map_A_, map_B_;  // rows and columns of A and B
  std::optional<ElementSource> A_, B_, C0_;  // the operands, and X's current version (first step, accumulating)
  std::unique_ptr<DirectResult> result_;     // X's new version (last step)
  Buffer T_, panel_A_, panel_B_;             // the product (row-major rows_I_ × rows_J_) and the panels
  i64 chunks_ = 0, next_ = 0;
  std::unique_ptr<Progress> progress_;
  Volumes redistribution_;  // the flushes of kept tensors (stage 1)
};

}  // namespace tcert
