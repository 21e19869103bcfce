// costmodel/methods/cosma/cosma.h — (private) COSMA as a fourth parallel algorithm: the ideal local
// domain, the fitted processor grid, the rounds, and the exact per-rank volumes of the
// schedule below, for the macro-index GEMM C(I,J) += A(I,K)·B(J,K) with m = |I|, n = |J|,
// k = |K| on P ranks of S words each.
//
// Source: Kwasniewski et al., "Red-blue pebbling revisited: near optimal parallel
// matrix-matrix multiplication" (COSMA, SC'19; seed 000): Eq. 32 (local domain a×a×b),
// Eq. 33 / Theorem 2 (bound), Algorithm 1 (t rounds of DistrData + Multiply, then Reduce),
// §7.1 (grid fitting with idle ranks), §7.2 (broadcast along i, j; reduce along k), §7.6
// (blocked layout). Units: extents, pieces, S and every *_words in ELEMENTS (words);
// PlanVolumes in BYTES (elements × element size); times in seconds.
//
// Reader's map:
//   default_max_idle_ranks(), cosma_bound_words(), cosma_min_rounds()   closed forms
//   CosmaStrategy, cosma_strategy()     Eq. 32 + §7.1: the grid and rounds of one problem
//   CosmaRankWords, cosma_rank_words()  the schedule's exact elements of one rank
//   cosma_volumes()                     the same for all ranks, in bytes, with time_s
//   cosma_walk()                        brute force: every ring step of every rank (tests)
//
// THE SCHEDULE (what the runtime implements; grid G = pm × pn × pk, t rounds):
//
//  Ranks. Rank (x,y,z), x < pm, y < pn, z < pk, is number x·pn·pk + y·pk + z; ranks
//  >= pm·pn·pk are idle: they hold no data, read, write, send and receive nothing.
//  Blocks. The flattened macro-index I (indices in group order, the last fastest) is cut into
//  pm balanced ranges, I_x = piece(m, pm, x) elements long (partition.h: the first m mod pm
//  one larger); J into pn ranges J_y, K into pk ranges K_z. Rank (x,y,z) computes the partial
//  C block (x,y) = A(I_x, K_z)·B(J_y, K_z)ᵀ, an I_x × J_y row-major block.
//  Rounds. K_z is cut into t balanced slices, slice j of k_j = piece(K_z, t, j) columns.
//  The A slice (x,z,j) is the I_x × k_j row-major array A(I_x, slice j); the B slice (y,z,j)
//  is J_y × k_j. C block + A slice + B slice must fit S (t is the least that fits).
//  Initial layout (§7.6, blocked): the A slice (x,z,j), as I_x·k_j elements in row-major
//  order, is split into pn balanced contiguous pieces, piece y' = piece(I_x·k_j, pn, y')
//  elements, held on disk by rank (x,y',z); the B slice (y,z,j) into pm pieces held by
//  (x',y,z); the C block (x,y), I_x·J_y elements row-major, into pk balanced contiguous
//  pieces, piece z' held (and finally owned) by rank (x,y,z'). Out of core only where the
//  memory forces it: the load phase puts a rank's own pieces of the first b rounds (b =
//  CosmaGrid::buffers(): 1 slice buffer of A and of B for t = 1, 2 for t > 1) straight into
//  its slice buffers, and writes those of rounds b..t-1 to its local disk, in order (one
//  file of A, one of B).
//  Per round j = 0..t-1 (Algorithm 1 lines 8-11):
//   1. j >= b: read its own A piece and B piece of slice j from disk (into the buffer round
//      j−2 has finished with); j < b: they are in memory already;
//   2. ring all-gather of the A slice (x,·,z) among the pn ranks (x,y',z), ring position y'
//      (runtime/comm/comm.h ring_allgatherv): pn−1 steps; at step s rank y' sends piece
//      (y'−s) mod pn to (y'+1) mod pn and receives piece (y'−s−1) mod pn from (y'−1) mod pn;
//   3. the same for the B slice among the pm ranks (x',y,z), ring position x';
//   4. C block += A slice · B sliceᵀ (the C block stays in memory over all rounds).
//  Then (Algorithm 1 line 12) ring reduce-scatter of the C block among the pk ranks
//  (x,y,z'), ring position z' (runtime/comm/comm.h ring_reduce_scatter): pk−1 steps; at step s
//  rank z' sends its partial sum of piece (z'−s−1) mod pk to (z'+1) mod pk, receives piece
//  (z'−s−2) mod pk from (z'−1) mod pk and adds its own partial; it ends with the full sum of
//  piece z'. That piece stays in memory: stage 3 writes it to the result's file, and the
//  compute stage writes nothing to disk. (C's old values, when the statement adds to an
//  earlier result, enter before the rounds: rank (x,y,0) starts its C block from them, the
//  others from zero — a redistribution, stage 1, so the compute stage never reads C.)
//
//  Exact elements of rank (x,y,z) (T = a collective's total, q its ring size, r the position):
//    all-gather:      sent = T − piece(T, q, (r+1) mod q),  recv = T − piece(T, q, r)
//    reduce-scatter:  sent = T − piece(T, q, r),            recv = T − piece(T, q, (r−1) mod q)
//    (q = 1: nothing.) Summed over the rounds for A (T = I_x·k_j, q = pn, r = y) and B
//    (T = J_y·k_j, q = pm, r = x), once for C (T = I_x·J_y, q = pk, r = z).
//    disk read  = Σ_{j>=b} piece(I_x·k_j, pn, y) + Σ_{j>=b} piece(J_y·k_j, pm, x)
//    disk write = 0 (stage 1 writes the pieces of rounds >= b; stage 3 writes piece(I_x·J_y, pk, z))
//  Why per round, in memory: the all-gathers summed over the rounds move exactly the bytes of
//  one all-gather of the whole block (the pieces add up), while a disk-to-disk gather of the
//  whole A and B blocks before computing would add disk writes of the received parts and
//  re-reads of every sent and gathered element (for examples/matmul.tce on its 64 MB machine:
//  224 MB read + 96 MB written per rank instead of 96 MB + 32 MB).
//  Memory per rank (words): I_x·J_y + b·(I_x + J_y)·⌈K_z/t⌉ (Optimal split), or each of the
//  three <= S/3 (Thirds), with b = 1 slice buffer of A and of B for one round and b = 2 for
//  several (double buffering, §7.3: round j+1's slices arrive while round j's are multiplied).
//  The reduce-scatter's receive scratch passes through the (then free) slice buffers.
#pragma once

#include <cstdint>
#include <string>

#include "costmodel/plan.h"

namespace tcec::costmodel {

/// δ of §7.1, the most idle ranks the grid fitting may leave: 3% of P, at least 1 (so that
/// small machines can drop one rank when that gives a better grid), but fewer than half of
/// the ranks: max(1, ⌊0.03·P⌋) capped at ⌊(P−1)/2⌋ (P = 1, 2: 0; P = 3 … 66: 1). Without the
/// cap P = 2 would always run on one rank (no communication at all). Precondition: P >= 1.
std::int64_t default_max_idle_ranks(std::int64_t processors);

/// COSMA's per-rank I/O bound (Eq. 33, Theorem 2), in words: 2mnk/(P·a) + a² with Eq. 32's
/// a = min{√S, (mnk/P)^{1/3}}; that is 2mnk/(P√S) + S when √S < (mnk/P)^{1/3} and
/// 3(mnk/P)^{2/3} otherwise (S = +inf included). The seed prints Eq. 33 as the min of the
/// two terms, but its derivation (Q >= a²b/ρ at the a, b of Eq. 32) gives this value, which
/// is the larger of the two: 2V/a + a² decreases in a up to a = V^{1/3}, so with the min a
/// memory-limited bound would fall back to the unlimited one. It counts every element of A,
/// B and C a rank's local domain touches (its dominator set), initially local or not.
double cosma_bound_words(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t processors, double memory_words);

/// Least rounds t such that a local domain I_x × J_y × K_z fits S words: 1 when I_x·J_y +
/// (I_x + J_y)·K_z <= S (Optimal; Thirds: each of the three <= S/3); otherwise the least t with
/// I_x·J_y + 2·(I_x + J_y)·⌈K_z/t⌉ <= S (two slice buffers each: double buffering; Thirds:
/// I_x·J_y and 2·max(I_x, J_y)·⌈K_z/t⌉ <= S/3); 0 when not even t = K_z fits.
std::int64_t cosma_min_rounds(std::int64_t block_m, std::int64_t block_n, std::int64_t block_k, double memory_words,
                              MemorySplit split);

/// The COSMA strategy of one problem on one machine (a value type).
struct CosmaStrategy {
  std::int64_t m = 1, n = 1, k = 1;  ///< |I|, |J|, |K| (elements)
  std::int64_t processors = 1;       ///< P
  double memory_words = 0;           ///< S, words per rank
  std::int64_t max_idle_ranks = 0;   ///< δ
  MemorySplit split = MemorySplit::Optimal;

  /// Eq. 32, real: a = min{√S, (mnk/P)^{1/3}}, b = max{mnk/(PS), (mnk/P)^{1/3}} (elements).
  double ideal_a = 0, ideal_b = 0;
  /// Algorithm 1 line 7: t = ⌈2ab/(S − a²)⌉ of the ideal domain (>= 1); +inf when a = √S
  /// (the ideal C face fills the memory; the fitted t below comes from the actual domain).
  double ideal_rounds = 1;
  double bound_words = 0;  ///< cosma_bound_words(m, n, k, P, S)

  bool feasible = false;
  std::string reason;           ///< why not (infeasible only)
  CosmaGrid grid;               ///< pm × pn × pk and t
  std::int64_t idle_ranks = 0;  ///< P − pm·pn·pk
  /// The fullest rank's (rank 0's) local domain I_0 × J_0 × K_0 = ⌈m/pm⌉ × ⌈n/pn⌉ × ⌈k/pk⌉
  /// and its K columns per round ⌈K_0/t⌉ (elements).
  std::int64_t block_m = 0, block_n = 0, block_k = 0, slice_k = 0;
  double memory_used_words = 0;                          ///< rank 0: C block + A slice + B slice
  std::uint64_t max_recv_words = 0, max_sent_words = 0;  ///< exact, max over ranks
  /// The stretch factor: rank 0's dominator set block_m·block_k + block_n·block_k +
  /// block_m·block_n over bound_words. Every rank receives at most stretch × bound_words
  /// (it receives part of its dominator set, and rank 0's is the largest); >= 1 when feasible.
  double stretch = 0;
};

/// Fits COSMA to a problem (Eq. 32, §7.1). Enumerates every grid pm·pn·pk = p with
/// P − δ <= p <= P and pm <= m, pn <= n, pk <= k (no empty block), and chooses, in order:
///  1. a grid that fits the memory (cosma_min_rounds() > 0 for rank 0's domain);
///  2. the least received words per share of work, R·P/p, where R is the exact per-rank
///     received words (max over ranks): among grids of all P ranks simply the least R; a grid
///     with idle ranks must cut R by more than the factor P/p by which it inflates every
///     rank's share of the multiplications and disk traffic (§7.1's computation-communication
///     trade-off; with R alone a 1-D split of q ranks, whose R is T·(q−1)/q, would always
///     drop a rank, e.g. 1x1x7 instead of 1x1x8 for 2% less communication);
///  3. fewer idle ranks; 4. fewer rounds; 5. the least R; 6. the least sent words;
///  7. the lexicographically least (pm, pn, pk).
/// When no p in [P − δ, P] has a grid with non-empty blocks (a problem smaller than the
/// machine), smaller p are tried.
/// `max_idle_ranks` < 0 means default_max_idle_ranks(P). Infeasible (with reason) when no
/// grid fits the memory. Preconditions: m, n, k, P >= 1; S > 0 (may be +inf).
CosmaStrategy cosma_strategy(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t processors,
                             double memory_words, std::int64_t max_idle_ranks = -1,
                             MemorySplit split = MemorySplit::Optimal);

/// One rank's elements under the schedule above: read, write, sent, recv of the compute
/// stage; `owned` = its own pieces of every A and B slice (stage 1 takes them from the
/// operands' files; `read` of them, those of rounds >= b, it also writes to its disk);
/// `result` = its piece of the C block (stage 3 writes it to the result's file).
struct CosmaRankWords {
  std::uint64_t read = 0, write = 0, sent = 0, recv = 0, owned = 0, result = 0;
  /// Disk requests: one read per non-empty own piece of A and of B in each streamed round.
  std::uint64_t requests = 0;
};
/// Closed form (header comment) for rank `rank` of grid `g`; zeros for idle ranks.
CosmaRankWords cosma_rank_words(const CosmaGrid& g, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t rank);

/// cosma_rank_words() of ranks first_rank … end_rank−1, times the element size (bytes), and
/// time_s = max over those ranks of read/B_dr + write/B_dw + recv/B_c (collective factor 1).
PlanVolumes cosma_volumes(const CosmaGrid& g, std::int64_t m, std::int64_t n, std::int64_t k, const Machine& machine,
                          std::int64_t first_rank, std::int64_t end_rank);

/// The same volumes for all machine.processors ranks, counted by walking the schedule
/// message by message: every round, ring step and rank, each message added to its sender's
/// sent and its receiver's recv, while checking that a rank only forwards pieces it holds and
/// that every all-gather and reduce-scatter completes (TCEC_ASSERT). Independent of the
/// closed form; O(t·P·(pm + pn) + P·pk) messages, for tests and simulate().
PlanVolumes cosma_walk(const CosmaGrid& g, std::int64_t m, std::int64_t n, std::int64_t k, const Machine& machine);

}  // namespace tcec::costmodel
