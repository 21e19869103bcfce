// costmodel/methods/sfc/sfc_walk.cpp — sfc_schedule(), sfc_walk() and sfc_replay() (sfc_walk.h).
#include "costmodel/methods/sfc/sfc_walk.h"

#include <algorithm>
#include <cstdlib>
#include <list>
#include <optional>
#include <unordered_map>

#include "costmodel/methods/pass_runs.h"
#include "costmodel/methods/sfc/curve.h"
#include "costmodel/partition.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

/// The geometry of a plan: extents, grid, chunk, layers (c) and ranks per layer (g); chunks:
/// of the largest layer's share of K, ⌈⌈|K|/c⌉/chunk⌉ (the panel keys' range).
struct Grid {
  i64 m, n, k, Ti, Tj, chunk, c, g, chunks;
  explicit Grid(const Plan& plan)
      : m(plan.I.extent()),
        n(plan.J.extent()),
        k(plan.K.extent()),
        Ti(sfc_plan(plan).tiles_I),
        Tj(sfc_plan(plan).tiles_J),
        chunk(sfc_plan(plan).chunk),
        c(sfc_plan(plan).layers),
        g(plan.processors / sfc_plan(plan).layers),
        chunks(ceil_div(ceil_div(k, c), chunk)) {}
  i64 rows(i64 ti) const { return piece(m, Ti, ti); }
  i64 cols(i64 tj) const { return piece(n, Tj, tj); }
};

/// Layer x's share of K: columns [k0, k0 + kx), balanced over the c layers, in `chunks` chunks
/// (the last shorter).
struct Layer {
  i64 x, k0, kx, chunks;
  Layer(const Grid& g, i64 rank)
      : x(rank / g.g), k0(piece_start(g.k, g.c, x)), kx(piece(g.k, g.c, x)), chunks(ceil_div(kx, g.chunk)) {}
  i64 width(const Grid& g, i64 ch) const { return std::min(g.chunk, kx - ch * g.chunk); }
};

/// A panel: operand (0 = A, 1 = B), tile along I or J, K chunk (within the layer's share).
i64 panel_key(const Grid& g, int operand, i64 tile, i64 chunk) {
  return (static_cast<i64>(operand) * std::max(g.Ti, g.Tj) + tile) * g.chunks + chunk;
}

/// Calls visit(w, ti, tj) for each tile of the segment of position q and, per tile,
/// panel(operand, tile, chunk) for its panels in THE SCHEDULE's order (the layer's `chunks`
/// forward on even w, backward on odd).
template <class Tile, class Panel>
void each_step(const Grid& g, const SfcSchedule& s, i64 q, i64 chunks, Tile visit, Panel panel) {
  for (i64 at = s.segment[static_cast<std::size_t>(q)], w = 0; at < s.segment[static_cast<std::size_t>(q) + 1];
       ++at, ++w) {
    const i64 t = s.order[static_cast<std::size_t>(at)], ti = t / g.Tj, tj = t % g.Tj;
    visit(w, ti, tj);
    for (i64 step = 0; step < chunks; ++step) {
      const i64 c = w % 2 == 0 ? step : chunks - 1 - step;
      panel(0, ti, c);
      panel(1, tj, c);
    }
  }
}

/// The counts of one tile's end on rank `rank` of layer x: rows [piece_start(h, c, x), +
/// piece(h, c, x)) of the h × wd tile are its piece (Solomonik and Demmel's 2.5D reduction, here
/// runtime ring_reduce_scatter over the c layers: sent = tile − own piece, received = tile −
/// piece of layer x − 1 mod c), read when accumulating and written.
struct TileEnd {
  i64 first_row, rows;  // the piece, rows of the tile
  u64 area, sent, received;
};
TileEnd tile_end(const Grid& g, i64 x, i64 h, i64 wd) {
  TileEnd e;
  e.first_row = piece_start(h, g.c, x), e.rows = piece(h, g.c, x);
  e.area = static_cast<u64>(e.rows * wd);
  const auto tile = static_cast<u64>(h * wd);
  e.sent = g.c > 1 ? tile - e.area : 0;
  e.received = g.c > 1 ? tile - static_cast<u64>(piece(h, g.c, (x + g.c - 1) % g.c) * wd) : 0;
  return e;
}

}  // namespace

i64 sfc_tile_elements(const Plan& plan) {
  const Grid g(plan);
  return ceil_div(g.m, g.Ti) * ceil_div(g.n, g.Tj);
}

i64 sfc_slot_elements(const Plan& plan) {
  const Grid g(plan);
  return std::max(ceil_div(g.m, g.Ti), ceil_div(g.n, g.Tj)) * g.chunk;
}

i64 sfc_scratch_elements(const Plan& plan) { return sfc_plan(plan).layers > 1 ? sfc_slot_elements(plan) : 0; }

SfcSchedule sfc_schedule(const Plan& plan) {
  // The walk, the flops of every rank and code generation each ask for it: keep the last.
  struct Last {
    i64 m = -1, n = -1, Ti = -1, Tj = -1, g = -1;
    SfcSchedule schedule;
  };
  thread_local Last last;
  const Grid g(plan);
  if (last.m != g.m || last.n != g.n || last.Ti != g.Ti || last.Tj != g.Tj || last.g != g.g)
    last = {g.m, g.n, g.Ti, g.Tj, g.g, curve_segments(plan)};
  return last.schedule;
}

SfcSchedule curve_segments(const Plan& plan) {
  const Grid g(plan);
  SfcSchedule s;
  // The curve over the grid with x along J (columns of C) and y along I.
  for (const auto& [x, y] : generalized_hilbert(g.Tj, g.Ti)) s.order.push_back(y * g.Tj + x);
  std::vector<double> before(s.order.size() + 1, 0.0);  // elements of C before each position
  for (std::size_t i = 0; i < s.order.size(); ++i)
    before[i + 1] = before[i] + static_cast<double>(g.rows(s.order[i] / g.Tj) * g.cols(s.order[i] % g.Tj));
  const double total = before.back();
  s.segment.push_back(0);
  for (i64 q = 1; q < g.g; ++q) {  // the g ranks of a layer
    const double target = total * static_cast<double>(q) / static_cast<double>(g.g);
    auto at = std::lower_bound(before.begin(), before.end(), target);
    if (at != before.begin() && (at == before.end() || target - *(at - 1) <= *at - target)) --at;
    s.segment.push_back(std::max(s.segment.back(), static_cast<i64>(at - before.begin())));
  }
  s.segment.push_back(static_cast<i64>(s.order.size()));
  return s;
}

std::vector<SfcRankWalk> sfc_walk(const Plan& plan, const ArrayAccess* access) {
  // Volumes, requests and the report each walk the same plan: keep the last walk.
  struct Last {
    std::optional<Plan> plan;
    bool requests = false;
    std::vector<int> perm_A, perm_B, perm_C;
    std::vector<SfcRankWalk> walk;
  };
  thread_local Last last;
  const ArrayAccess none;
  const ArrayAccess& a = access ? *access : none;
  // A walk with requests serves one without (its bytes are the same); requests need the same perms.
  const bool same = last.plan && *last.plan == plan &&
                    (access == nullptr ||
                     (last.requests && last.perm_A == a.perm_A && last.perm_B == a.perm_B && last.perm_C == a.perm_C));
  if (!same) last = {plan, access != nullptr, a.perm_A, a.perm_B, a.perm_C, walk_ranks(plan, access)};
  return last.walk;
}

std::vector<SfcRankWalk> walk_ranks(const Plan& plan, const ArrayAccess* access) {
  const ArrayAccess none;
  const ArrayAccess& a = access ? *access : none;
  const bool count = access != nullptr;
  const Grid g(plan);
  const SfcSchedule s = sfc_schedule(plan);
  const i64 slots = sfc_plan(plan).slots;
  const std::vector<i64> eA = group_extents(plan.I, plan.K), eB = group_extents(plan.J, plan.K),
                         eC = group_extents(plan.I, plan.J);
  const std::size_t ni = plan.I.indices.size(), nj = plan.J.indices.size(), nk = plan.K.indices.size();
  PanelRuns runs_A(eA, a.perm_A, ni, nk), runs_B(eB, a.perm_B, nj, nk);
  PassRuns runs_C(eC, a.perm_C, 0, ni, ni, nj);
  std::vector<SfcRankWalk> out(static_cast<std::size_t>(plan.processors));
  for (i64 rank = 0; rank < plan.processors; ++rank) {
    SfcRankWalk& r = out[static_cast<std::size_t>(rank)];
    const Layer layer(g, rank);
    std::list<i64> recent;  // most recent first
    std::unordered_map<i64, std::list<i64>::iterator> cached;
    auto tile = [&](i64, i64 ti, i64 tj) {
      const i64 h = g.rows(ti), wd = g.cols(tj);
      const TileEnd e = tile_end(g, layer.x, h, wd);
      const u64 pass = count && e.rows > 0 ? runs_C.block(piece_start(g.m, g.Ti, ti) + e.first_row, e.rows,
                                                          piece_start(g.n, g.Tj, tj), wd)
                                           : 0;
      if (plan.accumulate) r.read += e.area, r.requests += pass;  // C's current values of the piece
      r.written += e.area, r.requests += pass;
      r.sent += e.sent, r.received += e.received;
      r.multiply_adds += static_cast<double>(h * wd) * static_cast<double>(layer.kx);
      ++r.tiles;
    };
    auto panel = [&](int operand, i64 t, i64 c) {
      const i64 key = panel_key(g, operand, t, c);
      if (auto hit = cached.find(key); hit != cached.end()) {
        recent.splice(recent.begin(), recent, hit->second);
        ++r.hits;
        return;
      }
      ++r.misses;
      if (static_cast<i64>(recent.size()) == slots) {  // the least recently used leaves
        cached.erase(recent.back());
        recent.pop_back();
      }
      recent.push_front(key);
      cached[key] = recent.begin();
      const i64 rows = operand == 0 ? g.rows(t) : g.cols(t);
      const i64 first = operand == 0 ? piece_start(g.m, g.Ti, t) : piece_start(g.n, g.Tj, t);
      const i64 width = layer.width(g, c);
      r.read += static_cast<u64>(rows * width);
      if (!count) return;
      PanelRuns& runs = operand == 0 ? runs_A : runs_B;
      runs.pass(first, rows, layer.k0 + c * g.chunk, width);
      r.requests += runs.runs();
      r.faults += runs.faults();
    };
    each_step(g, s, rank % g.g, layer.chunks, tile, panel);
  }
  return out;
}

std::vector<SfcRankWalk> sfc_replay(const Plan& plan) {
  const Grid g(plan);
  const SfcSchedule s = sfc_schedule(plan);
  const i64 slots = sfc_plan(plan).slots;
  std::vector<SfcRankWalk> out(static_cast<std::size_t>(plan.processors));
  for (i64 rank = 0; rank < plan.processors; ++rank) {
    SfcRankWalk& r = out[static_cast<std::size_t>(rank)];
    const Layer layer(g, rank);
    std::vector<i64> key(static_cast<std::size_t>(slots), -1), used(static_cast<std::size_t>(slots), -1);
    i64 clock = 0;
    auto tile = [&](i64, i64 ti, i64 tj) {
      const i64 h = g.rows(ti), wd = g.cols(tj);
      const TileEnd e = tile_end(g, layer.x, h, wd);
      r.read += plan.accumulate ? e.area : 0;
      r.written += e.area;
      r.sent += e.sent, r.received += e.received;
      ++r.tiles;
    };
    auto panel = [&](int operand, i64 t, i64 c) {
      const i64 want = panel_key(g, operand, t, c);
      const auto found = std::find(key.begin(), key.end(), want);
      if (found != key.end()) {
        used[static_cast<std::size_t>(found - key.begin())] = clock++;
        return;
      }
      // A free slot (lowest index first: the fewest `used`, −1), else the least recently used.
      const auto slot = static_cast<std::size_t>(std::min_element(used.begin(), used.end()) - used.begin());
      key[slot] = want, used[slot] = clock++;
      r.read += static_cast<u64>((operand == 0 ? g.rows(t) : g.cols(t)) * layer.width(g, c));
    };
    each_step(g, s, rank % g.g, layer.chunks, tile, panel);
  }
  return out;
}

}  // namespace tcec::costmodel
