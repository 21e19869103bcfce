// costmodel/program/handoff_requests.cpp — disk requests of the hand-off's moves and flushes.
#include "costmodel/program/handoff_requests.h"

#include <algorithm>
#include <map>
#include <utility>

#include "costmodel/methods/gao/gao.h"
#include "costmodel/partition.h"
#include "runtime/spec/step_memory.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

/// A group's tiling as a placement holds it: the runtime's layout of the group split over
/// `parts` grid parts (runtime/spec/tiling.h GroupLayout, the one tiling rule), and each index
/// alone as a layout of one index, whose finest tiles are the index's finest parts.
class Tiled {
 public:
  Tiled(const GroupTiling& g, i64 parts) : layout_(group_layout(g, parts)) {
    for (std::size_t k = 0; k < g.indices.size(); ++k) {
      const bool dist = static_cast<int>(k) == g.dist;
      index_.emplace_back(std::vector<tcert::IndexTiling>{g.indices[k].tiling()}, dist ? 0 : -1,
                          dist ? layout_.parts() : 1);
    }
  }

  i64 tiles() const { return layout_.finest_tiles(); }
  /// Positions in the order of a tile's elements: the distribution index, then the others.
  const std::vector<std::size_t>& order() const { return layout_.tile_order(); }
  /// The finest part of index k holding value v.
  i64 finest_part(std::size_t k, i64 v) const { return layout_.finest_part(k, v); }
  i64 part_start(std::size_t k, i64 j) const { return index_[k].value_range(0, j, -1).first; }
  /// Finest parts of index k (t1 · t2).
  i64 parts_of(std::size_t k) const { return index_[k].finest_tiles(); }
  /// The values (first, count) of index k's finest part j that grid part p holds (p < 0: all).
  std::pair<i64, i64> slice(std::size_t k, i64 j, i64 p) const { return index_[k].value_range(0, j, part(p)); }
  /// The values (first, count) of index k in finest tile f that grid part p holds (p < 0: all).
  std::pair<i64, i64> values_in_tile(std::size_t k, i64 f, i64 p) const { return layout_.value_range(k, f, part(p)); }
  /// The finest tile of values `v` (group order) and, in `pos`, their position in part p's piece
  /// of it (tile order, the distribution index's slice; p < 0: in the whole tile). Precondition:
  /// part p holds them.
  i64 locate(const i64* v, i64 p, u64* pos) const {
    const tcert::GroupLayout::Location at = layout_.locate(v);
    *pos = static_cast<u64>(part(p) < 0 ? layout_.piece_start(at.tile, at.part) + at.offset : at.offset);
    return at.tile;
  }
  /// Elements of finest tile f that part p holds.
  u64 held(i64 f, i64 p) const { return static_cast<u64>(layout_.rows(f, part(p))); }

 private:
  /// p, or -1 (all) when the group is not split.
  i64 part(i64 p) const { return layout_.parts() == 1 ? -1 : p; }

  tcert::GroupLayout layout_;
  std::vector<tcert::GroupLayout> index_;
};

/// One rank's file of a placement (runtime TiledMatrix): blocks (f, h) row-major, block (f, h)
/// rows(f, pr) × cols(h, pc) elements, row-major.
class TileFile {
 public:
  TileFile(const Tiled& rows, i64 pr, const Tiled& cols, i64 pc) : rows_(rows), cols_(cols), pr_(pr), pc_(pc) {
    row_prefix_.push_back(0), col_prefix_.push_back(0);
    for (i64 f = 0; f < rows.tiles(); ++f) row_prefix_.push_back(row_prefix_.back() + rows.held(f, pr));
    for (i64 h = 0; h < cols.tiles(); ++h) col_prefix_.push_back(col_prefix_.back() + cols.held(h, pc));
  }
  /// The element offset of (row values, col values), group order; the rank holds it.
  u64 offset(const i64* rv, const i64* cv) const {
    u64 r = 0, c = 0;
    const auto f = static_cast<std::size_t>(rows_.locate(rv, pr_, &r));
    const auto h = static_cast<std::size_t>(cols_.locate(cv, pc_, &c));
    const u64 block_rows = row_prefix_[f + 1] - row_prefix_[f], block_cols = col_prefix_[h + 1] - col_prefix_[h];
    return row_prefix_[f] * col_prefix_.back() + block_rows * col_prefix_[h] + r * block_cols + c;
  }

 private:
  const Tiled& rows_;
  const Tiled& cols_;
  i64 pr_, pc_;
  std::vector<u64> row_prefix_, col_prefix_;
};

/// Values [first, first + count) of one tensor dimension.
struct Range {
  i64 first = 0, count = 0;
};

/// The values of one dimension a receiver gets from one sender's block that lie in one finest
/// part of the target's index, within the receiver's slice of it: [first, first + count), and
/// that slice [slice_first, slice_first + slice_count).
struct Segment {
  i64 first, count, slice_first, slice_count;
  i64 last() const { return first + count - 1; }
};

/// What one round moves: a finest block (f, h) of the source, or a piece of one holder's part of
/// it. Per sender, its values per tensor dimension (nullopt: it sends nothing of this unit).
struct Unit {
  std::vector<std::optional<std::vector<Range>>> ranges;
  u64 elements = 0;  ///< over all senders
};

u64 elements_of(const std::vector<Range>& r) {
  u64 n = 1;
  for (const Range& x : r) n *= static_cast<u64>(x.count);
  return n;
}

/// The walk of runtime/comm/placement.cpp Mover::run(), counting requests instead of moving values.
class MoveCount {
 public:
  MoveCount(const TiledPlacement& from, const TiledPlacement& to, u64 chunk)
      : from_(from),
        to_(to),
        chunk_(chunk),
        from_rows_(from.rows, from.row_parts),
        from_cols_(from.cols, from.col_parts),
        to_rows_(to.rows, to.row_parts),
        to_cols_(to.cols, to.col_parts),
        P_(from.parts.size()),
        out_(P_, 0) {
    n_ = from.perm.size();
    at_from_ = dims_of(from), at_to_ = dims_of(to);
    const std::size_t nr = to.rows.indices.size();
    for (std::size_t k : to_rows_.order()) nest_.push_back(static_cast<std::size_t>(to.perm[k]));
    for (std::size_t k : to_cols_.order()) nest_.push_back(static_cast<std::size_t>(to.perm[nr + k]));
    const std::size_t fr = from.rows.indices.size();
    for (std::size_t k : from_rows_.order()) storage_.push_back(static_cast<std::size_t>(from.perm[k]));
    for (std::size_t k : from_cols_.order()) storage_.push_back(static_cast<std::size_t>(from.perm[fr + k]));
    for (std::size_t r = 0; r < P_; ++r)
      files_.emplace_back(
          to.parts[r] ? std::optional<TileFile>(std::in_place, to_rows_, (*to.parts[r])[0], to_cols_, (*to.parts[r])[1])
                      : std::nullopt);
  }

  std::vector<u64> run() {
    std::vector<Unit> round;
    u64 in_round = 0;
    for (i64 f = 0; f < from_rows_.tiles(); ++f)
      for (i64 h = 0; h < from_cols_.tiles(); ++h) {
        Unit b = block(f, h);
        if (!round.empty() && in_round + b.elements > chunk_) {
          exchange(round);
          round.clear(), in_round = 0;
        }
        if (b.elements > chunk_) {  // one holder's part at a time, in pieces
          for (std::size_t s = 0; s < P_; ++s) pieces(b, s);
          continue;
        }
        in_round += b.elements;
        round.push_back(std::move(b));
      }
    if (!round.empty()) exchange(round);
    return out_;
  }

 private:
  /// Where a tensor dimension lies: group (0 rows, 1 cols) and position in it.
  struct DimAt {
    int group = 0;
    std::size_t k = 0;
  };
  static std::vector<DimAt> dims_of(const TiledPlacement& p) {
    const std::size_t nr = p.rows.indices.size();
    std::vector<DimAt> out(p.perm.size());
    for (std::size_t q = 0; q < p.perm.size(); ++q)
      out[static_cast<std::size_t>(p.perm[q])] = q < nr ? DimAt{0, q} : DimAt{1, q - nr};
    return out;
  }

  Unit block(i64 f, i64 h) const {
    Unit out{std::vector<std::optional<std::vector<Range>>>(P_), 0};
    for (std::size_t s = 0; s < P_; ++s) {
      if (!from_.parts[s]) continue;
      std::vector<Range> r(n_);
      for (std::size_t d = 0; d < n_; ++d) {
        const DimAt a = at_from_[d];
        const Tiled& g = a.group == 0 ? from_rows_ : from_cols_;
        const auto [first, count] = g.values_in_tile(a.k, a.group == 0 ? f : h, (*from_.parts[s])[a.group]);
        r[d] = {first, count};
      }
      const u64 e = elements_of(r);
      if (e == 0) continue;
      out.elements += e;
      out.ranges[s] = std::move(r);
    }
    return out;
  }

  /// Sender s's part of b in pieces of at most chunk_ elements, each its own round (runtime
  /// Mover::pieces(): the outermost storage positions whose one value exceeds the chunk take one
  /// value each, the next a range of values, the rest all theirs).
  void pieces(const Unit& b, std::size_t s) {
    if (!b.ranges[s] || n_ == 0) return;  // a scalar is one element: never above a round
    const std::vector<Range>& mine = *b.ranges[s];
    std::vector<u64> inner(n_, 1);  // elements per value of storage position i
    for (std::size_t i = n_ - 1; i-- > 0;) inner[i] = inner[i + 1] * static_cast<u64>(mine[storage_[i + 1]].count);
    std::size_t cut = 0;
    while (cut + 1 < n_ && inner[cut] > chunk_) ++cut;
    const u64 per_piece = std::max<u64>(1, chunk_ / inner[cut]);
    std::vector<i64> at(cut, 0);
    while (true) {
      const i64 size = mine[storage_[cut]].count;
      for (i64 first = 0; first < size; first += static_cast<i64>(per_piece)) {
        Unit& piece = piece_.front();  // one holder's ranges, reused from piece to piece
        if (piece.ranges.size() != P_) piece.ranges.assign(P_, std::nullopt);
        std::vector<Range>& r = piece.ranges[s].emplace(mine);
        for (std::size_t i = 0; i < cut; ++i) r[storage_[i]] = {mine[storage_[i]].first + at[i], 1};
        r[storage_[cut]] = {mine[storage_[cut]].first + first,
                            std::min<i64>(static_cast<i64>(per_piece), size - first)};
        piece.elements = elements_of(r);
        exchange(piece_);
        piece.ranges[s].reset();
      }
      std::size_t i = cut;  // the next combination of fixed values, the last position fastest
      while (i > 0 && ++at[i - 1] == mine[storage_[i - 1]].count) at[--i] = 0;
      if (i == 0) return;
    }
  }

  /// One round: a read for every rank holding some of it, the receivers' runs of writes.
  void exchange(const std::vector<Unit>& round) {
    senders_.clear();
    for (std::size_t s = 0; s < P_; ++s)
      for (const Unit& u : round)
        if (u.ranges[s]) {
          ++out_[s];
          senders_.push_back(s);
          break;
        }
    for (std::size_t r = 0; r < P_; ++r)
      if (files_[r]) out_[r] += writes(round, r);
  }

  /// The values of tensor dimension d in `range` that receiver r holds, by target finest part.
  void segments(std::size_t d, Range range, std::size_t r, std::vector<Segment>& out) const {
    out.clear();
    const DimAt a = at_to_[d];
    const Tiled& g = a.group == 0 ? to_rows_ : to_cols_;
    const i64 part = (*to_.parts[r])[a.group], end = range.first + range.count;
    for (i64 j = g.finest_part(a.k, range.first); j < g.parts_of(a.k) && g.part_start(a.k, j) < end; ++j) {
      const auto [first, count] = g.slice(a.k, j, part);
      const i64 lo = std::max(first, range.first), hi = std::min(first + count, end);
      if (lo < hi) out.push_back({lo, hi - lo, first, count});
    }
  }

  /// Target file offset of the element whose tensor dimension d has value v[d].
  u64 offset(std::size_t r, const std::vector<i64>& v) {
    const std::size_t nr = to_.rows.indices.size();
    for (std::size_t q = 0; q < n_; ++q) group_values_[q] = v[static_cast<std::size_t>(to_.perm[q])];
    return files_[r]->offset(group_values_.data(), group_values_.data() + nr);
  }

  /// Writes receiver r makes in one round: runs of consecutive target elements, senders in rank
  /// order, then the round's units, each in the nest order (nest_, the last fastest).
  u64 writes(const std::vector<Unit>& round, std::size_t r) {
    u64 runs = 0;
    bool any = false;
    u64 last = 0;  // offset of the last element written so far in the round
    lists_.resize(n_);
    values_.resize(n_), other_.resize(n_), group_values_.resize(n_);
    for (std::size_t s : senders_)  // in rank order
      for (const Unit& u : round) {
        if (!u.ranges[s]) continue;
        bool empty = false;
        for (std::size_t i = 0; i < n_ && !empty; ++i) {
          segments(nest_[i], (*u.ranges[s])[nest_[i]], r, lists_[i]);
          empty = lists_[i].empty();
        }
        if (empty) continue;
        runs += box_runs(r, any, last);
        any = true;
      }
    return runs;
  }

  /// Runs of the box lists_ (per nest level its segments) written after the element at `last`
  /// (when `any`): a step of level i within a segment continues a run iff every inner level is
  /// one whole slice (the file's digits carry exactly); a step into the next segment of level i
  /// lands in another block, which continues the run only when every outer level's value is a
  /// slice of one element and the element is the last of its block and the next the first of
  /// the next block, checked by their offsets. Sets `last` to the box's last element.
  u64 box_runs(std::size_t r, bool any, u64& last) {
    for (std::size_t i = 0; i < n_; ++i) values_[nest_[i]] = lists_[i].front().first;
    u64 runs = any && offset(r, values_) == last + 1 ? 0 : 1;
    for (std::size_t i = 0; i < n_; ++i) values_[nest_[i]] = lists_[i].back().last();
    last = offset(r, values_);
    std::vector<char>&suffix_full = suffix_full_, &suffix_ends = suffix_ends_;
    suffix_full.assign(n_ + 1, 1), suffix_ends.assign(n_ + 1, 1);
    for (std::size_t i = n_; i-- > 0;) {
      const std::vector<Segment>& L = lists_[i];
      const bool full = L.size() == 1 && L[0].count == L[0].slice_count;
      const bool ends = L.front().first == L.front().slice_first &&
                        L.back().last() == L.back().slice_first + L.back().slice_count - 1;
      suffix_full[i] = full && suffix_full[i + 1];
      suffix_ends[i] = ends && suffix_ends[i + 1];
    }
    u64 outer = 1;
    for (std::size_t i = 0; i < n_; ++i) {
      const std::vector<Segment>& L = lists_[i];
      u64 length = 0;
      for (const Segment& x : L) length += static_cast<u64>(x.count);
      const u64 segs = L.size();
      if (!suffix_full[i + 1]) runs += outer * (length - segs);
      if (segs > 1) runs += outer * (segs - 1) - (suffix_ends[i + 1] ? contiguous_crossings(r, i) : 0);
      outer *= length;
    }
    return runs;
  }

  /// Steps of level i from one segment into the next that continue a run (box_runs()).
  u64 contiguous_crossings(std::size_t r, std::size_t i) {
    std::vector<std::vector<i64>> single(i);  // per outer level, its values alone in their slice
    for (std::size_t j = 0; j < i; ++j) {
      for (const Segment& x : lists_[j])
        if (x.slice_count == 1) single[j].push_back(x.first);
      if (single[j].empty()) return 0;
    }
    const std::vector<Segment>& L = lists_[i];
    std::vector<std::size_t> bounds;  // segment β ends its slice and β + 1 starts its own
    for (std::size_t b = 0; b + 1 < L.size(); ++b)
      if (L[b].last() == L[b].slice_first + L[b].slice_count - 1 && L[b + 1].first == L[b + 1].slice_first)
        bounds.push_back(b);
    if (bounds.empty()) return 0;
    u64 n = 0;
    std::vector<std::size_t> at(i, 0);
    while (true) {
      for (std::size_t j = 0; j < i; ++j) values_[nest_[j]] = other_[nest_[j]] = single[j][at[j]];
      for (std::size_t j = i + 1; j < n_; ++j)
        values_[nest_[j]] = lists_[j].back().last(), other_[nest_[j]] = lists_[j].front().first;
      for (std::size_t b : bounds) {
        values_[nest_[i]] = L[b].last(), other_[nest_[i]] = L[b + 1].first;
        if (offset(r, other_) == offset(r, values_) + 1) ++n;
      }
      std::size_t j = i;
      while (j > 0 && ++at[j - 1] == single[j - 1].size()) at[--j] = 0;
      if (j == 0) return n;
    }
  }

  const TiledPlacement& from_;
  const TiledPlacement& to_;
  u64 chunk_;
  Tiled from_rows_, from_cols_, to_rows_, to_cols_;
  std::size_t P_, n_ = 0;
  std::vector<u64> out_;
  std::vector<DimAt> at_from_, at_to_;
  std::vector<std::size_t> nest_, storage_;  // tensor dimensions in target / source tile order
  std::vector<std::optional<TileFile>> files_;
  std::vector<std::vector<Segment>> lists_;  // scratch of writes(), per nest level
  std::vector<i64> values_, other_, group_values_;
  std::vector<std::size_t> senders_;                // the round's senders, in rank order
  std::vector<char> suffix_full_, suffix_ends_;     // scratch of box_runs()
  std::vector<Unit> piece_ = std::vector<Unit>(1);  // the round of one piece
};

}  // namespace

TiledPlacement array_placement(const Plan& plan, GemmArray array, const std::vector<int>& perm) {
  const GridParts grid = grid_parts(plan);
  const ArrayParts ways = array == GemmArray::A ? grid.A : array == GemmArray::B ? grid.B : grid.C;
  TiledPlacement out;
  out.rows = array == GemmArray::B ? plan.J : plan.I;
  out.cols = array == GemmArray::C ? plan.J : plan.K;
  out.row_parts = out.rows.dist < 0 ? 1 : ways.rows;
  out.col_parts = out.cols.dist < 0 ? 1 : ways.cols;
  out.perm = perm;
  const bool rank0_only = array == GemmArray::C && gao(plan).algorithm == Algorithm::Accumulation;
  for (i64 rank = 0; rank < plan.processors; ++rank) {
    if (rank0_only && rank != 0) {
      out.parts.emplace_back();
      continue;
    }
    const RankParts rp = rank_parts(plan, rank);
    i64 pr = array == GemmArray::A ? rp.A_rows : array == GemmArray::B ? rp.B_rows : rp.C_rows;
    i64 pc = array == GemmArray::A ? rp.A_cols : array == GemmArray::B ? rp.B_cols : rp.C_cols;
    if (out.row_parts == 1) pr = -1;
    if (out.col_parts == 1) pc = -1;
    out.parts.push_back(std::array<i64, 2>{pr, pc});
  }
  return out;
}

std::uint64_t handoff_round_elements(double memory_bytes) {
  return tcert::handoff_round_elements(static_cast<u64>(memory_bytes));
}

std::uint64_t move_work(const TiledPlacement& from, std::uint64_t round_elements) {
  const auto P = static_cast<u64>(from.parts.size());
  const Tiled rows(from.rows, from.row_parts), cols(from.cols, from.col_parts);
  const auto blocks = static_cast<u64>(rows.tiles()) * static_cast<u64>(cols.tiles());
  const auto elements = static_cast<u64>(from.rows.extent()) * static_cast<u64>(from.cols.extent());
  // A round of a piece costs about four block pairs per receiver; pieces are at most two per
  // round of elements plus one per holder of a block, and only blocks above a round have any.
  const auto largest_block =
      static_cast<u64>(group_tile_max(from.rows, 1, 2)) * static_cast<u64>(group_tile_max(from.cols, 1, 2));
  const u64 pieces =
      largest_block <= round_elements ? 0 : 2 * (elements / std::max<u64>(1, round_elements)) + P * blocks;
  return P * P * blocks + 4 * P * pieces;
}

std::vector<std::uint64_t> move_requests(const TiledPlacement& from, const TiledPlacement& to,
                                         std::uint64_t round_elements) {
  return MoveCount(from, to, round_elements).run();
}

std::vector<std::uint64_t> flush_requests(const Plan& producer, const std::vector<int>& perm_C) {
  StageAccess only_stored;
  only_stored.perm_C = perm_C;
  only_stored.take_A = only_stored.take_B = true;  // nothing of A and B
  return gao_stage_requests(producer, only_stored, true);
}

}  // namespace tcec::costmodel
