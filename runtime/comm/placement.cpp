// runtime/comm/placement.cpp — move_tensor(): a tensor from one placement to another, rank to rank.
#include "runtime/comm/placement.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/base/memory.h"

namespace tcert {

namespace {

using i64 = std::int64_t;

/// Where a tensor dimension lies in a placement: its group (0 rows, 1 cols) and position.
struct DimAt {
  int group = 0;
  std::size_t k = 0;
};

const GroupLayout& group_of(const Placement& p, int g) { return g == 0 ? p.rows : p.cols; }

/// DimAt per tensor dimension. Throws Error when perm is not a permutation of the positions.
std::vector<DimAt> dims_of(const Placement& p, const char* which) {
  const std::size_t nr = p.rows.indices().size(), n = nr + p.cols.indices().size();
  if (p.perm.size() != n)
    throw Error(fmt::format("move_tensor: the {} placement maps {} positions for {} indices", which, p.perm.size(), n));
  std::vector<DimAt> out(n);
  std::vector<bool> seen(n, false);
  for (std::size_t q = 0; q < n; ++q) {
    const auto d = static_cast<std::size_t>(p.perm[q]);
    if (p.perm[q] < 0 || d >= n || seen[d])
      throw Error(fmt::format("move_tensor: the {} placement's perm is not a permutation", which));
    seen[d] = true;
    out[d] = q < nr ? DimAt{0, q} : DimAt{1, q - nr};
  }
  return out;
}

class Mover {
 public:
  Mover(const Context& ctx, const Placement& from, TiledMatrix* held, const Placement& to, TiledMatrix* target)
      : ctx_(ctx),
        from_(from),
        to_(to),
        held_(held),
        target_(target),
        at_from_(dims_of(from, "source")),
        at_to_(dims_of(to, "target")) {
    const auto P = static_cast<std::size_t>(ctx.size()), me = static_cast<std::size_t>(ctx.rank());
    if (from.parts.size() != P || to.parts.size() != P)
      throw Error(
          fmt::format("move_tensor: placements for {} and {} ranks on {}", from.parts.size(), to.parts.size(), P));
    if ((held != nullptr) != from.parts[me].has_value() || (target != nullptr) != to.parts[me].has_value())
      throw Error(fmt::format("move_tensor: rank {}'s files do not match its parts", me));
    n_ = at_from_.size();
    if (at_to_.size() != n_) throw Error("move_tensor: the placements have different numbers of dimensions");
    for (std::size_t d = 0; d < n_; ++d) {
      const i64 a = group_of(from, at_from_[d].group).indices()[at_from_[d].k].extent;
      const i64 b = group_of(to, at_to_[d].group).indices()[at_to_[d].k].extent;
      if (a != b)
        throw Error(fmt::format("move_tensor: dimension {} has extent {} in the source and {} in the target", d, a, b));
    }
    // The target file's nesting: its row group in tile order, then its column group.
    const std::size_t nr = to.rows.indices().size();
    for (std::size_t k : to.rows.tile_order()) nest_.push_back(static_cast<std::size_t>(to.perm[k]));
    for (std::size_t k : to.cols.tile_order()) nest_.push_back(static_cast<std::size_t>(to.perm[nr + k]));
  }

  /// Rounds of consecutive blocks whose elements (over all holders) stay within
  /// handoff_round_elements() of the budget's free bytes, at least one block each; a block too
  /// large goes one holder's part at a time, and a part too large in pieces.
  void run() {
    const std::uint64_t limit = budget().limit_bytes(), used = budget().in_use_bytes();
    const std::uint64_t chunk = handoff_round_elements(limit == 0 ? 0 : limit > used ? limit - used : 1);
    std::uint64_t in_round = 0;
    for (i64 f = 0; f < from_.rows.finest_tiles(); ++f)
      for (i64 h = 0; h < from_.cols.finest_tiles(); ++h) {
        Block b = block(f, h);
        if (!round_.empty() && in_round + b.elements > chunk) {
          exchange_round();
          in_round = 0;
        }
        if (b.elements > chunk) {  // alone too large: one holder's part at a time, in pieces
          for (std::size_t s = 0; s < b.values.size(); ++s)
            for (Block& piece : pieces(b, s, chunk)) {
              round_.push_back(std::move(piece));
              exchange_round();
            }
          continue;
        }
        in_round += b.elements;
        round_.push_back(std::move(b));
      }
    if (!round_.empty()) exchange_round();
  }

 private:
  /// Per tensor dimension, the values of a sender's block: all, and split by target part
  /// (by_part empty when the dimension is not split in the target).
  struct Values {
    std::vector<i64> all;
    std::vector<std::vector<i64>> by_part;
  };
  /// Block (f, h) of `from`: values[s][d] for every sender s (empty `all` when s holds
  /// nothing), and its elements over all senders.
  struct Block {
    i64 f = 0, h = 0;
    std::vector<std::vector<Values>> values;
    std::uint64_t elements = 0;
    /// A piece of one holder's part: only that holder sends (values of others unused).
    std::optional<std::size_t> only;
  };

  Block block(i64 f, i64 h) const {
    const auto P = static_cast<std::size_t>(ctx_.size());
    Block out{f, h, std::vector<std::vector<Values>>(P, std::vector<Values>(n_)), 0, std::nullopt};
    for (std::size_t s = 0; s < P; ++s) {
      if (!from_.parts[s]) continue;
      std::uint64_t elements = 1;
      for (std::size_t d = 0; d < n_; ++d) {
        const DimAt a = at_from_[d], b = at_to_[d];
        const auto [first, count] =
            group_of(from_, a.group).value_range(a.k, a.group == 0 ? f : h, (*from_.parts[s])[a.group]);
        Values& v = out.values[s][d];
        for (i64 x = first; x < first + count; ++x) v.all.push_back(x);
        elements *= static_cast<std::uint64_t>(count);
        const GroupLayout& target_group = group_of(to_, b.group);
        if (static_cast<int>(b.k) != target_group.dist() || target_group.parts() == 1) continue;
        v.by_part.resize(static_cast<std::size_t>(target_group.parts()));
        for (i64 x : v.all) v.by_part[static_cast<std::size_t>(target_group.part_of_value(b.k, x))].push_back(x);
      }
      out.elements += elements;
    }
    return out;
  }

  /// Sender s's part of block b cut into pieces of at most `chunk` elements, each a run of
  /// consecutive elements of the part's block in its file: in the block's storage order (the
  /// row group's tile order, then the column group's), the outermost dimensions whose one
  /// value still holds more than `chunk` elements take one value each, the next one a range of
  /// values, the rest all theirs. Empty when s holds nothing of b.
  std::vector<Block> pieces(const Block& b, std::size_t s, std::uint64_t chunk) const {
    std::vector<Block> out;
    if (!from_.parts[s]) return out;
    if (n_ == 0) return {Block{b.f, b.h, b.values, 1, s}};  // a scalar: one element
    std::vector<std::size_t> storage;                       // tensor dimensions in the block's storage order
    for (std::size_t k : from_.rows.tile_order()) storage.push_back(static_cast<std::size_t>(from_.perm[k]));
    const std::size_t nr = from_.rows.indices().size();
    for (std::size_t k : from_.cols.tile_order()) storage.push_back(static_cast<std::size_t>(from_.perm[nr + k]));
    const std::vector<Values>& mine = b.values[s];
    for (std::size_t d = 0; d < n_; ++d)
      if (mine[d].all.empty()) return out;
    // cut: the outermost storage position whose one value's elements fit the chunk.
    std::vector<std::uint64_t> inner(n_ + 1, 1);  // elements per value of position i
    for (std::size_t i = n_; i-- > 0;) inner[i] = (i + 1 < n_ ? inner[i + 1] * mine[storage[i + 1]].all.size() : 1);
    std::size_t cut = 0;
    while (cut + 1 < n_ && inner[cut] > chunk) ++cut;
    const std::uint64_t per_piece = std::max<std::uint64_t>(1, chunk / inner[cut]);
    std::vector<std::size_t> at(cut, 0);  // the fixed values of positions 0 .. cut-1
    while (true) {
      const std::vector<i64>& range = mine[storage[cut]].all;
      for (std::size_t first = 0; first < range.size(); first += per_piece) {
        Block piece{b.f, b.h, std::vector<std::vector<Values>>(b.values.size()), 0, s};
        piece.values[s] = mine;
        auto keep = [&](std::size_t d, std::size_t from, std::size_t to) {
          Values& v = piece.values[s][d];
          const i64 lo = v.all[from], hi = v.all[to - 1];
          v.all.assign(mine[d].all.begin() + static_cast<std::ptrdiff_t>(from),
                       mine[d].all.begin() + static_cast<std::ptrdiff_t>(to));
          for (std::vector<i64>& part : v.by_part)
            part.erase(std::remove_if(part.begin(), part.end(), [&](i64 x) { return x < lo || x > hi; }), part.end());
        };
        for (std::size_t i = 0; i < cut; ++i) keep(storage[i], at[i], at[i] + 1);
        keep(storage[cut], first, std::min<std::size_t>(range.size(), first + per_piece));
        piece.elements = 1;
        for (std::size_t d = 0; d < n_; ++d) piece.elements *= piece.values[s][d].all.size();
        out.push_back(std::move(piece));
      }
      std::size_t i = cut;  // the next combination of fixed values, the last position fastest
      while (i > 0 && ++at[i - 1] == mine[storage[i - 1]].all.size()) at[--i] = 0;
      if (i == 0) return out;
    }
  }

  /// The values of dimension d that sender s's block has and receiver r holds (r has parts).
  const std::vector<i64>& list(const Block& b, std::size_t s, std::size_t r, std::size_t d) const {
    const Values& v = b.values[s][d];
    const i64 part = (*to_.parts[r])[at_to_[d].group];
    return part < 0 || v.by_part.empty() ? v.all : v.by_part[static_cast<std::size_t>(part)];
  }

  std::size_t count(const Block& b, std::size_t s, std::size_t r) const {
    if (!from_.parts[s] || !to_.parts[r] || (b.only && *b.only != s)) return 0;
    std::size_t c = 1;
    for (std::size_t d = 0; d < n_; ++d) c *= list(b, s, r, d).size();
    return c;
  }

  /// Calls visit(row values, col values, next) of placement p for every element of block b
  /// moving from s to r, in the shared order: the lists nested as nest_, the last fastest.
  /// next: only the innermost value changed, to the previous one plus 1.
  void enumerate(const Block& b, std::size_t s, std::size_t r, const Placement& p,
                 const std::function<void(const i64* rows, const i64* cols, bool next)>& visit) const {
    if (count(b, s, r) == 0) return;
    std::vector<const std::vector<i64>*> lists(n_);
    for (std::size_t d = 0; d < n_; ++d) lists[d] = &list(b, s, r, d);
    const std::size_t nr = p.rows.indices().size();
    std::vector<std::size_t> at(n_, 0);
    std::vector<i64> group_values(n_);      // rows' values, then cols'
    std::vector<std::size_t> position(n_);  // tensor dimension -> position in group_values
    for (std::size_t q = 0; q < n_; ++q) position[static_cast<std::size_t>(p.perm[q])] = q;
    for (std::size_t d = 0; d < n_; ++d) group_values[position[d]] = (*lists[d])[0];
    bool next = false;
    while (true) {
      visit(group_values.data(), group_values.data() + nr, next);
      std::size_t i = n_;
      next = false;
      while (i > 0) {
        const std::size_t d = nest_[--i];
        if (++at[d] < lists[d]->size()) {
          const i64 v = (*lists[d])[at[d]];
          next = i == n_ - 1 && v == group_values[position[d]] + 1;
          group_values[position[d]] = v;
          break;
        }
        at[d] = 0;
        group_values[position[d]] = (*lists[d])[0];
        if (i == 0) return;
      }
      if (n_ == 0) return;
    }
  }

  /// In this rank's block b of `from`, the elements between consecutive values of the
  /// innermost enumerated dimension (nest_.back()): the product of the sizes of the indices
  /// after it in its group's tile order, times the block's columns when it is a row index.
  std::uint64_t inner_stride(const Block& b) const {
    if (n_ == 0) return 0;
    const DimAt a = at_from_[nest_.back()];
    const GroupLayout& g = group_of(from_, a.group);
    const i64 tile = a.group == 0 ? b.f : b.h, part = (*from_.parts[static_cast<std::size_t>(ctx_.rank())])[a.group];
    std::uint64_t stride = a.group == 0 ? static_cast<std::uint64_t>(held_->block_cols(b.h)) : 1;
    const std::vector<std::size_t>& order = g.tile_order();
    for (std::size_t i = order.size(); i-- > 0 && order[i] != a.k;)
      stride *= static_cast<std::uint64_t>(g.value_range(order[i], tile, part).second);
    return stride;
  }

  /// Whether the innermost enumerated value (rv, cv of `to`) lies in the same finest part of
  /// its target index as the value before it.
  bool same_target_part(const i64* rv, const i64* cv) const {
    const DimAt a = at_to_[nest_.back()];
    const GroupLayout& g = group_of(to_, a.group);
    const i64 v = (a.group == 0 ? rv : cv)[a.k];
    return g.finest_part(a.k, v) == g.finest_part(a.k, v - 1);
  }

  /// File offset of the first element of this rank's values in block b (the element whose
  /// every dimension takes its first value).
  std::uint64_t first_offset(const Block& b) const {
    const auto me = static_cast<std::size_t>(ctx_.rank());
    const std::size_t nr = from_.rows.indices().size();
    std::vector<i64> group_values(n_);  // rows' values, then cols'
    for (std::size_t q = 0; q < n_; ++q)
      group_values[q] = b.values[me][static_cast<std::size_t>(from_.perm[q])].all.front();
    return held_->offset_of(group_values.data(), group_values.data() + nr).value();
  }

  /// One alltoallv for the blocks of round_ (or the one piece): per destination, block after
  /// block.
  void exchange_round() {
    const auto P = static_cast<std::size_t>(ctx_.size()), me = static_cast<std::size_t>(ctx_.rank());
    std::vector<std::size_t> send_counts(P, 0), recv_counts(P, 0);
    std::size_t send_total = 0, recv_total = 0;
    for (const Block& b : round_)
      for (std::size_t q = 0; q < P; ++q) {
        send_counts[q] += count(b, me, q);
        recv_counts[q] += count(b, q, me);
      }
    for (std::size_t q = 0; q < P; ++q) send_total += send_counts[q], recv_total += recv_counts[q];
    Buffer send = allocate(send_total, "hand-off values sent"), recv = allocate(recv_total, "hand-off values received");
    if (send_total > 0) {
      // This rank's blocks of the round lie back to back in its file ((f, h) row-major); a
      // piece is a run of consecutive elements of one block.
      std::uint64_t first = 0, end = 0;
      if (round_.front().only) {
        first = first_offset(round_.front());
        end = first + round_.front().elements;
      } else {
        first = held_->block_offset(round_.front().f, round_.front().h);
        const Block& last = round_.back();
        end = held_->block_offset(last.f, last.h) +
              static_cast<std::uint64_t>(held_->block_rows(last.f) * held_->block_cols(last.h));
      }
      Buffer blocks = allocate(static_cast<std::size_t>(end - first), "hand-off blocks");
      held_->file().read(blocks.data(), first, blocks.size());
      std::size_t at = 0;
      std::uint64_t offset = 0;  // of the element in `blocks`
      for (std::size_t r = 0; r < P; ++r)
        for (const Block& b : round_) {
          const std::uint64_t stride = inner_stride(b);
          enumerate(b, me, r, from_, [&](const i64* rv, const i64* cv, bool next) {
            offset = next ? offset + stride : held_->offset_of(rv, cv).value() - first;
            send[at++] = blocks[offset];
          });
        }
    }
    alltoallv(ctx_, send.data(), send_counts, recv.data(), recv_counts);
    // Each run of consecutive target elements is one write.
    std::size_t at = 0, run_from = 0;
    std::uint64_t run_start = 0, run_length = 0;
    auto flush = [&] {
      if (run_length > 0)
        target_->file().write(recv.data() + run_from, run_start, static_cast<std::size_t>(run_length));
    };
    for (std::size_t s = 0; s < P; ++s)
      for (const Block& b : round_)
        enumerate(b, s, me, to_, [&](const i64* rv, const i64* cv, bool next) {
          // The next value of the innermost index within its finest part: the next element.
          const std::uint64_t o =
              next && same_target_part(rv, cv) ? run_start + run_length : target_->offset_of(rv, cv).value();
          if (run_length == 0 || o != run_start + run_length) {
            flush();
            run_start = o, run_from = at, run_length = 0;
          }
          ++run_length, ++at;
        });
    flush();
    round_.clear();
  }

  const Context& ctx_;
  const Placement& from_;
  const Placement& to_;
  TiledMatrix* held_;
  TiledMatrix* target_;
  std::vector<DimAt> at_from_, at_to_;
  std::size_t n_ = 0;
  std::vector<std::size_t> nest_;
  std::vector<Block> round_;  // the blocks of the round being gathered
};

}  // namespace

void move_tensor(const Context& ctx, const Placement& from, TiledMatrix* held, const Placement& to,
                 TiledMatrix* target) {
  Mover(ctx, from, held, to, target).run();
}

}  // namespace tcert
