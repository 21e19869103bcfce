// costmodel/methods/tbs/family.cpp — tbs_schedule(): the tiled TBS family of Beaumont et al.
// (SPAA'22) §5.1 with uneven tiles and its deal to the ranks (family.h).
#include "costmodel/methods/tbs/family.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "costmodel/partition.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;

constexpr i64 kMaxZones = 64;  // k, the tiles per block side, at most

/// Elements of a diagonal block of n rows in q even tiles: (n² + Σ h²)/2.
i64 leaf_elements(i64 n, i64 q) {
  const i64 base = n / q, extra = n % q;
  const i64 squares = extra * (base + 1) * (base + 1) + (q - extra) * base * base;
  return (n * n + squares) / 2;
}

/// The fewest even tiles q in [1, n] whose diagonal block fits `words`; 0 when none.
i64 leaf_tiles(i64 n, i64 words) {
  if (leaf_elements(n, n) > words) return 0;
  i64 lo = 1, hi = n;  // leaf_elements falls as q grows
  while (lo < hi) {
    const i64 mid = lo + (hi - lo) / 2;
    if (leaf_elements(n, mid) <= words)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// True when c is coprime with every integer in {2, …, k − 2} (Lemma 5.5's condition on c).
bool valid_zone_count(i64 c, i64 k) {
  for (i64 p = 2; p <= k - 2 && p <= c; ++p)
    if (c % p == 0) return false;
  return true;
}

/// The largest tile height b with k(k−1)/2·b² <= words.
i64 largest_tile(i64 k, i64 words) {
  const i64 pairs = k * (k - 1) / 2;
  auto b = static_cast<i64>(std::sqrt(static_cast<double>(words) / static_cast<double>(pairs)));
  while (b > 0 && pairs * b * b > words) --b;
  while (pairs * (b + 1) * (b + 1) <= words) ++b;
  return b;
}

/// Rows of zone u when n rows are cut into c·k tiles.
i64 zone_rows(i64 n, i64 c, i64 k, i64 u) {
  const i64 T = c * k;
  return piece_start(n, T, (u + 1) * c) - piece_start(n, T, u * c);
}

/// The recursion's choices, memoised by the rows of a (sub)problem.
class Family {
 public:
  explicit Family(i64 words) : words_(words) {}

  struct Choice {
    i64 leaf = 0;  ///< tiles of the leaf block; 0 for a TBS level
    i64 k = 0, c = 0;
    /// Rows of the triangle-block part (the first ones; c·k tiles over them); the rest, a strip
    /// of n − core rows, meets them in rectangles (strip_groups × rest_groups blocks of two
    /// ranges) and its own triangle recursively (Algorithm 4's OOC_SYRK part).
    i64 core = 0, strip_groups = 0, rest_groups = 0;
    double rows = std::numeric_limits<double>::infinity();  ///< A rows read in all
  };

  const Choice& choose(i64 n) {
    if (auto it = memo_.find(n); it != memo_.end()) return it->second;
    Choice best;
    if (const i64 q = leaf_tiles(n, words_); q > 0) {
      best.leaf = q, best.rows = static_cast<double>(n);
      return memo_[n] = best;
    }
    for (i64 k = 2; k <= kMaxZones && k * (k - 1) <= n; ++k) {
      const i64 b = largest_tile(k, words_);
      if (b < 1) break;
      // All n rows in c·k uneven tiles: the least valid c whose tiles fit.
      i64 c = std::max({i64{1}, k - 1, (n + k * b - 1) / (k * b)});
      while (!valid_zone_count(c, k)) ++c;
      if (c * k <= n) consider(best, level(n, k, c, 0, 0));
      // The first c·k·b rows in full tiles and a strip, for the largest valid c below.
      for (c = (n - 1) / (k * b); c >= std::max(i64{1}, k - 1) && !valid_zone_count(c, k);) --c;
      if (c < std::max(i64{1}, k - 1)) continue;
      const i64 core = c * k * b, strip = n - core;
      i64 groups = 0, rest = 0;
      const double cross = rectangles(core, strip, &groups, &rest);
      consider(best, level(core, k, c, groups, rest) + Choice{0, 0, 0, 0, 0, 0, cross + choose(strip).rows});
    }
    return memo_[n] = best;
  }

  /// Appends the blocks of rows [first, first + n) in the family's order.
  void build(i64 first, i64 n, std::vector<TbsBlock>& out) {
    const Choice ch = choose(n);
    if (ch.leaf > 0) {
      TbsBlock b;
      b.diagonal = true;
      for (i64 t = 0; t < ch.leaf; ++t)
        b.starts.push_back(first + piece_start(n, ch.leaf, t)), b.lengths.push_back(piece(n, ch.leaf, t));
      out.push_back(std::move(b));
      return;
    }
    const i64 k = ch.k, c = ch.c, T = k * c, core = ch.core;
    for (i64 i = 0; i < c; ++i)
      for (i64 j = 0; j < c; ++j) {
        TbsBlock b;  // B_{i,j}: row u·c + f(u) of each zone row u (Definition 5.4)
        for (i64 u = 0; u < k; ++u) {
          const i64 f = u == 0 ? j : (i + j * (u - 1)) % c;
          b.starts.push_back(first + piece_start(core, T, u * c + f));
          b.lengths.push_back(piece(core, T, u * c + f));
        }
        out.push_back(std::move(b));
      }
    for (i64 u = 0; u < k; ++u)  // the diagonal zones, recursively (Algorithm 4)
      build(first + piece_start(core, T, u * c), zone_rows(core, c, k, u), out);
    if (core == n) return;
    const i64 strip = n - core;  // the strip against the core, in rectangles, then its own triangle
    for (i64 r = 0; r < ch.rest_groups; ++r)
      for (i64 g = 0; g < ch.strip_groups; ++g) {
        TbsBlock b;
        b.starts = {first + piece_start(core, ch.rest_groups, r),
                    first + core + piece_start(strip, ch.strip_groups, g)};
        b.lengths = {piece(core, ch.rest_groups, r), piece(strip, ch.strip_groups, g)};
        out.push_back(std::move(b));
      }
    build(first + core, strip, out);
  }

 private:
  static void consider(Choice& best, const Choice& c) {
    if (c.rows < best.rows) best = c;
  }

  /// A TBS level with its triangle blocks over the first `core` rows (rows read: c·core, each
  /// tile in c blocks, plus its zones recursively; the strip's are added by the caller).
  Choice level(i64 core, i64 k, i64 c, i64 strip_groups, i64 rest_groups) {
    Choice ch{0, k, c, core, strip_groups, rest_groups, static_cast<double>(c) * static_cast<double>(core)};
    for (i64 u = 0; u < k; ++u) ch.rows += choose(zone_rows(core, c, k, u)).rows;
    return ch;
  }

  /// Rows read by the rectangles of `strip` rows against `core` rows: g strip groups of at most
  /// a = ⌈strip/g⌉ rows, the core in groups of at most ⌊W/a⌋, each block reading both; the best g.
  double rectangles(i64 core, i64 strip, i64* groups, i64* rest) const {
    double best = std::numeric_limits<double>::infinity();
    for (i64 g = 1; g <= std::min<i64>(strip, 256); ++g) {
      const i64 a = (strip + g - 1) / g, width = std::min(core, words_ / a);
      if (width < 1) continue;
      const i64 r = (core + width - 1) / width;
      const double rows = static_cast<double>(g) * static_cast<double>(core) + static_cast<double>(r * strip);
      if (rows < best) best = rows, *groups = g, *rest = r;
    }
    return best;
  }

  friend Choice operator+(Choice a, const Choice& b) {
    a.rows += b.rows;
    return a;
  }

 private:
  i64 words_;
  std::map<i64, Choice> memo_;
};

}  // namespace

i64 TbsBlock::rows() const { return std::accumulate(lengths.begin(), lengths.end(), i64{0}); }

i64 TbsBlock::pairs() const {
  i64 sum = 0;
  for (std::size_t u = 0; u < lengths.size(); ++u) {
    if (stream) {
      sum += u > 0 ? lengths[u] * lengths[0] : 0;
      continue;
    }
    for (std::size_t v = 0; v < u; ++v) sum += lengths[u] * lengths[v];
    if (diagonal) sum += lengths[u] * (lengths[u] + 1) / 2;
  }
  return sum;
}

i64 TbsBlock::block_elements() const {
  if (stream) return lengths[0] * *std::max_element(lengths.begin() + 1, lengths.end());
  i64 sum = 0;
  for (std::size_t u = 0; u < lengths.size(); ++u) {
    for (std::size_t v = 0; v < u; ++v) sum += lengths[u] * lengths[v];
    if (diagonal) sum += lengths[u] * lengths[u];
  }
  return sum;
}

i64 TbsBlock::written() const {
  if (stream) return 2 * pairs();
  i64 sum = 0;
  for (std::size_t u = 0; u < lengths.size(); ++u) {
    for (std::size_t v = 0; v < u; ++v) sum += 2 * lengths[u] * lengths[v];
    if (diagonal) sum += lengths[u] * lengths[u];
  }
  return sum;
}

i64 TbsSchedule::buffer_rows(i64 chunk) const { return std::max(panel_rows, (stream_elements + chunk - 1) / chunk); }

TbsSchedule tbs_schedule(i64 n, i64 block_words, i64 processors, const TbsStream& stream) {
  TbsSchedule s;
  Family family(block_words);
  if (stream.panel <= 0) {
    if (!std::isfinite(family.choose(n).rows)) return s;
    family.build(0, n, s.blocks);
  } else {
    for (i64 first = 0; first < n; first += stream.panel) {
      const i64 resident = std::min(stream.panel, n - first), below = n - first - resident;
      if (!std::isfinite(family.choose(resident).rows)) return {};
      if (below > 0) {  // the panel against every row below it, in groups (balanced)
        TbsBlock b;
        b.stream = true;
        b.starts = {first}, b.lengths = {resident};
        const i64 groups = (below + stream.group - 1) / stream.group;
        for (i64 g = 0; g < groups; ++g)
          b.starts.push_back(first + resident + piece_start(below, groups, g)),
              b.lengths.push_back(piece(below, groups, g));
        s.blocks.push_back(std::move(b));
      }
      family.build(first, resident, s.blocks);  // the panel's own triangle
    }
  }
  // Deal by work, largest first, to the least loaded rank (Graham's LPT rule).
  std::vector<std::size_t> by_work(s.blocks.size());
  std::iota(by_work.begin(), by_work.end(), std::size_t{0});
  std::stable_sort(by_work.begin(), by_work.end(),
                   [&](std::size_t a, std::size_t b) { return s.blocks[a].pairs() > s.blocks[b].pairs(); });
  std::vector<i64> load(static_cast<std::size_t>(processors), 0);
  for (std::size_t b : by_work) {
    const auto least = std::min_element(load.begin(), load.end());
    s.blocks[b].rank = least - load.begin();
    *least += s.blocks[b].pairs();
  }
  for (const TbsBlock& b : s.blocks) {
    s.block_elements = std::max(s.block_elements, b.block_elements());
    if (b.stream)
      s.stream_elements =
          std::max(s.stream_elements,
                   (b.lengths[0] + *std::max_element(b.lengths.begin() + 1, b.lengths.end())) * stream.columns);
    else
      s.panel_rows = std::max(s.panel_rows, b.rows());
  }
  return s;
}

i64 tbs_rows_read(i64 n, i64 block_words) {
  const double rows = Family(block_words).choose(n).rows;
  return std::isfinite(rows) ? static_cast<i64>(rows) : -1;
}

}  // namespace tcec::costmodel
