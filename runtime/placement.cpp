// runtime/placement.cpp — move_tensor(): a tensor from one placement to another, rank to rank.
#include "runtime/placement.h"

#include <functional>
#include <string>

#include <fmt/format.h>

#include "runtime/error.h"
#include "runtime/memory.h"

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
  if (p.perm.size() != n) throw Error(fmt::format("move_tensor: the {} placement maps {} positions for {} indices", which, p.perm.size(), n));
  std::vector<DimAt> out(n);
  std::vector<bool> seen(n, false);
  for (std::size_t q = 0; q < n; ++q) {
    const auto d = static_cast<std::size_t>(p.perm[q]);
    if (p.perm[q] < 0 || d >= n || seen[d]) throw Error(fmt::format("move_tensor: the {} placement's perm is not a permutation", which));
    seen[d] = true;
    out[d] = q < nr ? DimAt{0, q} : DimAt{1, q - nr};
  }
  return out;
}

class Mover {
 public:
  Mover(const Context& ctx, const Placement& from, TiledMatrix* held, const Placement& to, TiledMatrix* target)
      : ctx_(ctx), from_(from), to_(to), held_(held), target_(target),
        at_from_(dims_of(from, "source")), at_to_(dims_of(to, "target")) {
    const auto P = static_cast<std::size_t>(ctx.size()), me = static_cast<std::size_t>(ctx.rank());
    if (from.parts.size() != P || to.parts.size() != P)
      throw Error(fmt::format("move_tensor: placements for {} and {} ranks on {}", from.parts.size(), to.parts.size(), P));
    if ((held != nullptr) != from.parts[me].has_value() || (target != nullptr) != to.parts[me].has_value())
      throw Error(fmt::format("move_tensor: rank {}'s files do not match its parts", me));
    n_ = at_from_.size();
    if (at_to_.size() != n_) throw Error("move_tensor: the placements have different numbers of dimensions");
    for (std::size_t d = 0; d < n_; ++d) {
      const i64 a = group_of(from, at_from_[d].group).indices()[at_from_[d].k].extent;
      const i64 b = group_of(to, at_to_[d].group).indices()[at_to_[d].k].extent;
      if (a != b) throw Error(fmt::format("move_tensor: dimension {} has extent {} in the source and {} in the target", d, a, b));
    }
    // The target file's nesting: its row group in tile order, then its column group.
    const std::size_t nr = to.rows.indices().size();
    for (std::size_t k : to.rows.tile_order()) nest_.push_back(static_cast<std::size_t>(to.perm[k]));
    for (std::size_t k : to.cols.tile_order()) nest_.push_back(static_cast<std::size_t>(to.perm[nr + k]));
  }

  void run() {
    for (i64 f = 0; f < from_.rows.finest_tiles(); ++f)
      for (i64 h = 0; h < from_.cols.finest_tiles(); ++h) round(f, h);
  }

 private:
  /// Per tensor dimension, the values of a sender's block: all, and split by target part
  /// (by_part empty when the dimension is not split in the target).
  struct Values {
    std::vector<i64> all;
    std::vector<std::vector<i64>> by_part;
  };

  /// values_[s][d] for block (f, h) of every sender s (empty `all` when s holds nothing).
  void block_values(i64 f, i64 h) {
    const auto P = static_cast<std::size_t>(ctx_.size());
    values_.assign(P, std::vector<Values>(n_));
    for (std::size_t s = 0; s < P; ++s) {
      if (!from_.parts[s]) continue;
      for (std::size_t d = 0; d < n_; ++d) {
        const DimAt a = at_from_[d], b = at_to_[d];
        const auto [first, count] = group_of(from_, a.group).value_range(a.k, a.group == 0 ? f : h, (*from_.parts[s])[a.group]);
        Values& v = values_[s][d];
        for (i64 x = first; x < first + count; ++x) v.all.push_back(x);
        const GroupLayout& target_group = group_of(to_, b.group);
        if (static_cast<int>(b.k) != target_group.dist() || target_group.parts() == 1) continue;
        v.by_part.resize(static_cast<std::size_t>(target_group.parts()));
        for (i64 x : v.all) v.by_part[static_cast<std::size_t>(target_group.part_of_value(b.k, x))].push_back(x);
      }
    }
  }

  /// The values of dimension d that sender s's block has and receiver r holds (r has parts).
  const std::vector<i64>& list(std::size_t s, std::size_t r, std::size_t d) const {
    const Values& v = values_[s][d];
    const i64 part = (*to_.parts[r])[at_to_[d].group];
    return part < 0 || v.by_part.empty() ? v.all : v.by_part[static_cast<std::size_t>(part)];
  }

  std::size_t count(std::size_t s, std::size_t r) const {
    if (!from_.parts[s] || !to_.parts[r]) return 0;
    std::size_t c = 1;
    for (std::size_t d = 0; d < n_; ++d) c *= list(s, r, d).size();
    return c;
  }

  /// Calls visit(row values, col values) of placement p for every element moving from s to r,
  /// in the shared order: the lists nested as nest_, the last fastest.
  void enumerate(std::size_t s, std::size_t r, const Placement& p,
                 const std::function<void(const i64* rows, const i64* cols)>& visit) const {
    if (count(s, r) == 0) return;
    std::vector<const std::vector<i64>*> lists(n_);
    for (std::size_t d = 0; d < n_; ++d) lists[d] = &list(s, r, d);
    const std::size_t nr = p.rows.indices().size();
    std::vector<std::size_t> at(n_, 0);
    std::vector<i64> group_values(n_);   // rows' values, then cols'
    std::vector<std::size_t> position(n_);   // tensor dimension -> position in group_values
    for (std::size_t q = 0; q < n_; ++q) position[static_cast<std::size_t>(p.perm[q])] = q;
    for (std::size_t d = 0; d < n_; ++d) group_values[position[d]] = (*lists[d])[0];
    while (true) {
      visit(group_values.data(), group_values.data() + nr);
      std::size_t i = n_;
      while (i > 0) {
        const std::size_t d = nest_[--i];
        if (++at[d] < lists[d]->size()) {
          group_values[position[d]] = (*lists[d])[at[d]];
          break;
        }
        at[d] = 0;
        group_values[position[d]] = (*lists[d])[0];
        if (i == 0) return;
      }
      if (n_ == 0) return;
    }
  }

  void round(i64 f, i64 h) {
    block_values(f, h);
    const auto P = static_cast<std::size_t>(ctx_.size()), me = static_cast<std::size_t>(ctx_.rank());
    std::vector<std::size_t> send_counts(P), recv_counts(P);
    std::size_t send_total = 0, recv_total = 0;
    for (std::size_t q = 0; q < P; ++q) {
      send_total += send_counts[q] = count(me, q);
      recv_total += recv_counts[q] = count(q, me);
    }
    Buffer send = allocate(send_total, "hand-off values sent"), recv = allocate(recv_total, "hand-off values received");
    if (send_total > 0) {
      Buffer block = allocate(static_cast<std::size_t>(held_->block_rows(f) * held_->block_cols(h)), "hand-off block");
      held_->read_block(f, h, block.data());
      const std::uint64_t base = held_->block_offset(f, h);
      std::size_t at = 0;
      for (std::size_t r = 0; r < P; ++r)
        enumerate(me, r, from_, [&](const i64* rv, const i64* cv) { send[at++] = block[held_->offset_of(rv, cv).value() - base]; });
    }
    alltoallv(ctx_, send.data(), send_counts, recv.data(), recv_counts);
    // Each run of consecutive target elements is one write.
    std::size_t at = 0, run_from = 0;
    std::uint64_t run_start = 0, run_length = 0;
    auto flush = [&] {
      if (run_length > 0) target_->file().write(recv.data() + run_from, run_start, static_cast<std::size_t>(run_length));
    };
    for (std::size_t s = 0; s < P; ++s)
      enumerate(s, me, to_, [&](const i64* rv, const i64* cv) {
        const std::uint64_t o = target_->offset_of(rv, cv).value();
        if (run_length == 0 || o != run_start + run_length) {
          flush();
          run_start = o, run_from = at, run_length = 0;
        }
        ++run_length, ++at;
      });
    flush();
  }

  const Context& ctx_;
  const Placement& from_;
  const Placement& to_;
  TiledMatrix* held_;
  TiledMatrix* target_;
  std::vector<DimAt> at_from_, at_to_;
  std::size_t n_ = 0;
  std::vector<std::size_t> nest_;
  std::vector<std::vector<Values>> values_;   // [sender][tensor dimension], this round
};

}  // namespace

void move_tensor(const Context& ctx, const Placement& from, TiledMatrix* held, const Placement& to,
                 TiledMatrix* target) {
  Mover(ctx, from, held, to, target).run();
}

}  // namespace tcert
