// costmodel/methods/cosma/cosma.cpp — COSMA's closed forms (Eq. 32, Eq. 33), the grid fitting of §7.1 and
// the exact per-rank elements of the schedule documented in cosma.h.
#include "costmodel/methods/cosma/cosma.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "costmodel/partition.h"
#include "costmodel/reasons.h"
#include "runtime/spec/cosma_spec.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

/// Elements received (or sent, with `sent`) by ring position r of a ring all-gather of a
/// total T in q balanced pieces: recv = T − piece(r), sent = T − piece((r+1) mod q).
u64 allgather(i64 T, i64 q, i64 r, bool sent) {
  if (q == 1) return 0;
  return static_cast<u64>(T - piece(T, q, sent ? (r + 1) % q : r));
}

/// The same for a ring reduce-scatter: sent = T − piece(r), recv = T − piece((r−1) mod q).
u64 reduce_scatter(i64 T, i64 q, i64 r, bool sent) {
  if (q == 1) return 0;
  return static_cast<u64>(T - piece(T, q, sent ? r : (r + q - 1) % q));
}

/// One collective of A (or B) summed over the t rounds: rows × k_j elements in round j.
u64 gathered(i64 rows, i64 block_k, i64 t, i64 q, i64 r, bool sent) {
  u64 total = 0;
  for (auto [kj, count] : balanced_sizes(block_k, t))
    total += static_cast<u64>(count) * allgather(rows * kj, q, r, sent);
  return total;
}

/// Coordinates of one part-size class of a balanced split of n into p parts: [begin, end).
struct SizeClass {
  i64 begin, end, size;
};
std::vector<SizeClass> size_classes(i64 n, i64 p) {
  std::vector<SizeClass> out;
  if (n % p > 0) out.push_back({0, n % p, n / p + 1});
  if (p - n % p > 0) out.push_back({n % p, p, n / p});
  return out;
}

/// Max over all used ranks of sent (or received) elements, exactly. Given the size classes of
/// x, y and z, the A term depends only on y, the B term only on x and the C term only on z,
/// so the maximum of their sum is the sum of their maxima.
u64 max_comm(const CosmaGrid& g, i64 m, i64 n, i64 k, bool sent) {
  u64 best = 0;
  for (const SizeClass& cx : size_classes(m, g.pm))
    for (const SizeClass& cy : size_classes(n, g.pn))
      for (const SizeClass& cz : size_classes(k, g.pk)) {
        u64 a = 0, b = 0, c = 0;
        for (i64 y = cy.begin; y < cy.end; ++y) a = std::max(a, gathered(cx.size, cz.size, g.rounds, g.pn, y, sent));
        for (i64 x = cx.begin; x < cx.end; ++x) b = std::max(b, gathered(cy.size, cz.size, g.rounds, g.pm, x, sent));
        for (i64 z = cz.begin; z < cz.end; ++z) c = std::max(c, reduce_scatter(cx.size * cy.size, g.pk, z, sent));
        best = std::max(best, a + b + c);
      }
  return best;
}

/// A candidate grid and the keys it is ranked by (cosma_strategy()).
struct Candidate {
  CosmaGrid grid;
  bool fits = false;
  u64 recv = 0, sent = 0;
  i64 idle = 0;
  long double recv_per_work = 0;  ///< recv · P / (pm·pn·pk): received words per even share of work
  double need_words = 0;          ///< memory of rank 0 at t = K_0 (for the infeasible reason)
  i64 rounds_needed = 0;          ///< fits the memory only in more than tcert::kMaxCosmaRounds rounds (0: not so)
  /// Fitting grids first (among those that do not fit, the least memory need, then the fewest
  /// rounds, for the reason).
  auto key() const {
    return std::make_tuple(!fits, fits ? 0.0 : need_words, rounds_needed, recv_per_work, idle, grid.rounds, recv, sent);
  }
};

/// Words of the C block plus the A and B slice buffers: two of each when `buffers` is 2 (several
/// rounds: the next round's slices arrive while this one's are multiplied, COSMA §7.3).
double words_needed(i64 bm, i64 bn, i64 slice, MemorySplit split, int buffers = 1) {
  const double c = static_cast<double>(bm) * static_cast<double>(bn), b = buffers;
  if (split == MemorySplit::Optimal) return c + b * static_cast<double>(bm + bn) * static_cast<double>(slice);
  return 3.0 * std::max(c, b * static_cast<double>(std::max(bm, bn)) * static_cast<double>(slice));
}

/// The divisors of p in increasing order.
std::vector<i64> divisors(i64 p) {
  std::vector<i64> low, high;
  for (i64 d = 1; d * d <= p; ++d) {
    if (p % d != 0) continue;
    low.push_back(d);
    if (d != p / d) high.push_back(p / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

/// Evaluates one grid; returns nullopt (skipped) when it cannot beat `best`: its received
/// words per share of work are already above best's on one of two sample ranks, a lower
/// bound on the maximum over ranks.
std::optional<Candidate> evaluate(const CosmaGrid& shape, i64 m, i64 n, i64 k, i64 P, double S, MemorySplit split,
                                  const Candidate* best) {
  Candidate c;
  c.grid = shape;
  c.idle = P - shape.used();
  const i64 bm = ceil_div(m, shape.pm), bn = ceil_div(n, shape.pn), bk = ceil_div(k, shape.pk);
  c.need_words = words_needed(bm, bn, 1, split, bk > 1 ? 2 : 1);
  c.grid.rounds = cosma_min_rounds(bm, bn, bk, S, split);
  // Every rank of the grid cuts its K columns (⌊k/pk⌋ or one more) into the same rounds; the
  // runtime runs no empty round (runtime/spec/spec_check.h).
  c.fits = c.grid.rounds > 0 && c.grid.rounds <= k / shape.pk;
  if (c.fits && c.grid.rounds > tcert::kMaxCosmaRounds) c.fits = false, c.rounds_needed = c.grid.rounds;
  if (!c.fits) {
    if (c.rounds_needed > 0) return c;  // the rounds, for the reason
    c.grid.rounds = bk;                 // the finest rounds, for the reason only
    return c;
  }
  const auto scale = static_cast<long double>(P) / static_cast<long double>(shape.used());
  if (best && best->fits) {
    const CosmaGrid& g = c.grid;
    const u64 sample = std::max(cosma_rank_words(g, m, n, k, (g.pn - 1) * g.pk).recv,          // (0, pn−1, 0)
                                cosma_rank_words(g, m, n, k, (g.pm - 1) * g.pn * g.pk).recv);  // (pm−1, 0, 0)
    if (static_cast<long double>(sample) * scale > best->recv_per_work) return std::nullopt;
  }
  c.recv = max_comm(c.grid, m, n, k, false);
  c.sent = max_comm(c.grid, m, n, k, true);
  c.recv_per_work = static_cast<long double>(c.recv) * scale;
  return c;
}

}  // namespace

std::int64_t default_max_idle_ranks(std::int64_t P) {
  const auto three_percent = static_cast<std::int64_t>(std::floor(0.03 * static_cast<double>(P)));
  return std::min(std::max<std::int64_t>(1, three_percent), (P - 1) / 2);  // fewer than half idle
}

double cosma_bound_words(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t P, double S) {
  const double per_rank =
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / static_cast<double>(P);
  // COSMA Eq. 33 (Theorem 2) as derived: Q >= a²b/ρ = 2mnk/(p·a) + a² with Eq. 32's
  // a = min{√S, (mnk/p)^{1/3}}, i.e. 2mnk/(p√S) + S when √S < (mnk/p)^{1/3}, else 3(mnk/p)^{2/3}.
  const double a = std::min(std::sqrt(S), std::cbrt(per_rank));
  return 2.0 * per_rank / a + a * a;
}

std::int64_t cosma_min_rounds(std::int64_t bm, std::int64_t bn, std::int64_t bk, double S, MemorySplit split) {
  const double c = static_cast<double>(bm) * static_cast<double>(bn);
  // Most K columns per round that fit (w) with `buffers` slice buffers of A and B each.
  auto columns = [&](double buffers) {
    if (split == MemorySplit::Optimal) return std::floor((S - c) / (buffers * static_cast<double>(bm + bn)));
    if (c > S / 3.0) return 0.0;
    return std::floor(S / 3.0 / (buffers * static_cast<double>(std::max(bm, bn))));
  };
  if (columns(1) >= static_cast<double>(bk)) return 1;  // one round: the whole domain fits
  const double w = columns(2);                          // rounds: slices double-buffered (§7.3)
  if (!(w >= 1)) return 0;
  return ceil_div(bk, static_cast<i64>(w));  // the least t with ⌈bk/t⌉ <= w
}

CosmaStrategy cosma_strategy(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t P, double S,
                             std::int64_t max_idle, MemorySplit split) {
  CosmaStrategy s;
  s.m = m, s.n = n, s.k = k, s.processors = P, s.memory_words = S, s.split = split;
  s.max_idle_ranks = max_idle < 0 ? default_max_idle_ranks(P) : max_idle;
  // COSMA Eq. 32: the ideal local domain a×a×b and (Algorithm 1 line 7) its rounds.
  const double per_rank =
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / static_cast<double>(P);
  const double cube = std::cbrt(per_rank);
  s.ideal_a = std::min(std::sqrt(S), cube);
  s.ideal_b = std::max(per_rank / S, cube);
  s.ideal_rounds = s.ideal_a >= std::sqrt(S)
                       ? std::numeric_limits<double>::infinity()
                       : std::max(1.0, std::ceil(2.0 * s.ideal_a * s.ideal_b / (S - s.ideal_a * s.ideal_a)));
  s.bound_words = cosma_bound_words(m, n, k, P, S);

  // §7.1: every grid of P − δ … P ranks (fewer only if none has non-empty blocks).
  bool any = false;
  Candidate best;
  for (i64 p = P; p >= 1 && (p >= P - s.max_idle_ranks || !any); --p) {
    const std::vector<i64> divs = divisors(p);
    for (i64 pm : divs) {
      if (pm > m) break;
      for (i64 pn : divs) {
        if (pn > n || pm * pn > p) break;
        if ((p / pm) % pn != 0 || p / pm / pn > k) continue;
        const auto c = evaluate({pm, pn, p / pm / pn, 1}, m, n, k, P, S, split, any ? &best : nullptr);
        if (c && (!any || c->key() < best.key())) best = *c;  // strict: the first (least pm, pn) wins ties
        any = true;
      }
    }
  }
  s.grid = best.grid;
  s.idle_ranks = best.idle;
  s.block_m = ceil_div(m, s.grid.pm), s.block_n = ceil_div(n, s.grid.pn), s.block_k = ceil_div(k, s.grid.pk);
  s.slice_k = ceil_div(s.block_k, s.grid.rounds);
  s.memory_used_words = words_needed(s.block_m, s.block_n, s.slice_k, MemorySplit::Optimal, s.grid.rounds > 1 ? 2 : 1);
  const double dominator = static_cast<double>(s.block_m) * static_cast<double>(s.block_k) +
                           static_cast<double>(s.block_n) * static_cast<double>(s.block_k) +
                           static_cast<double>(s.block_m) * static_cast<double>(s.block_n);
  s.stretch = dominator / s.bound_words;
  if (!best.fits && best.rounds_needed > 0) {
    s.reason = reason_text(ReasonId::cosma_no_grid_rounds, tcert::kMaxCosmaRounds, s.grid.pm, s.grid.pn, s.grid.pk,
                           best.rounds_needed, s.slice_k);
    return s;
  }
  if (!best.fits) {
    s.reason = reason_text(ReasonId::cosma_no_grid_fits, s.grid.pm, s.grid.pn, s.grid.pk, s.block_m, s.block_n,
                           best.need_words, split == MemorySplit::Thirds ? " (3 x the largest, split thirds)" : "", S);
    return s;
  }
  s.feasible = true;
  s.max_recv_words = best.recv;
  s.max_sent_words = best.sent;
  return s;
}

CosmaRankWords cosma_rank_words(const CosmaGrid& g, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t rank) {
  CosmaRankWords w;
  if (rank >= g.used()) return w;  // idle
  const i64 x = rank / (g.pn * g.pk), y = rank / g.pk % g.pn, z = rank % g.pk;
  const i64 Ix = piece(m, g.pm, x), Jy = piece(n, g.pn, y), Kz = piece(k, g.pk, z);
  auto own = [&](i64 kj) { return static_cast<u64>(piece(Ix * kj, g.pn, y) + piece(Jy * kj, g.pm, x)); };
  for (auto [kj, count] : balanced_sizes(Kz, g.rounds)) w.owned += static_cast<u64>(count) * own(kj);
  u64 resident = 0;  // rounds j < b stay in the slice buffers
  for (i64 j = 0; j < std::min(g.buffers(), g.rounds); ++j) resident += own(piece(Kz, g.rounds, j));
  w.read = w.owned - resident;  // streamed from the local disk
  // Streamed rounds j = b … t−1 each read one request per operand with a non-empty piece; round
  // j is ⌊Kz/t⌋ + 1 columns wide for j < Kz mod t, else ⌊Kz/t⌋ (balanced_sizes()), so the rounds
  // are counted per width, not one by one (t may be millions).
  auto requests = [&](i64 kj) {
    return static_cast<u64>((piece(Ix * kj, g.pn, y) > 0 ? 1 : 0) + (piece(Jy * kj, g.pm, x) > 0 ? 1 : 0));
  };
  const i64 first = std::min<i64>(g.buffers(), g.rounds), longer = Kz % g.rounds;
  const i64 wide = std::max<i64>(0, longer - first), narrow = g.rounds - first - wide;
  w.requests =
      static_cast<u64>(wide) * requests(Kz / g.rounds + 1) + static_cast<u64>(narrow) * requests(Kz / g.rounds);
  w.sent = gathered(Ix, Kz, g.rounds, g.pn, y, true) + gathered(Jy, Kz, g.rounds, g.pm, x, true) +
           reduce_scatter(Ix * Jy, g.pk, z, true);
  w.recv = gathered(Ix, Kz, g.rounds, g.pn, y, false) + gathered(Jy, Kz, g.rounds, g.pm, x, false) +
           reduce_scatter(Ix * Jy, g.pk, z, false);
  w.result = static_cast<u64>(piece(Ix * Jy, g.pk, z));  // kept in memory for stage 3
  return w;
}

PlanVolumes cosma_volumes(const CosmaGrid& g, std::int64_t m, std::int64_t n, std::int64_t k, const Machine& machine,
                          std::int64_t first_rank, std::int64_t end_rank) {
  PlanVolumes out;
  for (i64 rank = first_rank; rank < end_rank; ++rank) {
    const CosmaRankWords w = cosma_rank_words(g, m, n, k, rank);
    std::pair<u64, u64> apart{0, 0};  // each ring sends to the next of its ranks, receives from the previous
    if (rank < g.used()) {
      const i64 x = rank / (g.pn * g.pk), y = rank / g.pk % g.pn, z = rank % g.pk;
      auto at = [&](i64 xx, i64 yy, i64 zz) { return xx * g.pn * g.pk + yy * g.pk + zz; };
      const i64 Ix = piece(m, g.pm, x), Jy = piece(n, g.pn, y), Kz = piece(k, g.pk, z);
      auto ring = [&](i64 next, i64 previous, u64 sent, u64 recv) {
        if (machine.apart(rank, next)) apart.first += sent;
        if (machine.apart(rank, previous)) apart.second += recv;
      };
      ring(at(x, (y + 1) % g.pn, z), at(x, (y + g.pn - 1) % g.pn, z), gathered(Ix, Kz, g.rounds, g.pn, y, true),
           gathered(Ix, Kz, g.rounds, g.pn, y, false));  // A among (x, ·, z)
      ring(at((x + 1) % g.pm, y, z), at((x + g.pm - 1) % g.pm, y, z), gathered(Jy, Kz, g.rounds, g.pm, x, true),
           gathered(Jy, Kz, g.rounds, g.pm, x, false));  // B among (·, y, z)
      ring(at(x, y, (z + 1) % g.pk), at(x, y, (z + g.pk - 1) % g.pk), reduce_scatter(Ix * Jy, g.pk, z, true),
           reduce_scatter(Ix * Jy, g.pk, z, false));  // C among (x, y, ·)
    }
    append_rank(out, 1.0, machine, w.read, w.write, w.sent, w.recv, apart);
  }
  return out;
}

}  // namespace tcec::costmodel
