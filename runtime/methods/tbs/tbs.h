// runtime/methods/tbs/tbs.h — TbsGemm: one symmetric contraction C(I,J) = alpha·A(I,K)·A(J,K)ᵀ run with
// triangle blocks (Beaumont et al., SPAA'22, §5.1 TBS, Algorithm 4, tiled version §5.1.4) on P
// ranks, each rank computing its blocks one after the other out of core: A panels read straight
// from A's tensor, C's tiles and their mirrors written straight into the result's new version.
//
// The schedule is runtime/spec/tbs_spec.h's "THE SCHEDULE", step for step, so the measured bytes and
// disk requests equal the model's exact per-rank prediction. No network; no stage 1 or 3.
// Generated code runs a step as
//   tcert::TbsGemm x(run, spec);
//   x.compute([&] { for (std::int64_t b = 0; b < x.blocks(); ++b) x.run_block(b); });
//   x.finish();
// Units: elements unless a name says bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/memory.h"
#include "runtime/base/progress.h"
#include "runtime/program/direct_result.h"
#include "runtime/program/piece_checkpoints.h"
#include "runtime/program/run.h"
#include "runtime/spec/gemm_spec.h"

namespace tcert {

/// The executor of a GemmSpec whose method holds a TbsSpec: C(I,J) = alpha·A(I,K)·A(J,K)ᵀ, both
/// triangles written into C's new version in the store, this rank's triangle blocks in spec
/// order (see the file comment for the calls generated code makes).
class TbsGemm {
 public:
  /// The load stage: checks the spec (check_spec(): Error as tbs_spec.h check_method, or when
  /// the buffers exceed the memory per rank; Error "TbsGemm needs a tbs plan" when spec.method
  /// holds no TbsSpec), flushes a kept A to the store, registers C's next version in the store
  /// and creates it (rank 0, zero-filled) and maps it on the ranks with blocks, and allocates
  /// through budget() the C block (block_elements) and the A panel (panel_rows × chunk) on the
  /// ranks with blocks (ranks without any allocate nothing). Collective over run.context().
  TbsGemm(Run& run, GemmSpec spec);
  ~TbsGemm();
  TbsGemm(const TbsGemm&) = delete;
  TbsGemm& operator=(const TbsGemm&) = delete;

  /// Runs body as the compute phase (as GaoGemm::compute). Collective. With a
  /// checkpoint, checkpoints inside the step come before blocks (PieceCheckpoints); a run resumed
  /// from one first copies C's new version back (Error on every rank as StepCheckpoints::resume_within()).
  void compute(const std::function<void()>& body);
  /// The number of this rank's blocks (those of spec's TbsSpec with rank == this rank).
  std::int64_t blocks() const { return static_cast<std::int64_t>(mine_.size()); }
  /// This rank's block b (0 <= b < blocks(), in spec order; Error otherwise): THE SCHEDULE's
  /// steps 1–3, i.e. C block := 0; for each K chunk, read the A panel (8 bytes and the runs of
  /// one RunCounter counted as disk reads and requests) and update the tiles (cblas_dgemm for
  /// u > v, cblas_dsyrk for the diagonal squares); write every tile, its mirror and the full
  /// diagonal squares into C's new version (8 bytes per element and one RunCounter per pass
  /// counted as disk writes and requests). A stream block instead reads A[R_0, all K] once, then
  /// for u = 1 .. k-1 reads A[R_u, all K] after it (each read one pass, counted as above),
  /// computes C[R_u, R_0] = alpha · A_u · A_0ᵀ (cblas_dgemm) and writes it and its mirror
  /// C[R_0, R_u] (one pass each, counted as above). Not collective, except that with a checkpoint
  /// and --checkpoint-every a checkpoint inside the step may be saved before blocks 0 < b < the
  /// fewest blocks of any rank (collective over all ranks: C's new version synced and copied); a
  /// run resumed from one skips the blocks before it (their elements are in the copy).
  void run_block(std::int64_t b);
  /// Commits C's new version (every rank's writes synced, then rank 0 renames it), records zero
  /// redistribution bytes beyond the flush of a kept A, runs --verify on the committed file and
  /// ends the step. Collective.
  void finish();

 private:
  using i64 = std::int64_t;
  const TbsSpec& part() const { return std::get<TbsSpec>(spec_.method); }
  /// Reads A[R_first ∪ … ∪ R_{last-1}, k0 .. k0+kc) of `block` into `out` (row stride kc), in one
  /// pass with one RunCounter; returns the elements read.
  i64 read_panel(const TbsBlock& block, std::size_t first, std::size_t last, i64 k0, i64 kc, double* out);
  /// Adds alpha · panel · panelᵀ into the C block's tiles.
  void multiply(const TbsBlock& block, i64 kc);
  /// Writes the C block's tiles, mirrors and diagonal squares into C's new version.
  void write_block(const TbsBlock& block);
  /// THE SCHEDULE's stream block: R_0 resident in the panel, each R_u (u >= 1) read after it,
  /// its tile C[R_u, R_0] computed and written with its mirror.
  void run_stream(const TbsBlock& block);
  /// The parts (linear index in C's file) of every row of the block's ranges as a row of C and
  /// as a column of C: rows[u][r], cols[u][r] for the r-th row of R_u.
  void C_parts(const TbsBlock& block, std::vector<std::vector<std::uint64_t>>& rows,
               std::vector<std::vector<std::uint64_t>>& cols) const;
  /// One write pass: C[row_part[r] + col_part[c]] = value(r, c) over r, then c, in order; 8 bytes
  /// per element as disk writes, the runs of one RunCounter as disk requests.
  template <class Value>
  void write_pass(const std::vector<std::uint64_t>& row_part, const std::vector<std::uint64_t>& col_part,
                  const Value& value);
  /// Whether C(row_values, col_values) lies in one of this rank's blocks (as a pair or its
  /// mirror; a stream block holds (i in R_u, j in R_0), u >= 1): the elements this rank checks
  /// under --verify.
  bool holds(const i64* row_values, const i64* col_values) const;

  Run& run_;
  GemmSpec spec_;
  std::vector<std::size_t> mine_;         // indices into part().blocks of this rank's blocks
  std::optional<ElementSource> A_;        // A's elements (its file in the store, or the input)
  std::unique_ptr<DirectResult> result_;  // C's new version, written in place
  Buffer C_, panel_;
  std::unique_ptr<Progress> progress_;
  std::optional<PieceCheckpoints> checkpoints_;  // inside the step, before blocks (made in compute())
  Volumes redistribution_;                       // the flush of a kept A (stage 1)
};

}  // namespace tcert
