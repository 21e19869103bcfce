// costmodel/methods/pass_runs.cpp — part_offsets() and PassRuns (pass_runs.h).
#include "costmodel/methods/pass_runs.h"

namespace tcec::costmodel {

using i64 = std::int64_t;
using u64 = std::uint64_t;

std::vector<u64> part_offsets(const std::vector<i64>& extents, const std::vector<int>& perm, std::size_t first,
                              std::size_t count) {
  std::vector<u64> stored(extents.size()), stride(extents.size(), 1);
  for (std::size_t p = 0; p < extents.size(); ++p)
    stored[perm.empty() ? p : static_cast<std::size_t>(perm[p])] = static_cast<u64>(extents[p]);
  for (std::size_t d = stored.size(); d-- > 1;) stride[d - 1] = stride[d] * stored[d];
  i64 total = 1;
  for (std::size_t p = first; p < first + count; ++p) total *= extents[p];
  std::vector<u64> out(static_cast<std::size_t>(total));
  std::vector<i64> value(count, 0);
  for (i64 flat = 0; flat < total; ++flat) {
    u64 at = 0;
    for (std::size_t q = 0; q < count; ++q)
      at += static_cast<u64>(value[q]) * stride[perm.empty() ? first + q : static_cast<std::size_t>(perm[first + q])];
    out[static_cast<std::size_t>(flat)] = at;
    for (std::size_t q = count; q-- > 0;) {   // next multi-index, last position fastest
      if (++value[q] < extents[first + q]) break;
      value[q] = 0;
    }
  }
  return out;
}

std::vector<i64> group_extents(const GroupTiling& a, const GroupTiling& b) {
  std::vector<i64> e;
  for (const GroupTiling* g : {&a, &b})
    for (const auto& x : g->indices) e.push_back(x.extent);
  return e;
}

PassRuns::PassRuns(std::vector<u64> row, std::vector<u64> col) : row_(std::move(row)), col_(std::move(col)) {
  breaks_.assign(col_.size() + 1, 0);
  for (std::size_t c = 0; c + 1 < col_.size(); ++c) breaks_[c + 1] = breaks_[c] + (col_[c + 1] != col_[c] + 1);
}

void PassRuns::start(i64 c0, i64 w) {
  first_ = true;
  inner_ = breaks_[static_cast<std::size_t>(c0 + w - 1)] - breaks_[static_cast<std::size_t>(c0)];
  begin_ = col_[static_cast<std::size_t>(c0)], end_ = col_[static_cast<std::size_t>(c0 + w - 1)];
  runs_ = 0;
}

void PassRuns::row(i64 r) {
  const u64 at = row_[static_cast<std::size_t>(r)];
  runs_ += (first_ || at + begin_ != last_ + end_ + 1 ? 1 : 0) + inner_;
  first_ = false, last_ = at;
}

u64 PassRuns::block(i64 r0, i64 h, i64 c0, i64 w) {
  start(c0, w);
  for (i64 r = r0; r < r0 + h; ++r) row(r);
  return runs_;
}

}  // namespace tcec::costmodel
