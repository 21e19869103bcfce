// runtime/methods/tbs/tbs.cpp — TbsGemm: opening C's new version, the per-block steps of THE SCHEDULE
// (tbs_spec.h: panel reads, dgemm/dsyrk updates, tile and mirror writes; stream blocks: a
// resident panel, the rows below it read and multiplied one range at a time), commit and --verify.
#include "runtime/methods/tbs/tbs.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "runtime/base/error.h"
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

/// Σ lengths of the ranges before each range of `block` (its first row in the A panel).
std::vector<i64> panel_offsets(const TbsBlock& block) {
  std::vector<i64> out(block.lengths.size() + 1, 0);
  for (std::size_t u = 0; u < block.lengths.size(); ++u) out[u + 1] = out[u] + block.lengths[u];
  return out;
}

/// Calls tile(u, v, offset) for the tiles u > v of the C block in THE SCHEDULE's order, then
/// square(u, offset) for the diagonal squares when the block is diagonal (offsets in elements).
template <class Tile, class Square>
void for_each_tile(const TbsBlock& block, Tile tile, Square square) {
  i64 offset = 0;
  const std::size_t k = block.lengths.size();
  for (std::size_t u = 1; u < k; ++u)
    for (std::size_t v = 0; v < u; ++v) tile(u, v, offset), offset += block.lengths[u] * block.lengths[v];
  if (!block.diagonal) return;
  for (std::size_t u = 0; u < k; ++u) square(u, offset), offset += block.lengths[u] * block.lengths[u];
}

}  // namespace

TbsGemm::TbsGemm(Run& run, GemmSpec spec) : run_(run), spec_(std::move(spec)) {
  if (!std::holds_alternative<TbsSpec>(spec_.method)) throw Error("TbsGemm needs a tbs plan");
  const Context& ctx = run_.context();
  begin_contraction(run_, spec_);  // blocks, cover and memory, before any work; the step's peak
  for (std::size_t b = 0; b < part().blocks.size(); ++b)
    if (part().blocks[b].rank == ctx.rank()) mine_.push_back(b);
  run_.records().next_contraction();
  PhaseScope phase(Phase::Redistribute);  // Gao et al. §2.3 stage 1: only a kept A's flush
  const Volumes before = redistribution_now();
  flush_kept(run_, spec_.A.shape.name);
  redistribution_ = redistribution_now() - before;
  // C's new version, written in place by every rank with blocks.
  result_ = std::make_unique<DirectResult>(run_, spec_.C.shape, !mine_.empty());
  if (mine_.empty()) return;
  A_ = run_.input(spec_.A.shape);
  C_ = allocate(static_cast<std::size_t>(part().block_elements), "C block");
  panel_ = allocate(static_cast<std::size_t>(part().panel_rows * part().chunk), "A panel");
}

TbsGemm::~TbsGemm() = default;

void TbsGemm::compute(const std::function<void()>& body) {
  checkpoints_.emplace(run_, *result_, blocks());
  compute_phase(run_, spec_, progress_, body);
}

void TbsGemm::run_block(std::int64_t b) {
  if (b < 0 || b >= blocks()) throw Error(fmt::format("tbs block {} of a rank with {} blocks", b, blocks()));
  if (checkpoints_ && !checkpoints_->before(b)) return;  // its elements are in the checkpoint's copy of C
  const TbsBlock& block = part().blocks[mine_[static_cast<std::size_t>(b)]];
  std::memset(C_.data(), 0, C_.bytes());
  if (block.stream) {
    run_stream(block);
  } else {
    const i64 k = product(extents_of(spec_.K)), chunk = part().chunk;
    for (i64 k0 = 0; k0 < k; k0 += chunk) {
      const i64 kc = std::min(chunk, k - k0);
      read_panel(block, 0, block.starts.size(), k0, kc, panel_.data());
      multiply(block, kc);
    }
    write_block(block);
  }
  if (progress_) progress_->update(static_cast<double>(b + 1) / static_cast<double>(blocks()));
}

i64 TbsGemm::read_panel(const TbsBlock& block, std::size_t first, std::size_t last, i64 k0, i64 kc, double* out) {
  SplitMap map(spec_.A, extents_of(spec_.I), extents_of(spec_.K));
  std::vector<RowRange> rows;
  for (std::size_t u = first; u < last; ++u) rows.emplace_back(block.starts[u], block.lengths[u]);
  return read_panel_rows(run_, map, *A_, rows, k0, kc, out);
}

void TbsGemm::multiply(const TbsBlock& block, i64 kc) {
  const std::vector<i64> row0 = panel_offsets(block);
  const double* A = panel_.data();
  const auto n = [](i64 x) { return static_cast<std::size_t>(x); };
  for_each_tile(
      block,
      [&](std::size_t u, std::size_t v, i64 offset) {  // C[R_u, R_v] += alpha · A_u · A_vᵀ
        gemm_tile(n(block.lengths[u]), n(block.lengths[v]), n(kc), spec_.alpha, A + row0[u] * kc, n(kc),
                  A + row0[v] * kc, n(kc), 1.0, C_.data() + offset, n(block.lengths[v]));
      },
      [&](std::size_t u, i64 offset) {  // lower triangle of C[R_u, R_u] += alpha · A_u · A_uᵀ
        const Stopwatch clock;
        const int len = static_cast<int>(block.lengths[u]);
        cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, len, static_cast<int>(kc), spec_.alpha, A + row0[u] * kc,
                    static_cast<int>(kc), 1.0, C_.data() + offset, len);
        counters().add_kernel_time(clock.seconds());
      });
}

void TbsGemm::C_parts(const TbsBlock& block, std::vector<std::vector<std::uint64_t>>& rows,
                      std::vector<std::vector<std::uint64_t>>& cols) const {
  SplitMap map(spec_.C, extents_of(spec_.I), extents_of(spec_.J));  // I and J have the same extents
  rows.assign(block.starts.size(), {}), cols.assign(block.starts.size(), {});
  for (std::size_t u = 0; u < block.starts.size(); ++u)
    for (i64 r = block.starts[u]; r < block.starts[u] + block.lengths[u]; ++r)
      rows[u].push_back(map.row(r)), cols[u].push_back(map.col(r));
}

template <class Value>
void TbsGemm::write_pass(const std::vector<std::uint64_t>& row_part, const std::vector<std::uint64_t>& col_part,
                         const Value& value) {
  RunCounter requests;
  MappedWalk walk(kMappedPageBytes);
  for (std::size_t r = 0; r < row_part.size(); ++r)
    for (std::size_t c = 0; c < col_part.size(); ++c) {
      const std::uint64_t at = row_part[r] + col_part[c];
      requests.at(at);
      result_->put(walk, at, value(r, c));
    }
  result_->flush();  // streamed: the elements queued, adjacent ones in one request
  counters().add_disk_write(bytes_of(row_part.size() * col_part.size()));
  requests.add();
}

void TbsGemm::write_block(const TbsBlock& block) {
  std::vector<std::vector<std::uint64_t>> rows, cols;
  C_parts(block, rows, cols);
  const double* C = C_.data();
  for_each_tile(
      block,
      [&](std::size_t u, std::size_t v, i64 offset) {
        const double* tile = C + offset;
        const std::size_t width = cols[v].size();
        write_pass(rows[u], cols[v], [&](std::size_t r, std::size_t c) { return tile[r * width + c]; });  // C[R_u, R_v]
        write_pass(rows[v], cols[u], [&](std::size_t c, std::size_t r) { return tile[r * width + c]; });  // its mirror
      },
      [&](std::size_t u, i64 offset) {  // C[R_u, R_u], the upper triangle from the lower
        const double* square = C + offset;
        const std::size_t len = rows[u].size();
        write_pass(rows[u], cols[u],
                   [&](std::size_t r, std::size_t c) { return r >= c ? square[r * len + c] : square[c * len + r]; });
      });
}

void TbsGemm::run_stream(const TbsBlock& block) {
  const i64 k = product(extents_of(spec_.K));
  std::vector<std::vector<std::uint64_t>> rows, cols;
  C_parts(block, rows, cols);
  const double* A0 = panel_.data();
  double* Au = panel_.data() + read_panel(block, 0, 1, 0, k, panel_.data());  // R_0, resident
  const double* tile = C_.data();
  const std::size_t width = static_cast<std::size_t>(block.lengths[0]);
  const auto n = [](i64 x) { return static_cast<std::size_t>(x); };
  for (std::size_t u = 1; u < block.starts.size(); ++u) {
    read_panel(block, u, u + 1, 0, k, Au);
    // C[R_u, R_0] = alpha · A_u · A_0ᵀ (lengths[u] x lengths[0], row-major)
    gemm_tile(n(block.lengths[u]), width, n(k), spec_.alpha, Au, n(k), A0, n(k), 0.0, C_.data(), width);
    write_pass(rows[u], cols[0], [&](std::size_t r, std::size_t c) { return tile[r * width + c]; });  // C[R_u, R_0]
    write_pass(rows[0], cols[u], [&](std::size_t c, std::size_t r) { return tile[r * width + c]; });  // its mirror
  }
}

bool TbsGemm::holds(const i64* row_values, const i64* col_values) const {
  const i64 i = flatten(row_values, extents_of(spec_.I)), j = flatten(col_values, extents_of(spec_.J));
  const i64 hi = std::max(i, j), lo = std::min(i, j);
  for (const std::size_t b : mine_) {  // the block holding (hi, lo) holds its mirror too
    const TbsBlock& block = part().blocks[b];
    const std::size_t none = block.starts.size();
    std::size_t u = none, v = none;
    for (std::size_t w = 0; w < none; ++w) {
      if (hi >= block.starts[w] && hi < block.starts[w] + block.lengths[w]) u = w;
      if (lo >= block.starts[w] && lo < block.starts[w] + block.lengths[w]) v = w;
    }
    if (u == none || v == none) continue;
    if (block.stream ? u >= 1 && v == 0 : u != v || block.diagonal) return true;
  }
  return false;
}

void TbsGemm::finish() {
  // Direct: no stage 1 or 3 beyond a kept A's flush.
  finish_in_place(run_, spec_, *result_, redistribution_, !mine_.empty(),
                  [&](const i64* rv, const i64* cv) { return holds(rv, cv); });
}

}  // namespace tcert
