// runtime/methods/sfc/sfc.h — SfcGemm: one contraction C(I,J) (+)= alpha·A(I,K)·B(J,K)ᵀ run along a
// space-filling curve over C's tile grid (Georganas et al., seed 002; the generalized Hilbert
// curve of Červený's "gilbert"), one contiguous segment of the curve per rank, each rank out of
// core with an LRU cache of A and B panels read straight from the operands' tensors and its C
// tiles written straight into the result's new version.
//
// With replication c > 1 along K (2.5D) the ranks form c layers, each walking the curve over its
// share of K, and the c partial tiles are reduced after each tile (a ring reduce-scatter by
// rows, comm.h), every rank writing its rows.
//
// The schedule is runtime/spec/sfc_spec.h's "THE SCHEDULE", step for step, so the measured bytes and
// disk requests equal the model's exact per-rank prediction. No network when c = 1; no stage 1
// or 3 beyond the flush of kept operands. Generated code runs a step as
//   tcert::SfcGemm x(run, std::move(spec));
//   x.compute([&] { for (std::int64_t w = 0; w < x.tiles(); ++w) x.run_tile(w); });
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
#include "runtime/comm/comm.h"
#include "runtime/program/direct_result.h"
#include "runtime/program/piece_checkpoints.h"
#include "runtime/program/run.h"
#include "runtime/spec/gemm_spec.h"

namespace tcert {

class SplitMap;

/// The executor of a GemmSpec whose method holds an SfcSpec: C(I,J) = alpha·A(I,K)·B(J,K)ᵀ
/// (plus C's current value when spec.accumulate), this rank's tiles of C in curve order (see
/// the file comment for the calls generated code makes).
class SfcGemm {
 public:
  /// The load stage: checks the spec (check_spec(): Error as sfc_spec.h check_method, or when
  /// the buffers exceed the memory per rank; Error "SfcGemm needs an sfc plan" when spec.method
  /// holds no SfcSpec), flushes kept A and B (and C when spec.accumulate) to the store,
  /// registers C's next version in the store and creates it (rank 0, zero-filled) and maps it
  /// on the ranks with tiles, splits the communicator of the ranks at this rank's position of
  /// the layers when c > 1, and allocates through budget() the C tile (⌈|I|/tiles_I⌉ ·
  /// ⌈|J|/tiles_J⌉), the `slots` panel slots (max(⌈|I|/tiles_I⌉, ⌈|J|/tiles_J⌉) · chunk
  /// each) and, when c > 1, the reduction scratch (one slot) on the ranks with tiles (a rank
  /// with an empty segment allocates nothing). The panel cache starts empty. Collective over
  /// run.context().
  SfcGemm(Run& run, GemmSpec spec);
  ~SfcGemm();
  SfcGemm(const SfcGemm&) = delete;
  SfcGemm& operator=(const SfcGemm&) = delete;

  /// Runs body as the compute phase (as GaoGemm::compute). Collective.
  void compute(const std::function<void()>& body);
  /// The number of this rank's tiles: segment[q+1] − segment[q] for the rank at position q of
  /// its layer (may be 0).
  std::int64_t tiles() const { return count_; }
  /// This rank's w-th tile of its segment, THE SCHEDULE's steps 1–5: C tile := 0; for each K
  /// chunk of its layer (forward for even w, backward for odd w) the A panel, then the B
  /// panel, looked up in the LRU cache and read on a miss (8 bytes per element as disk reads,
  /// one RunCounter per panel read), C tile += alpha · A panel · B panelᵀ (cblas_dgemm); when
  /// c > 1 the tile reduced over the layers (ring_reduce_scatter: sent and received bytes as
  /// comm.h counts them); C's current values of this rank's rows added when accumulating (8
  /// bytes per element as disk reads, one RunCounter); those rows written into C's new version
  /// (8 bytes per element as disk writes, one RunCounter). Collective over the c ranks at this
  /// rank's position when c > 1 (they run the same tiles), else not. Throws Error unless w is
  /// the next tile of the walk (0, 1, 2, … < tiles(), each once: the cache and the direction
  /// of the chunks depend on the tiles before).
  /// With a checkpoint: before tiles 0 < w < the fewest tiles of any rank, a checkpoint inside
  /// the step may be saved (StepCheckpoints::save_within(), collective over all ranks: C's new version is
  /// synced and copied); a run resumed from one skips the tiles before it (their rows are in
  /// the copy), and the later tiles compute the same values (their chunks run in the same order).
  void run_tile(std::int64_t w);
  /// Commits C's new version (every rank's writes synced, then rank 0 renames it), records the
  /// redistribution bytes of the flushes (none otherwise), runs --verify on the committed file
  /// and ends the step. Collective.
  void finish();

 private:
  using i64 = std::int64_t;
  /// A panel in the cache: (operand 0 = A, 1 = B, its tile ti or tj, its chunk) and when it was
  /// last used (0: the slot is free).
  struct Slot {
    int operand = 0;
    i64 tile = 0, chunk = 0;
    std::uint64_t used = 0;
  };
  const SfcSpec& part() const { return std::get<SfcSpec>(spec_.method); }
  /// The panel (operand, tile, chunk) in its slot (rows × kc, row stride kc): from the cache, or
  /// read into the free slot of lowest index, else the least recently used one; it becomes the
  /// most recently used.
  const double* panel(int operand, i64 tile, i64 chunk);
  /// Reads rows [r0, r0 + rows) × K columns [k0, k0 + kc) of A (operand 0) or B (1) into `out`,
  /// in one pass with one RunCounter.
  void read_panel(int operand, i64 r0, i64 rows, i64 k0, i64 kc, double* out);
  /// THE SCHEDULE's steps 3–5 for the tile I rows [i0, i0 + rows) × J columns [j0, j0 + cols)
  /// in the C tile buffer (row stride cols).
  void end_tile(i64 i0, i64 rows, i64 j0, i64 cols);
  /// Adds C's current values of I rows [i0, i0 + rows) × J columns [j0, j0 + cols) to `C`
  /// (row stride cols): step 4.
  void add_current(i64 i0, i64 rows, i64 j0, i64 cols, double* C);
  /// Writes `C` (row stride cols) to those elements of C's new version: step 5.
  void write_rows(i64 i0, i64 rows, i64 j0, i64 cols, const double* C);
  /// Whether C(row_values, col_values) lies in one of this rank's tiles (the elements this
  /// rank checks under --verify).
  bool holds(const i64* row_values, const i64* col_values) const;

  Run& run_;
  GemmSpec spec_;
  i64 m_ = 1, n_ = 1, k_ = 1;                        // |I|, |J|, |K|
  i64 layer_ = 0, k0_ = 0, kx_ = 1;                  // this rank's layer x and its K columns [k0_, k0_ + kx_)
  std::optional<Context> layer_ctx_;                 // c > 1: the ranks at this position, ordered by layer
  i64 first_ = 0, count_ = 0;                        // this rank's segment: order[first_ .. first_ + count_)
  i64 next_ = 0;                                     // the tile run_tile() expects next
  std::optional<PieceCheckpoints> checkpoints_;      // inside the step, before tiles (made in compute())
  std::vector<bool> mine_;                           // by tile t: in this rank's segment
  std::optional<ElementSource> A_, B_, C0_;          // the operands, and C's current version when accumulating
  std::unique_ptr<SplitMap> map_A_, map_B_, map_C_;  // rows and columns of A, B, C (split_map.h)
  std::unique_ptr<DirectResult> result_;             // C's new version, written in place
  Buffer C_, panels_, scratch_;  // the C tile; the panel slots, slot s at s · slot_elements_; the reduction's
  i64 slot_elements_ = 0;
  std::vector<Slot> cache_;  // one per slot
  std::uint64_t clock_ = 0;  // the last use stamp handed out
  std::unique_ptr<Progress> progress_;
  Volumes redistribution_;  // the flushes of kept tensors (stage 1)
};

}  // namespace tcert
