// runtime/methods/sfc/sfc.cpp — SfcGemm: opening C's new version, the per-tile steps of THE SCHEDULE
// (sfc_spec.h: the C tile started, the layer's K chunks walked serpentine through the LRU panel
// cache, the tile reduced over the layers, this rank's rows written), commit and --verify.
#include "runtime/methods/sfc/sfc.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/base/fault.h"
#include "runtime/index/linear_map.h"
#include "runtime/index/split_map.h"
#include "runtime/kernel/kernel.h"
#include "runtime/methods/contraction_steps.h"
#include "runtime/methods/panel_read.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/units.h"
#include "runtime/storage/mapped_walk.h"

namespace tcert {

namespace {

using i64 = std::int64_t;

constexpr int kA = 0, kB = 1;  // the operands of a panel

}  // namespace

SfcGemm::SfcGemm(Run& run, GemmSpec spec) : run_(run), spec_(std::move(spec)) {
  if (!std::holds_alternative<SfcSpec>(spec_.method)) throw Error("SfcGemm needs an sfc plan");
  const Context& ctx = run_.context();
  begin_contraction(run_, spec_);  // grid, curve, segments and memory, before any work; the step's peak
  m_ = product(extents_of(spec_.I)), n_ = product(extents_of(spec_.J)), k_ = product(extents_of(spec_.K));
  // THE SCHEDULE's layers: rank r is at position q = r mod g of layer x = r / g, g = P/c.
  const i64 c = part().layers, g = ctx.size() / c;
  layer_ = ctx.rank() / g, k0_ = piece_start(k_, c, layer_), kx_ = piece(k_, c, layer_);
  if (c > 1) layer_ctx_ = ctx.split(static_cast<int>(ctx.rank() % g), static_cast<int>(layer_));
  const auto q = static_cast<std::size_t>(ctx.rank() % g);
  first_ = part().segment[q], count_ = part().segment[q + 1] - first_;
  mine_.assign(static_cast<std::size_t>(part().tiles_I * part().tiles_J), false);
  for (i64 w = first_; w < first_ + count_; ++w)
    mine_[static_cast<std::size_t>(part().order[static_cast<std::size_t>(w)])] = true;
  run_.records().next_contraction();
  {  // Gao et al. §2.3 stage 1: only the flushes of kept tensors, which sfc reads from the store
    PhaseScope phase(Phase::Redistribute);
    const Volumes before = redistribution_now();
    flush_kept(run_, spec_.A.shape.name);
    flush_kept(run_, spec_.B.shape.name);
    if (spec_.accumulate) flush_kept(run_, spec_.C.shape.name);
    redistribution_ = redistribution_now() - before;
  }
  if (count_ > 0) C0_ = initial_C(run_, spec_);  // the current version, before the next is registered
  // C's new version, written in place by every rank with tiles; or C's latest version itself
  // (update_of_C()), each tile's rows read (add_current()) just before they are written.
  result_ = std::make_unique<DirectResult>(run_, spec_.C.shape, count_ > 0, update_of_C(run_, spec_));
  if (count_ == 0) return;
  A_ = run_.input(spec_.A.shape);
  B_ = run_.input(spec_.B.shape);
  map_A_ = std::make_unique<SplitMap>(spec_.A, extents_of(spec_.I), extents_of(spec_.K));
  map_B_ = std::make_unique<SplitMap>(spec_.B, extents_of(spec_.J), extents_of(spec_.K));
  map_C_ = std::make_unique<SplitMap>(spec_.C, extents_of(spec_.I), extents_of(spec_.J));
  // The first tiles are the largest: ⌈|I|/tiles_I⌉ rows, ⌈|J|/tiles_J⌉ columns.
  const i64 rows = piece(m_, part().tiles_I, 0), cols = piece(n_, part().tiles_J, 0);
  slot_elements_ = std::max(rows, cols) * part().chunk;
  // The slot table: no more entries than the distinct panels this rank reads ((its tiles' rows +
  // columns) × its layer's chunks). A miss takes the free slot of lowest index, so slots past
  // those are never used and the walk is the same; the table of all `slots` (the memory's worth
  // of small panels: millions at 512 MB) cost its pages and a scan of it per panel.
  std::vector<char> row_seen(static_cast<std::size_t>(part().tiles_I)),
      col_seen(static_cast<std::size_t>(part().tiles_J));
  i64 panels = 0;
  for (i64 w = first_; w < first_ + count_; ++w) {
    const i64 t = part().order[static_cast<std::size_t>(w)];
    panels += !std::exchange(row_seen[static_cast<std::size_t>(t / part().tiles_J)], 1);
    panels += !std::exchange(col_seen[static_cast<std::size_t>(t % part().tiles_J)], 1);
  }
  const i64 chunks = (kx_ + part().chunk - 1) / part().chunk;
  cache_.assign(static_cast<std::size_t>(std::min(part().slots, panels * chunks)), Slot{});
  C_ = allocate(static_cast<std::size_t>(rows * cols), "C tile");
  panels_ = allocate(static_cast<std::size_t>(part().slots * slot_elements_), "panel slots");
  if (c > 1) scratch_ = allocate(static_cast<std::size_t>(slot_elements_), "reduction scratch");
}

SfcGemm::~SfcGemm() {
  if (layer_ctx_) Context::free_split(*layer_ctx_);
}

void SfcGemm::compute(const std::function<void()>& body) {
  checkpoints_.emplace(run_, *result_, count_);
  compute_phase(run_, spec_, progress_, body);
}

void SfcGemm::run_tile(std::int64_t w) {
  if (w != next_ || w >= count_)
    throw Error(fmt::format("sfc tile {} of a rank with {} tiles; the tiles run in order and tile {} is next", w,
                            count_, next_));
  ++next_;
  if (checkpoints_ && !checkpoints_->before(w)) return;  // its rows are in the checkpoint's copy of C
  const SfcSpec& s = part();
  const i64 t = s.order[static_cast<std::size_t>(first_ + w)], ti = t / s.tiles_J, tj = t % s.tiles_J;
  const i64 i0 = piece_start(m_, s.tiles_I, ti), rows = piece(m_, s.tiles_I, ti);
  const i64 j0 = piece_start(n_, s.tiles_J, tj), cols = piece(n_, s.tiles_J, tj);
  std::memset(C_.data(), 0, bytes_of(static_cast<std::size_t>(rows * cols)));
  const i64 chunks = (kx_ + s.chunk - 1) / s.chunk;  // of this layer's K columns
  const auto z = [](i64 x) { return static_cast<std::size_t>(x); };
  for (i64 c = 0; c < chunks; ++c) {
    const i64 chunk = w % 2 == 0 ? c : chunks - 1 - c;  // serpentine: odd tiles walk K backward
    const i64 kc = std::min(s.chunk, kx_ - chunk * s.chunk);
    const double* A = panel(kA, ti, chunk);
    const double* B = panel(kB, tj, chunk);
    gemm_tile(z(rows), z(cols), z(kc), spec_.alpha, A, z(kc), B, z(kc), 1.0, C_.data(), z(cols));
  }
  end_tile(i0, rows, j0, cols);
  if (progress_) progress_->update(static_cast<double>(w + 1) / static_cast<double>(count_));
}

const double* SfcGemm::panel(int operand, i64 tile, i64 chunk) {
  std::size_t slot = cache_.size();
  for (std::size_t s = 0; s < cache_.size() && slot == cache_.size(); ++s)
    if (cache_[s].used > 0 && cache_[s].operand == operand && cache_[s].tile == tile && cache_[s].chunk == chunk)
      slot = s;
  if (slot < cache_.size()) {  // a hit
    cache_[slot].used = ++clock_;
    return panels_.data() + static_cast<i64>(slot) * slot_elements_;
  }
  slot = 0;  // a miss: the free slot of lowest index (stamp 0), else the least recently used
  for (std::size_t s = 1; s < cache_.size(); ++s)
    if (cache_[s].used < cache_[slot].used) slot = s;
  cache_[slot] = {operand, tile, chunk, ++clock_};
  const SfcSpec& s = part();
  const i64 k0 = k0_ + chunk * s.chunk, kc = std::min(s.chunk, k0_ + kx_ - k0);
  const i64 n = operand == kA ? m_ : n_, g = operand == kA ? s.tiles_I : s.tiles_J;
  double* const into = panels_.data() + static_cast<i64>(slot) * slot_elements_;
  read_panel(operand, piece_start(n, g, tile), piece(n, g, tile), k0, kc, into);
  return into;
}

void SfcGemm::read_panel(int operand, i64 r0, i64 rows, i64 k0, i64 kc, double* out) {
  const RowRange range{r0, rows};
  read_panel_rows(run_, operand == kA ? *map_A_ : *map_B_, operand == kA ? *A_ : *B_, {&range, 1}, k0, kc, out);
}

void SfcGemm::end_tile(i64 i0, i64 rows, i64 j0, i64 cols) {
  const i64 c = part().layers;
  if (c > 1) {  // step 3: the c partial tiles summed, each layer's rows on that layer's rank
    std::vector<std::size_t> counts(static_cast<std::size_t>(c));
    for (i64 x = 0; x < c; ++x)
      counts[static_cast<std::size_t>(x)] = static_cast<std::size_t>(piece(rows, c, x) * cols);
    ring_reduce_scatter(*layer_ctx_, C_.data(), counts, std::span<double>(scratch_.data(), scratch_.size()));
  }
  const i64 first = piece_start(rows, c, layer_), mine = piece(rows, c, layer_);
  if (mine == 0) return;
  double* const C = C_.data() + first * cols;
  if (C0_) add_current(i0 + first, mine, j0, cols, C);
  write_rows(i0 + first, mine, j0, cols, C);
  counted_fault_point(run_.context().rank(), "write_C");
}

void SfcGemm::add_current(i64 i0, i64 rows, i64 j0, i64 cols, double* C) {
  std::vector<std::uint64_t> row_part, col_part;
  map_C_->rows(i0, rows, row_part);
  map_C_->cols(j0, cols, col_part);
  const Stopwatch clock;  // disk busy time, as DiskFile counts its transfers
  RunCounter requests;    // the rows of C's current version, read in one pass
  MappedWalk walk(kFaultAroundBytes);
  const auto runs = consecutive_runs(col_part);
  for (const std::uint64_t row : row_part) {
    for (const auto& [c, n] : runs) {
      requests.span(row + col_part[c], n);
      run_.mapped().touched_span(walk, row + col_part[c], n);
      for (std::size_t e = 0; e < n; ++e) C[e] += (*C0_)(row + col_part[c] + e);
      C += n;
    }
  }
  const auto bytes = bytes_of(static_cast<std::uint64_t>(rows * cols));
  counters().add_disk_read(bytes);
  requests.add();
  counters().add_disk_time(clock.seconds());
}

void SfcGemm::write_rows(i64 i0, i64 rows, i64 j0, i64 cols, const double* C) {
  std::vector<std::uint64_t> row_part, col_part;
  map_C_->rows(i0, rows, row_part);
  map_C_->cols(j0, cols, col_part);
  const Stopwatch clock;  // disk busy time, as DiskFile counts its transfers
  RunCounter requests;    // the rows, written in one pass
  MappedWalk walk(kMappedPageBytes);
  const auto runs = consecutive_runs(col_part);
  for (const std::uint64_t row : row_part) {
    for (const auto& [c, n] : runs) {
      requests.span(row + col_part[c], n);
      result_->write(walk, row + col_part[c], n, C);
      C += n;
    }
  }
  result_->flush();  // streamed: the rows' runs, in few requests
  const auto bytes = bytes_of(static_cast<std::uint64_t>(rows * cols));
  counters().add_disk_write(bytes);
  requests.add();
  counters().add_disk_time(clock.seconds());
}

bool SfcGemm::holds(const i64* row_values, const i64* col_values) const {
  const i64 i = flatten(row_values, extents_of(spec_.I)), j = flatten(col_values, extents_of(spec_.J));
  const i64 ti = part_of(m_, part().tiles_I, i), t = ti * part().tiles_J + part_of(n_, part().tiles_J, j);
  if (!mine_[static_cast<std::size_t>(t)]) return false;
  // Of a tile it walks, a rank writes its layer's rows (THE SCHEDULE's step 3).
  const i64 rows = piece(m_, part().tiles_I, ti);
  return part_of(rows, part().layers, i - piece_start(m_, part().tiles_I, ti)) == layer_;
}

void SfcGemm::finish() {
  // Direct: no stage 1 or 3 beyond the flushes.
  finish_in_place(run_, spec_, *result_, redistribution_, count_ > 0,
                  [&](const i64* rv, const i64* cv) { return holds(rv, cv); });
}

}  // namespace tcert
