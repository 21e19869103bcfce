// runtime/spec/tiling.cpp — GroupLayout: the two-level tiling rule of a group.
#include "runtime/spec/tiling.h"

#include <algorithm>
#include <string>
#include <utility>

#include "runtime/base/error.h"

namespace tcert {
namespace {

[[noreturn]] void invalid(const std::string& what) { throw Error("invalid group layout: " + what); }

void check_index(std::size_t k, const IndexTiling& x) {
  const std::string at = "index " + std::to_string(k) + " (extent " + std::to_string(x.extent) + ", t1 " +
                         std::to_string(x.t1) + ", t2 " + std::to_string(x.t2) + ")";
  if (x.extent < 1) invalid(at + " has no elements");
  if (x.t1 < 1 || x.t1 > x.extent) invalid(at + " needs 1 <= t1 <= extent");
  if (x.t2 < 1 || x.t2 > x.extent / x.t1) invalid(at + " needs 1 <= t2 <= extent / t1");
}

}  // namespace

GroupLayout::GroupLayout(std::vector<IndexTiling> indices, int dist, std::int64_t parts)
    : indices_(std::move(indices)), dist_(dist), parts_(parts) {
  const std::size_t n = indices_.size();
  if (dist_ < -1 || dist_ >= static_cast<int>(n)) invalid("dist " + std::to_string(dist_));
  if (parts_ < 1 || (dist_ < 0 && parts_ != 1))
    invalid(std::to_string(parts_) + " parts with dist " + std::to_string(dist_));
  stride1_.assign(n, 1);
  stride2_.assign(n, 1);
  start_.resize(n);
  for (std::size_t k = n; k-- > 0;) {
    const IndexTiling& x = indices_[k];
    check_index(k, x);
    stride1_[k] = tiles1_;
    stride2_[k] = tiles2_;
    tiles1_ *= x.t1;
    tiles2_ *= x.t2;
    for (std::int64_t a = 0; a < x.t1; ++a) {
      const std::int64_t s1 = tcert::piece(x.extent, x.t1, a), b1 = tcert::piece_start(x.extent, x.t1, a);
      for (std::int64_t b = 0; b < x.t2; ++b) start_[k].push_back(b1 + tcert::piece_start(s1, x.t2, b));
    }
    start_[k].push_back(x.extent);
  }
  if (dist_ >= 0) order_.push_back(static_cast<std::size_t>(dist_));
  for (std::size_t k = 0; k < n; ++k)
    if (static_cast<int>(k) != dist_) order_.push_back(k);
}

std::int64_t GroupLayout::part_id(std::size_t k, std::int64_t f) const {
  const IndexTiling& x = indices_[k];
  return ((f / tiles2_ / stride1_[k]) % x.t1) * x.t2 + ((f % tiles2_) / stride2_[k]) % x.t2;
}

std::int64_t GroupLayout::size_of(std::size_t k, std::int64_t f) const {
  const std::int64_t j = part_id(k, f);
  return start_[k][j + 1] - start_[k][j];
}

std::int64_t GroupLayout::extent() const {
  std::int64_t e = 1;
  for (const IndexTiling& x : indices_) e *= x.extent;
  return e;
}

std::int64_t GroupLayout::rows(std::int64_t f, std::int64_t p) const {
  std::int64_t r = 1;
  for (std::size_t k = 0; k < indices_.size(); ++k) {
    const std::int64_t s = size_of(k, f);
    r *= (p >= 0 && static_cast<int>(k) == dist_) ? tcert::piece(s, parts_, p) : s;
  }
  return r;
}

std::int64_t GroupLayout::piece_start(std::int64_t f, std::int64_t p) const {
  if (p < 0 || dist_ < 0) return 0;
  const std::int64_t s = size_of(static_cast<std::size_t>(dist_), f);
  return tcert::piece_start(s, parts_, p) * (rows(f, -1) / s);
}

std::int64_t GroupLayout::total(std::int64_t p) const {
  if (p < 0 || dist_ < 0) return extent();
  // Σ_f piece(s_dist(f)) · Π_{k≠dist} s_k(f) factorises over the indices.
  const std::vector<std::int64_t>& st = start_[static_cast<std::size_t>(dist_)];
  std::int64_t sum = 0;
  for (std::size_t j = 0; j + 1 < st.size(); ++j) sum += tcert::piece(st[j + 1] - st[j], parts_, p);
  return sum * (extent() / indices_[static_cast<std::size_t>(dist_)].extent);
}

std::pair<std::int64_t, std::int64_t> GroupLayout::value_range(std::size_t k, std::int64_t f, std::int64_t p) const {
  const std::int64_t j = part_id(k, f), first = start_[k][j], s = start_[k][j + 1] - first;
  if (p < 0 || static_cast<int>(k) != dist_) return {first, s};
  return {first + tcert::piece_start(s, parts_, p), tcert::piece(s, parts_, p)};
}

std::int64_t GroupLayout::finest_part(std::size_t k, std::int64_t v) const {
  const IndexTiling& x = indices_[k];
  const std::int64_t a = tcert::part_of(x.extent, x.t1, v), b1 = tcert::piece_start(x.extent, x.t1, a);
  return a * x.t2 + tcert::part_of(tcert::piece(x.extent, x.t1, a), x.t2, v - b1);
}

std::int64_t GroupLayout::part_of_value(std::size_t k, std::int64_t v) const {
  if (static_cast<int>(k) != dist_) return 0;
  const std::int64_t j = finest_part(k, v);
  return tcert::part_of(start_[k][j + 1] - start_[k][j], parts_, v - start_[k][j]);
}

GroupLayout::Location GroupLayout::locate(const std::int64_t* values) const {
  Location loc;
  std::int64_t l1 = 0, l2 = 0;
  constexpr std::size_t kKept = 16;  // finest part ids kept for the second pass (groups are small)
  std::int64_t part[kKept];
  for (std::size_t k = 0; k < indices_.size(); ++k) {
    const IndexTiling& x = indices_[k];
    const std::int64_t a = tcert::part_of(x.extent, x.t1, values[k]);
    const std::int64_t b1 = tcert::piece_start(x.extent, x.t1, a);
    const std::int64_t b = tcert::part_of(tcert::piece(x.extent, x.t1, a), x.t2, values[k] - b1);
    l1 = l1 * x.t1 + a;
    l2 = l2 * x.t2 + b;
    if (k < kKept) part[k] = a * x.t2 + b;
  }
  loc.tile = l1 * tiles2_ + l2;
  for (std::size_t k : order_) {
    const std::int64_t j = k < kKept ? part[k] : part_id(k, loc.tile), s = start_[k][j + 1] - start_[k][j];
    std::int64_t rel = values[k] - start_[k][j];
    if (static_cast<int>(k) == dist_) {
      loc.part = tcert::part_of(s, parts_, rel);
      rel -= tcert::piece_start(s, parts_, loc.part);
    }
    loc.offset = loc.offset * s + rel;
  }
  return loc;
}

void GroupLayout::values_at(std::int64_t tile, std::int64_t part, std::int64_t offset, std::int64_t* values) const {
  std::int64_t off = offset + piece_start(tile, part);
  for (std::size_t i = order_.size(); i-- > 0;) {
    const std::size_t k = order_[i];
    const std::int64_t j = part_id(k, tile), s = start_[k][j + 1] - start_[k][j];
    values[k] = start_[k][j] + off % s;
    off /= s;
  }
}

void GroupLayout::values_from(std::int64_t tile, std::int64_t part, std::int64_t offset, std::int64_t count,
                              std::int64_t* values) const {
  const std::size_t n = indices_.size();
  if (count <= 0 || n == 0) return;
  values_at(tile, part, offset, values);
  std::vector<std::int64_t> first(n), end(n);  // per index, the tile's range of values
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t j = part_id(k, tile);
    first[k] = start_[k][j], end[k] = start_[k][j + 1];
  }
  for (std::int64_t r = 1; r < count; ++r) {
    std::int64_t* v = values + r * static_cast<std::int64_t>(n);
    std::copy_n(v - n, n, v);
    for (std::size_t i = order_.size(); i-- > 0;) {  // innermost first, carrying outwards
      const std::size_t k = order_[i];
      if (++v[k] < end[k]) break;
      v[k] = first[k];
    }
  }
}

}  // namespace tcert
