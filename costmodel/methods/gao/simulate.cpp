// costmodel/methods/gao/simulate.cpp — counts a plan's bytes by walking its loop nest.
#include "costmodel/methods/gao/simulate.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

#include "costmodel/methods/gao/gao.h"
#include "costmodel/partition.h"
#include "costmodel/schedules.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;

/// Elements per chunk of the runtime's file collectives (runtime/comm/comm.h): one request each.
constexpr i64 kFileChunk = i64{1} << 16;
i64 chunks(i64 n) { return (n + kFileChunk - 1) / kFileChunk; }

/// The file offsets of a block's elements in order: every combination of the lists' values
/// (the first list outermost, the last fastest), each value times its list's stride.
std::vector<i64> offsets(const std::vector<std::pair<i64, i64>>& lists, const std::vector<i64>& strides) {
  std::vector<i64> out{0};
  for (std::size_t l = 0; l < lists.size(); ++l) {
    std::vector<i64> next;
    for (i64 base : out)
      for (i64 v = lists[l].first; v < lists[l].first + lists[l].second; ++v) next.push_back(base + v * strides[l]);
    out = std::move(next);
  }
  return out;
}

/// A group's finest tiles as the runtime's tiling rule makes them (runtime/spec/tiling.h
/// GroupLayout, undivided): per tile, the product of the non-distribution indices' sizes and the
/// distribution index's size, and the values of each index; part p of g parts holds the p-th
/// balanced slice (piece()) of the distribution index's values.
struct Enumerated {
  tcert::GroupLayout layout;
  i64 T1 = 1, T2 = 1;
  std::vector<i64> others, dist;
  i64 rows(i64 f, i64 g, i64 p) const { return others[f] * (g == 1 || p < 0 ? dist[f] : piece(dist[f], g, p)); }
  /// Per index, in the runtime's tile order (GroupLayout::tile_order(): the distribution index
  /// first, then the others in group order), its values [first, first + count) in finest tile f
  /// as part p of g holds them (the distribution index sliced; p < 0 or g == 1: whole).
  std::vector<std::pair<i64, i64>> values(i64 f, i64 g, i64 p) const {
    std::vector<std::pair<i64, i64>> out;
    for (std::size_t k : layout.tile_order()) {
      auto [first, count] = layout.value_range(k, f, -1);
      if (static_cast<int>(k) == layout.dist() && g > 1 && p >= 0)
        first += piece_start(count, g, p), count = piece(count, g, p);
      out.emplace_back(first, count);
    }
    return out;
  }
};

Enumerated enumerate(const GroupTiling& group) {
  Enumerated e;
  e.layout = group_layout(group);
  e.T1 = e.layout.tiles1(), e.T2 = e.layout.tiles2();
  for (i64 f = 0; f < e.T1 * e.T2; ++f) {
    i64 others = 1, dist = 1;
    for (std::size_t k = 0; k < group.indices.size(); ++k)
      (static_cast<int>(k) == group.dist ? dist : others) *= e.layout.value_range(k, f, -1).second;
    e.others.push_back(others);
    e.dist.push_back(dist);
  }
  return e;
}

struct Counters {
  i64 read = 0, write = 0, sent = 0, recv = 0;
  i64 read_C = 0;                      // of read, C's elements (PlanVolumes::disk_read_C_bytes)
  i64 sent_apart = 0, recv_apart = 0;  // of sent and recv, to and from ranks on other nodes
};

class Simulator {
 public:
  /// access: count disk requests too (requests()), the arrays reached as it says.
  /// machine: the nodes whose crossings are counted (Machine::node_of()); none when null.
  Simulator(const Plan& plan, i64 rank, const ArrayAccess* access = nullptr, const Machine* machine = nullptr)
      : plan_(plan),
        m_(gao(plan)),
        parts_(grid_parts(plan)),
        rank_(rank),
        I_(enumerate(plan.I)),
        J_(enumerate(plan.J)),
        K_(enumerate(plan.K)),
        P_(plan.processors),
        access_(access),
        machine_(machine) {
    const i64 g = parts_.grid_cols;
    r_ = rank / g, c_ = rank % g;
  }

  Counters run() {
    const i64 rounds = m_.algorithm == Algorithm::Rotation && m_.comm == Communication::Outside ? parts_.grid_cols : 1;
    if (m_.comm == Communication::Outside && m_.algorithm == Algorithm::Replication) gather_file();
    for (round_ = 0; round_ < rounds; ++round_) {
      walk(0);
      if (rounds > 1) shift_files();
    }
    if (m_.comm == Communication::Outside && m_.algorithm == Algorithm::Accumulation) {
      const i64 n = plan_.I.extent() * plan_.J.extent();
      n_.read += n, n_.read_C += n, requests_ += chunks(n);
      allreduce(n);
      if (rank_ == 0) n_.write += n, requests_ += chunks(n);
    }
    return n_;
  }

  /// Disk requests counted by run() (with an access given).
  i64 requests() const { return requests_; }

 private:
  // --- the nest ---
  void walk(std::size_t level) {
    const auto nest = loop_nest(m_.order);
    if (level == nest.size()) return;
    loop(nest[level], 0, level);
  }
  void loop(const LoopLevel& lv, std::size_t v, std::size_t level) {
    if (v == lv.vars.size()) {
      for (Action a : lv.before) act(a);
      walk(level + 1);
      for (Action a : lv.after) act(a);
      return;
    }
    const int var = static_cast<int>(lv.vars[v]);
    for (i64 x = 0; x < extent_of(var); ++x) {
      bound_[var] = true, value_[var] = x;
      loop(lv, v + 1, level);
    }
    bound_[var] = false, value_[var] = 0;
  }
  i64 extent_of(int var) const {
    const Enumerated* e[] = {&I_, &J_, &K_};
    return var % 2 == 0 ? e[var / 2]->T1 : e[var / 2]->T2;
  }
  /// The finest tiles of group g (0 I, 1 J, 2 K) in the current tile.
  std::vector<i64> tiles(int g) const {
    const i64 T2 = extent_of(2 * g + 1), base = value_[2 * g] * T2;
    if (bound_[2 * g + 1]) return {base + value_[2 * g + 1]};
    std::vector<i64> out;
    for (i64 t = 0; t < T2; ++t) out.push_back(base + t);
    return out;
  }
  i64 k_part() const { return (r_ + c_ + round_) % parts_.grid_cols; }  // Rotation: K part held

  /// Elements of a tile of an array whose rows come from group `rg` split rp
  /// ways (part pr) and whose columns from `cg` split cp ways (part pc).
  i64 tile(const Enumerated& R, int rg, i64 rp, i64 pr, const Enumerated& C, int cg, i64 cp, i64 pc) const {
    i64 rows = 0, cols = 0;
    for (i64 f : tiles(rg)) rows += R.rows(f, rp, pr);
    for (i64 h : tiles(cg)) cols += C.rows(h, cp, pc);
    return rows * cols;
  }

  void act(Action a) {
    switch (a) {
      case Action::ReadA: read_operand(true); break;
      case Action::ReadB: read_operand(false); break;
      case Action::ReadC: read_C(); break;
      case Action::Compute: compute(); break;
      case Action::WriteC: write_C(); break;
    }
  }

  void read_operand(bool is_A) {
    const Enumerated& R = is_A ? I_ : J_;
    const int rg = is_A ? 0 : 1;
    const ArrayParts ap = is_A ? parts_.A : parts_.B;
    const int x = is_A ? 0 : 1;
    if (m_.algorithm == Algorithm::Rotation) {
      n_.read += tile(R, rg, ap.rows, is_A ? r_ : c_, K_, 2, ap.cols, k_part());
      visit(x, rg, ap.rows, is_A ? r_ : c_, 2, ap.cols, k_part());
      return;
    }
    const bool bcast = m_.algorithm == Algorithm::Replication && (m_.replicated == Operand::A) == is_A;
    if (!bcast) {
      const i64 prow = ap.rows > 1 ? rank_ : -1, pcol = ap.cols > 1 ? rank_ : -1;
      n_.read += tile(R, rg, ap.rows, prow, K_, 2, ap.cols, pcol);
      visit(x, rg, ap.rows, prow, 2, ap.cols, pcol);
      return;
    }
    if (m_.comm == Communication::Outside) {  // the whole local copy: the gathered pieces' files
      n_.read += tile(R, rg, 1, -1, K_, 2, 1, -1);
      for (i64 q = 0; q < P_; ++q) visit(x, rg, 1, -1, 2, P_, q);
      return;
    }
    std::vector<i64> pieces;  // inside: read own piece, ring all-gather the tile
    for (i64 q = 0; q < P_; ++q) pieces.push_back(tile(R, rg, 1, -1, K_, 2, P_, q));
    n_.read += pieces[rank_];
    visit(x, rg, 1, -1, 2, P_, rank_);
    ring(pieces, false);
  }

  i64 C_row_part() const { return parts_.C.rows > 1 ? (parts_.grid_cols > 1 ? r_ : rank_) : -1; }
  i64 C_col_part() const { return parts_.C.cols > 1 ? (parts_.grid_cols > 1 ? c_ : rank_) : -1; }
  void visit_C() { visit(2, 0, parts_.C.rows, C_row_part(), 1, parts_.C.cols, C_col_part()); }

  void read_C() {
    const i64 n = tile(I_, 0, parts_.C.rows, C_row_part(), J_, 1, parts_.C.cols, C_col_part());
    // A tile of a C that starts from zero is not read on its first visit.
    const bool first = touched_.insert(std::make_pair(tiles(0).front(), tiles(1).front())).second;
    const bool zero = first && !plan_.accumulate;
    current_C_ = n;
    const bool read = m_.algorithm == Algorithm::Accumulation
                          ? (rank_ == 0 && !zero) || (rank_ != 0 && m_.comm == Communication::Outside && !first)
                          : !zero;
    if (!read) return;
    n_.read += n, n_.read_C += n;
    visit_C();
  }

  void write_C() {
    if (m_.algorithm == Algorithm::Accumulation && m_.comm == Communication::Inside) {
      allreduce(current_C_);
      if (rank_ == 0) n_.write += current_C_, visit_C();
      return;
    }
    n_.write += current_C_;
    visit_C();
  }

  // --- disk requests ---
  /// One visit of the current tile's blocks of array x (0 A, 1 B, 2 C) whose rows come from
  /// group rg split rp ways (part pr) and whose columns from group cg split cp ways (part pc).
  void visit(int x, int rg, i64 rp, i64 pr, int cg, i64 cp, i64 pc) {
    if (!access_) return;
    const Enumerated* E[] = {&I_, &J_, &K_};
    const bool direct = x == 0 ? access_->direct_A : x == 1 ? access_->direct_B : access_->direct_C;
    for (i64 f : tiles(rg))
      for (i64 h : tiles(cg)) {
        if (E[rg]->rows(f, rp, pr) == 0 || E[cg]->rows(h, cp, pc) == 0) continue;  // nothing held
        requests_ += direct ? runs(x, rg, f, rp, pr, cg, h, cp, pc) : 1;
      }
  }
  /// Runs of adjacent file elements of block (f, h) of array x in the tensor's file, in the
  /// runtime's order (requests.cpp).
  i64 runs(int x, int rg, i64 f, i64 rp, i64 pr, int cg, i64 h, i64 cp, i64 pc) {
    const auto key = std::make_tuple(x, f, h, rp, pr, cp, pc);
    if (auto it = runs_.find(key); it != runs_.end()) return it->second;
    const GroupTiling* G[] = {&plan_.I, &plan_.J, &plan_.K};
    const std::vector<int>& perm = x == 0 ? access_->perm_A : x == 1 ? access_->perm_B : access_->perm_C;
    const std::size_t nr = G[rg]->indices.size(), n = nr + G[cg]->indices.size();
    std::vector<i64> stored(n), stride(n, 1);  // by stored dimension
    for (std::size_t q = 0; q < n; ++q)
      stored[static_cast<std::size_t>(perm[q])] = (q < nr ? G[rg]->indices[q] : G[cg]->indices[q - nr]).extent;
    for (std::size_t d = n; d-- > 1;) stride[d - 1] = stride[d] * stored[d];
    std::vector<std::pair<i64, i64>> lists;
    std::vector<i64> strides;
    const Enumerated* E[] = {&I_, &J_, &K_};
    auto add = [&](int g, i64 tile, i64 ways, i64 part_held, std::size_t first_position) {
      const std::vector<std::pair<i64, i64>> values = E[g]->values(tile, ways, part_held);
      const std::vector<std::size_t>& order = E[g]->layout.tile_order();  // group positions
      for (std::size_t l = 0; l < values.size(); ++l) {
        lists.push_back(values[l]);
        strides.push_back(stride[static_cast<std::size_t>(perm[first_position + order[l]])]);
      }
    };
    // Row by row, or column by column where a row index is the innermost stored dimension (its
    // stride 1, its extent above 1: runtime LinearMap::rows_innermost()).
    bool by_columns = false;
    for (std::size_t q = 0; q < nr; ++q)
      if (G[rg]->indices[q].extent > 1 && stride[static_cast<std::size_t>(perm[q])] == 1) by_columns = true;
    if (by_columns) {
      add(cg, h, cp, pc, nr);
      add(rg, f, rp, pr, 0);
    } else {
      add(rg, f, rp, pr, 0);
      add(cg, h, cp, pc, nr);
    }
    const std::vector<i64> at = offsets(lists, strides);
    i64 count = 0;
    for (std::size_t e = 0; e < at.size(); ++e) count += e == 0 || at[e] != at[e - 1] + 1 ? 1 : 0;
    runs_[key] = count;
    return count;
  }

  void compute() {
    if (m_.algorithm != Algorithm::Rotation || m_.comm != Communication::Inside) return;
    if (parts_.grid_cols == 1) return;  // one rank: nothing to shift
    const i64 g = parts_.grid_cols, f = tiles(0).front(), h = tiles(1).front(), k = tiles(2).front();
    for (i64 s = 0; s < g; ++s) {  // Cannon: multiply, then shift A left and B up
      const i64 held = (r_ + c_ + s) % g, next = (held + 1) % g;
      send(left(), I_.rows(f, g, r_) * K_.rows(k, g, held), right(), I_.rows(f, g, r_) * K_.rows(k, g, next));
      send(up(), J_.rows(h, g, c_) * K_.rows(k, g, held), down(), J_.rows(h, g, c_) * K_.rows(k, g, next));
    }
  }

  // --- messages ---
  /// `out` elements to rank `to`, `in` from rank `from`.
  void send(i64 to, i64 out, i64 from, i64 in) {
    n_.sent += out, n_.recv += in;
    if (machine_ && machine_->apart(rank_, to)) n_.sent_apart += out;
    if (machine_ && machine_->apart(rank_, from)) n_.recv_apart += in;
  }
  i64 left() const { return r_ * parts_.grid_cols + (c_ + parts_.grid_cols - 1) % parts_.grid_cols; }
  i64 right() const { return r_ * parts_.grid_cols + (c_ + 1) % parts_.grid_cols; }
  i64 up() const { return ((r_ + parts_.grid_cols - 1) % parts_.grid_cols) * parts_.grid_cols + c_; }
  i64 down() const { return ((r_ + 1) % parts_.grid_cols) * parts_.grid_cols + c_; }

  // --- collectives ---
  void ring(const std::vector<i64>& pieces, bool on_disk) {
    for (i64 s = 0; s + 1 < P_; ++s) {
      const i64 out = pieces[((rank_ - s) % P_ + P_) % P_], in = pieces[((rank_ - s - 1) % P_ + P_) % P_];
      send((rank_ + 1) % P_, out, (rank_ + P_ - 1) % P_, in);
      if (on_disk) n_.read += out, n_.write += in, requests_ += chunks(out) + chunks(in);
    }
  }
  void allreduce(i64 n) {
    i64 Pp = 1;
    while (Pp * 2 <= P_) Pp *= 2;
    if (rank_ >= Pp) {  // pre-step send, post-step receive
      send(rank_ - Pp, n, rank_ - Pp, n);
      return;
    }
    if (rank_ + Pp < P_) send(rank_ + Pp, n, rank_ + Pp, n);  // pre-step receive, post-step send
    for (i64 d = 1; d < Pp; d *= 2) send(rank_ ^ d, n, rank_ ^ d, n);
  }
  void gather_file() {
    const bool A = m_.replicated == Operand::A;
    std::vector<i64> pieces;
    for (i64 q = 0; q < P_; ++q) {
      const GroupTiling& R = A ? plan_.I : plan_.J;
      i64 cols = 0;
      for (i64 h = 0; h < K_.T1 * K_.T2; ++h) cols += K_.rows(h, P_, q);
      pieces.push_back(R.extent() * cols);
    }
    ring(pieces, true);
  }
  void shift_files() {
    const i64 g = parts_.grid_cols, held = k_part(), next = (held + 1) % g;
    i64 rows_A = 0, rows_B = 0, k_held = 0, k_next = 0;
    for (i64 f = 0; f < I_.T1 * I_.T2; ++f) rows_A += I_.rows(f, g, r_);
    for (i64 f = 0; f < J_.T1 * J_.T2; ++f) rows_B += J_.rows(f, g, c_);
    for (i64 h = 0; h < K_.T1 * K_.T2; ++h) k_held += K_.rows(h, g, held), k_next += K_.rows(h, g, next);
    const i64 out = (rows_A + rows_B) * k_held, in = (rows_A + rows_B) * k_next;
    send(left(), rows_A * k_held, right(), rows_A * k_next);
    send(up(), rows_B * k_held, down(), rows_B * k_next);
    n_.read += out, n_.write += in;
    requests_ += chunks(rows_A * k_held) + chunks(rows_A * k_next) + chunks(rows_B * k_held) + chunks(rows_B * k_next);
  }

  const Plan& plan_;
  const GaoPlan& m_;
  GridParts parts_;
  i64 rank_, r_ = 0, c_ = 0;
  Enumerated I_, J_, K_;
  i64 P_, round_ = 0, current_C_ = 0;
  std::array<bool, 6> bound_{};
  std::array<i64, 6> value_{};
  std::set<std::pair<i64, i64>> touched_;
  Counters n_;
  const ArrayAccess* access_;
  const Machine* machine_;
  i64 requests_ = 0;
  std::map<std::tuple<int, i64, i64, i64, i64, i64, i64>, i64> runs_;  // by block
};

}  // namespace

PlanVolumes gao_simulate(const Plan& plan, const Machine& machine) {
  PlanVolumes out;
  const auto e = static_cast<std::uint64_t>(machine.element_size_bytes);
  for (i64 rank = 0; rank < plan.processors; ++rank) {
    const Counters n = Simulator(plan, rank, nullptr, &machine).run();
    out.disk_read_bytes.push_back(static_cast<std::uint64_t>(n.read) * e);
    out.disk_write_bytes.push_back(static_cast<std::uint64_t>(n.write) * e);
    out.disk_read_C_bytes.push_back(static_cast<std::uint64_t>(n.read_C) * e);
    out.comm_sent_bytes.push_back(static_cast<std::uint64_t>(n.sent) * e);
    out.comm_recv_bytes.push_back(static_cast<std::uint64_t>(n.recv) * e);
    if (machine.nodes() > 1) {
      out.internode_sent_bytes.push_back(static_cast<std::uint64_t>(n.sent_apart) * e);
      out.internode_recv_bytes.push_back(static_cast<std::uint64_t>(n.recv_apart) * e);
    }
    out.time_s = std::max(out.time_s,
                          rank_time_s(plan, machine, out.disk_read_bytes.back(), out.disk_write_bytes.back(),
                                      out.comm_recv_bytes.back(), internode_recv(out, static_cast<std::size_t>(rank))));
  }
  return out;
}

std::vector<std::uint64_t> gao_simulate_requests(const Plan& plan, const ArrayAccess& access) {
  std::vector<std::uint64_t> out;
  for (i64 rank = 0; rank < plan.processors; ++rank) {
    Simulator s(plan, rank, &access);
    s.run();
    out.push_back(static_cast<std::uint64_t>(s.requests()));
  }
  return out;
}

}  // namespace tcec::costmodel
