// costmodel/partition.cpp — balanced splits in closed form.
#include "costmodel/partition.h"

#include <algorithm>

namespace tcec::costmodel {

tcert::GroupLayout group_layout(const GroupTiling& group, std::int64_t parts) {
  std::vector<tcert::IndexTiling> indices;
  for (const IndexTiles& x : group.indices) indices.push_back(x.tiling());
  return tcert::GroupLayout(std::move(indices), group.dist, group.dist < 0 ? 1 : parts);
}

SizeCounts balanced_sizes(std::int64_t n, std::int64_t t) {
  const std::int64_t longer = n % t;  // piece(): parts 0 … longer − 1 are one element longer
  SizeCounts out;
  if (longer > 0) out.emplace_back(piece(n, t, 0), longer);
  if (t - longer > 0) out.emplace_back(piece(n, t, t - 1), t - longer);
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

/// The largest part of x at `level`: part 0 of each balanced split (piece()).
std::int64_t max_part(const IndexTiles& x, int level) {
  const std::int64_t s1 = piece(x.extent, x.t1, 0);
  return level == 1 ? s1 : piece(s1, x.t2, 0);
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
      rows *= piece(max_part(x, 2), g, 0);
      continue;
    }
    std::int64_t best = 0;  // max over level-1 part sizes of Σ ⌈s2/g⌉ (part 0's) over its level-2 parts
    for (auto [s1, c1] : balanced_sizes(x.extent, x.t1)) {
      std::int64_t sum = 0;
      for (auto [s2, c2] : balanced_sizes(s1, x.t2)) sum += c2 * piece(s2, g, 0);
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
