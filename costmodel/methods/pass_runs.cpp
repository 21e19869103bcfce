// costmodel/methods/pass_runs.cpp — PassRuns (pass_runs.h): runs of a pass counted from the
// carries of the flat indices, without visiting the elements.
#include "costmodel/methods/pass_runs.h"

#include <cmath>
#include <utility>

namespace tcec::costmodel {

using i64 = std::int64_t;
using u64 = std::uint64_t;

std::vector<i64> group_extents(const GroupTiling& a, const GroupTiling& b) {
  std::vector<i64> e;
  for (const GroupTiling* g : {&a, &b})
    for (const auto& x : g->indices) e.push_back(x.extent);
  return e;
}

PassRuns::Positions::Positions(std::vector<i64> extents, std::vector<i64> strides)
    : extents_(std::move(extents)), strides_(std::move(strides)) {
  // v → v + 1 with d trailing positions wrapping (v + 1 a multiple of the last d extents'
  // product, not of the last d + 1): position n−1−d rises by one, the last d fall to zero.
  const std::size_t n = extents_.size();
  i64 period = 1, fall = 0;
  for (std::size_t d = 0; d < n; ++d) {
    const std::size_t p = n - 1 - d;
    level_step_.push_back(strides_[p] - fall);
    level_period_.push_back(period);
    fall += (extents_[p] - 1) * strides_[p];
    period *= extents_[p];
  }
  level_period_.push_back(period);  // the whole: v + 1 never reaches it inside the range
}

i64 PassRuns::Positions::offset(i64 v) const {
  i64 at = 0;
  for (std::size_t p = extents_.size(); p-- > 0;) at += (v % extents_[p]) * strides_[p], v /= extents_[p];
  return at;
}

i64 PassRuns::Positions::steps_of(i64 lo, i64 hi, i64 step) const {
  if (lo >= hi) return 0;
  i64 count = 0;  // v in [lo, hi): v + 1 in (lo, hi]; multiples of E in (lo, hi] = ⌊hi/E⌋ − ⌊lo/E⌋
  for (std::size_t d = 0; d < level_step_.size(); ++d) {
    if (level_step_[d] != step) continue;
    const i64 e = level_period_[d], e1 = level_period_[d + 1];
    count += (hi / e - lo / e) - (hi / e1 - lo / e1);
  }
  return count;
}

namespace {

/// The positions [first, first + count) of a tensor whose position p is stored in dimension
/// perm[p]: their extents and their strides in the row-major file.
PassRuns::Positions positions(const std::vector<i64>& extents, const std::vector<int>& perm, std::size_t first,
                              std::size_t count) {
  std::vector<i64> stored(extents.size()), stride(extents.size(), 1);
  auto dim = [&](std::size_t p) { return perm.empty() ? p : static_cast<std::size_t>(perm[p]); };
  for (std::size_t p = 0; p < extents.size(); ++p) stored[dim(p)] = extents[p];
  for (std::size_t d = stored.size(); d-- > 1;) stride[d - 1] = stride[d] * stored[d];
  std::vector<i64> e, s;
  for (std::size_t p = first; p < first + count; ++p) e.push_back(extents[p]), s.push_back(stride[dim(p)]);
  return {e, s};
}

}  // namespace

double run_faults(double length, double step) {
  const auto window = static_cast<double>(kFaultAroundElements);
  return std::min(1.0 + (length - 1.0) / window, step / window);
}

double capped_faults(double faults, double elements) {
  return static_cast<double>(tcert::kElementBytes) * elements <= kMappedDropBytes
             ? std::min(faults, std::ceil(elements / static_cast<double>(kFaultAroundElements)))
             : faults;
}

i64 PassRuns::Positions::least_stride() const {
  i64 least = 0;
  for (std::size_t p = 0; p < extents_.size(); ++p)
    if (extents_[p] > 1 && (least == 0 || strides_[p] < least)) least = strides_[p];
  return least;
}

PassRuns::PassRuns(const std::vector<i64>& extents, const std::vector<int>& perm, std::size_t rows_first,
                   std::size_t rows_count, std::size_t cols_first, std::size_t cols_count)
    : rows_(positions(extents, perm, rows_first, rows_count)),
      cols_(positions(extents, perm, cols_first, cols_count)) {}

void PassRuns::begin() { first_ = true, runs_ = 0, faults_ = 0, last_window_ = -1; }

void PassRuns::start(i64 c0, i64 w) {
  begin();
  columns(c0, w);
}

void PassRuns::columns(i64 c0, i64 w) {
  if (c0 == columns_c0_ && w == width_) return;  // the same columns as the last call (range()'s whole rows)
  columns_c0_ = c0;
  inner_ = static_cast<u64>((w - 1) - cols_.steps_of(c0, c0 + w - 1, 1));  // columns that do not join
  begin_ = cols_.offset(c0), end_ = w == 1 ? begin_ : cols_.offset(c0 + w - 1), width_ = w;
}

void PassRuns::row(i64 r) {
  const i64 at = rows_.offset(r);
  runs_ += (first_ || at + begin_ != last_ + 1 ? 1 : 0) + inner_;
  first_ = false, last_ = at + end_;
  const i64 w0 = (at + span_low()) / kFaultAroundElements, w1 = (at + span_high()) / kFaultAroundElements;
  const double run_windows = row_runs() * (1.0 + (run_length() - 1.0) / static_cast<double>(kFaultAroundElements));
  faults_ += std::min(static_cast<double>(w1 - w0 + 1), run_windows) - (w0 == last_window_ ? 1.0 : 0.0);
  last_window_ = w1;
}

void PassRuns::range(i64 r0, i64 c0, i64 w, i64 from, i64 to) {
  if (from >= to) return;
  const i64 ra = from / w, ca = from % w, rb = (to - 1) / w, cb = (to - 1) % w;
  if (ra == rb) {
    columns(c0 + ca, cb - ca + 1);
    return row(r0 + ra);
  }
  columns(c0 + ca, w - ca);
  row(r0 + ra);
  if (rb > ra + 1) {
    columns(c0, w);
    rows(r0 + ra + 1, rb - ra - 1);
  }
  columns(c0, cb + 1);
  row(r0 + rb);
}

void PassRuns::range_by_columns(i64 r0, i64 c0, i64 w, i64 from, i64 to) {
  const i64 ra = (from + w - 1) / w, rb = to / w;  // the whole rows: [ra, rb)
  if (from >= to || ra >= rb) return range(r0, c0, w, from, to);
  range(r0, c0, w, from, ra * w);
  block_by_columns(r0 + ra, rb - ra, c0, w);
  range(r0, c0, w, rb * w, to);
}

void PassRuns::block_by_columns(i64 r0, i64 h, i64 c0, i64 w) {
  std::swap(rows_, cols_);  // the rows are the columns of a pass over the columns
  columns_c0_ = -1;         // columns() of the other positions
  columns(r0, h);
  rows(c0, w);
  std::swap(rows_, cols_);
  columns_c0_ = -1;
}

void PassRuns::rows(i64 r0, i64 h) {
  if (h <= 0) return;
  row(r0);
  if (h == 1) return;
  // Rows r → r + 1 inside the range join when row[r+1] − row[r] = end − begin + 1.
  const i64 joins = rows_.steps_of(r0, r0 + h - 1, end_ - begin_ + 1);
  runs_ += static_cast<u64>(h - 1) * (inner_ + 1) - static_cast<u64>(joins);
  last_ = rows_.offset(r0 + h - 1) + end_;
  // Page faults (faults()): each row after the first, on average over alignments.
  const double span_windows =
      1.0 + static_cast<double>(span_high() - span_low()) / static_cast<double>(kFaultAroundElements);
  faults_ += static_cast<double>(h - 1) *
             std::min(span_windows, row_runs() * run_faults(run_length(), static_cast<double>(rows_.least_stride())));
  last_window_ = (rows_.offset(r0 + h - 1) + span_high()) / kFaultAroundElements;
}

u64 PassRuns::block(i64 r0, i64 h, i64 c0, i64 w) {
  start(c0, w);
  rows(r0, h);
  return runs_;
}

PanelRuns::PanelRuns(const std::vector<i64>& extents, const std::vector<int>& perm, std::size_t rows_count,
                     std::size_t cols_count)
    : runs_(extents, perm, 0, rows_count, rows_count, cols_count), by_columns_(runs_.rows_innermost()) {}

void PanelRuns::pass(const std::vector<PanelRows>& rows, i64 k0, i64 kc) {
  if (!by_columns_) {
    runs_.start(k0, kc);
    for (const auto& [first, count] : rows) runs_.rows(first, count);
    return;
  }
  // runtime/methods/panel_read.cpp read_by_columns(): each range in blocks, each block column by column,
  // the pass going on from block to block.
  runs_.begin();
  for (const auto& [first, count] : rows)
    for (i64 b0 = first; b0 < first + count; b0 += kPanelRowBlock)
      runs_.block_by_columns(b0, std::min(kPanelRowBlock, first + count - b0), k0, kc);
}

}  // namespace tcec::costmodel
