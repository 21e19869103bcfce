// costmodel/partition.cpp — balanced splits in closed form.
#include "costmodel/partition.h"

#include <algorithm>

namespace tcec::costmodel {

SizeCounts balanced_sizes(std::int64_t n, std::int64_t t) {
  const std::int64_t q = n / t, r = n % t;
  SizeCounts out;
  if (r > 0) out.emplace_back(q + 1, r);
  if (t - r > 0) out.emplace_back(q, t - r);
  return out;
}

SizeCounts finest_sizes(const IndexTiles& index) {
  SizeCounts out;
  for (auto [s1, c1] : balanced_sizes(index.extent, index.t1)) {
    for (auto [s2, c2] : balanced_sizes(s1, index.t2)) {
      auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == s2; });
      if (it == out.end())
        out.emplace_back(s2, c1 * c2);
      else
        it->second += c1 * c2;
    }
  }
  return out;
}

std::int64_t group_share(const GroupTiling& group, std::int64_t g, std::int64_t p) {
  if (g == 1 || p < 0 || group.dist < 0) return group.extent();
  std::int64_t others = 1;
  for (std::size_t i = 0; i < group.indices.size(); ++i)
    if (static_cast<int>(i) != group.dist) others *= group.indices[i].extent;
  std::int64_t dist = 0;
  for (auto [s, c] : finest_sizes(group.indices[group.dist])) dist += c * piece(s, g, p);
  return others * dist;
}

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::int64_t max_part(const IndexTiles& x, int level) {
  const std::int64_t s1 = ceil_div(x.extent, x.t1);
  return level == 1 ? s1 : ceil_div(s1, x.t2);
}

}  // namespace

std::int64_t group_tile_max(const GroupTiling& group, std::int64_t g, int level) {
  std::int64_t rows = 1;
  for (std::size_t i = 0; i < group.indices.size(); ++i) {
    const IndexTiles& x = group.indices[i];
    if (g == 1 || static_cast<int>(i) != group.dist) {
      rows *= max_part(x, level);
      continue;
    }
    if (level == 2) {
      rows *= ceil_div(max_part(x, 2), g);
      continue;
    }
    std::int64_t best = 0;  // max over level-1 part sizes of Σ ⌈s2/g⌉ over its level-2 parts
    for (auto [s1, c1] : balanced_sizes(x.extent, x.t1)) {
      std::int64_t sum = 0;
      for (auto [s2, c2] : balanced_sizes(s1, x.t2)) sum += c2 * ceil_div(s2, g);
      best = std::max(best, sum);
    }
    rows *= best;
  }
  return rows;
}

std::int64_t min_dist_part(const GroupTiling& group) {
  if (group.dist < 0) return group.extent();
  std::int64_t least = group.indices[group.dist].extent;
  for (auto [s, c] : finest_sizes(group.indices[group.dist])) least = std::min(least, s);
  return least;
}

}  // namespace tcec::costmodel
