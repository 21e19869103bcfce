// runtime/spec/tbs_spec.cpp — the checks, buffers and trace names of a tbs plan's spec (tbs_spec.h).
//
// The cover check sweeps the rows of C: between two consecutive range boundaries every row i
// lies in the same ranges of the same blocks, and a block whose range R_u holds i covers the
// pairs (i, j) with j in its ranges lying before R_u, and (i, j) for j in [start of R_u, i]
// when it is diagonal; a stream block's R_u, u >= 1, covers only (i, j) for j in R_0. Row i is covered exactly once iff one diagonal block holds it, the
// off-diagonal columns add up to that block's range start and no two intervals meet.
#include "runtime/spec/tbs_spec.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/units.h"

namespace tcert {

namespace {

using i64 = std::int64_t;

/// A block's ranges in row order: (start, length) pairs.
using Ranges = std::vector<std::pair<i64, i64>>;

Ranges sorted_ranges(const TbsBlock& block) {
  Ranges out;
  for (std::size_t u = 0; u < block.starts.size(); ++u) out.emplace_back(block.starts[u], block.lengths[u]);
  std::sort(out.begin(), out.end());
  return out;
}

/// Rows and C elements of one triangle block: Σ lengths, and the tiles of THE SCHEDULE step 1.
std::pair<i64, i64> block_size(const TbsBlock& block) {
  i64 rows = 0, elements = 0, squares = 0;
  for (const i64 len : block.lengths) {
    elements += rows * len;  // the tiles (u, v < u)
    rows += len, squares += len * len;
  }
  return {rows, elements + (block.diagonal ? squares : 0)};
}

/// The pairs (i >= j) a block covers: a stream block's C[R_u, R_0], u >= 1; a triangle block's
/// tiles u > v and, when diagonal, the lower triangles of its squares.
i64 block_pairs(const TbsBlock& block) {
  if (block.stream) {
    i64 below = 0;
    for (std::size_t u = 1; u < block.lengths.size(); ++u) below += block.lengths[u];
    return block.lengths[0] * below;
  }
  i64 pairs = 0, rows = 0;
  for (const i64 len : block.lengths) {
    pairs += rows * len + (block.diagonal ? len * (len + 1) / 2 : 0);
    rows += len;
  }
  return pairs;
}

/// Throws unless a stream block is not diagonal, has k >= 2 ranges and lists them ascending.
void check_stream(const TbsBlock& block, std::size_t b) {
  if (block.diagonal) throw Error(fmt::format("invalid tbs blocks: stream block {} is diagonal", b));
  if (block.starts.size() < 2)
    throw Error(
        fmt::format("invalid tbs blocks: stream block {} has {} range, it needs at least 2", b, block.starts.size()));
  for (std::size_t u = 1; u < block.starts.size(); ++u)
    if (block.starts[u] <= block.starts[u - 1])
      throw Error(
          fmt::format("invalid tbs blocks: stream block {} has range {} starting at {} after range {} at {}; "
                      "its ranges must ascend",
                      b, u, block.starts[u], u - 1, block.starts[u - 1]));
}

/// Throws unless every block's ranges are well formed and within [0, n).
void check_ranges(const TbsSpec& part, i64 n, i64 ranks) {
  for (std::size_t b = 0; b < part.blocks.size(); ++b) {
    const TbsBlock& block = part.blocks[b];
    if (block.rank < 0 || block.rank >= ranks)
      throw Error(
          fmt::format("invalid tbs blocks: block {} is for rank {} but there are {} ranks", b, block.rank, ranks));
    if (block.starts.empty() || block.starts.size() != block.lengths.size())
      throw Error(fmt::format("invalid tbs blocks: block {} has {} starts and {} lengths", b, block.starts.size(),
                              block.lengths.size()));
    if (block.stream) check_stream(block, b);
    const Ranges r = sorted_ranges(block);
    for (std::size_t u = 0; u < r.size(); ++u) {
      if (r[u].first < 0 || r[u].second < 1 || r[u].first + r[u].second > n)
        throw Error(fmt::format("invalid tbs blocks: block {} has rows [{}, {}) outside [0, {})", b, r[u].first,
                                r[u].first + r[u].second, n));
      if (u > 0 && r[u - 1].first + r[u - 1].second > r[u].first)
        throw Error(fmt::format("invalid tbs blocks: block {} has overlapping rows [{}, {}) and [{}, {})", b,
                                r[u - 1].first, r[u - 1].first + r[u - 1].second, r[u].first,
                                r[u].first + r[u].second));
    }
  }
}

/// Throws unless the blocks cover every pair (i, j), n > i >= j >= 0, exactly once.
void check_cover(const TbsSpec& part, i64 n) {
  std::vector<Ranges> ranges;
  std::vector<i64> cuts = {0, n};
  i64 pairs = 0;
  for (const TbsBlock& block : part.blocks) {
    ranges.push_back(sorted_ranges(block));
    for (const auto& [start, len] : ranges.back()) cuts.push_back(start), cuts.push_back(start + len);
    pairs += block_pairs(block);
  }
  if (pairs != n * (n + 1) / 2)
    throw Error(fmt::format("invalid tbs blocks: they cover {} pairs (i >= j) but the lower triangle has {}", pairs,
                            n * (n + 1) / 2));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  // Active memberships (block, position of its range in row order), swept over the segments.
  std::vector<std::pair<std::size_t, std::size_t>> active;
  for (std::size_t s = 0; s + 1 < cuts.size(); ++s) {
    const i64 first = cuts[s], last = cuts[s + 1] - 1;  // the segment's rows
    active.clear();
    for (std::size_t b = 0; b < ranges.size(); ++b) {
      const Ranges& r = ranges[b];
      auto it = std::upper_bound(r.begin(), r.end(), std::pair<i64, i64>{first, n + 1});
      if (it == r.begin()) continue;
      --it;
      if (it->first + it->second > first) active.emplace_back(b, static_cast<std::size_t>(it - r.begin()));
    }
    std::vector<std::pair<i64, i64>> cover;  // column intervals [a, e) of row `last`
    i64 diagonal = 0, off = 0, diagonal_start = 0;
    for (const auto& [b, u] : active) {
      const Ranges& r = ranges[b];
      if (part.blocks[b].stream) {  // its ranges ascend: r[0] is R_0
        if (u > 0) cover.emplace_back(r[0].first, r[0].first + r[0].second), off += r[0].second;
        continue;
      }
      for (std::size_t v = 0; v < u; ++v) cover.emplace_back(r[v].first, r[v].first + r[v].second), off += r[v].second;
      if (!part.blocks[b].diagonal) continue;
      ++diagonal, diagonal_start = r[u].first;
      cover.emplace_back(r[u].first, last + 1);
    }
    if (diagonal != 1 || off != diagonal_start)
      throw Error(fmt::format("invalid tbs blocks: row {} has {} of its {} pairs (i >= j) covered", first,
                              off + (diagonal > 0 ? first - diagonal_start + 1 : 0), first + 1));
    std::sort(cover.begin(), cover.end());
    for (std::size_t c = 1; c < cover.size(); ++c)
      if (cover[c - 1].second > cover[c].first)
        throw Error(fmt::format("invalid tbs blocks: pair ({}, {}) is covered twice", last, cover[c].first));
  }
}

/// Throws unless the A panel holds every stream block's R_0 and its largest R_u over all |K|
/// columns, and the C block its largest tile: (lengths[0] + max_{u>=1} lengths[u]) · |K| <=
/// panel_rows · chunk and lengths[0] · max_{u>=1} lengths[u] <= block_elements.
void check_stream_buffers(const TbsSpec& part, i64 k) {
  for (std::size_t b = 0; b < part.blocks.size(); ++b) {
    const TbsBlock& block = part.blocks[b];
    if (!block.stream) continue;
    const i64 widest = *std::max_element(block.lengths.begin() + 1, block.lengths.end());
    const i64 panel = (block.lengths[0] + widest) * k, tile = block.lengths[0] * widest;
    if (panel > part.panel_rows * part.chunk || tile > part.block_elements)
      throw Error(
          fmt::format("invalid tbs blocks: panel_rows {} x chunk {} and block_elements {} do not hold stream "
                      "block {} ({} elements of A, a tile of {} elements of C)",
                      part.panel_rows, part.chunk, part.block_elements, b, panel, tile));
  }
}

}  // namespace

void check_method(const TbsSpec& part, const GemmSpec& spec, std::int64_t ranks) {
  const std::vector<i64> eI = extents_of(spec.I), eJ = extents_of(spec.J);
  const i64 n = product(eI);
  if (eI != eJ || spec.A.shape.name != spec.B.shape.name || spec.A.shape.extents != spec.B.shape.extents ||
      spec.A.perm != spec.B.perm)
    throw Error(
        fmt::format("tbs needs a symmetric contraction: B must be A at the same positions and I, J the "
                    "same extents (|I| = {}, |J| = {}, A = {}, B = {})",
                    n, product(eJ), spec.A.shape.name, spec.B.shape.name));
  if (spec.accumulate || spec.take_A || spec.take_B || spec.take_C || spec.keep_result)
    throw Error("tbs reads A from its tensor and writes C into its file; it adds to no C and takes and keeps nothing");
  check_ranges(part, n, ranks);
  i64 rows = 0, elements = 0;
  for (const TbsBlock& block : part.blocks) {
    if (block.stream) continue;
    const std::pair<i64, i64> size = block_size(block);
    rows = std::max(rows, size.first), elements = std::max(elements, size.second);
  }
  if (part.chunk < 1 || part.panel_rows < rows || part.block_elements < elements)
    throw Error(
        fmt::format("invalid tbs blocks: chunk {}, panel_rows {} and block_elements {} do not hold the "
                    "largest block ({} rows, {} elements of C)",
                    part.chunk, part.panel_rows, part.block_elements, rows, elements));
  check_stream_buffers(part, product(extents_of(spec.K)));
  check_cover(part, n);
}

std::vector<MemoryPart> method_buffers(const TbsSpec& part, const GemmSpec&) {
  return {{"C block", bytes_of(static_cast<std::uint64_t>(part.block_elements)), false},
          {"A panel", bytes_of(static_cast<std::uint64_t>(part.panel_rows) * static_cast<std::uint64_t>(part.chunk)),
           false}};
}

std::pair<const char*, const char*> trace_names(const TbsSpec&) { return {"inside", "tbs"}; }

}  // namespace tcert
