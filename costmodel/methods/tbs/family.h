// costmodel/methods/tbs/family.h — (private) the triangle-block family of a symmetric
// contraction C(I,J) = alpha·A(I,K)·A(J,K)ᵀ: TBS of Beaumont et al. (SPAA'22, seed 001) §5.1,
// tiled (§5.1.4) with uneven tiles, its blocks dealt to the ranks. The runtime runs the blocks
// exactly as listed (runtime/spec/tbs_spec.h, THE SCHEDULE), so every volume is counted from them.
// Units: elements (rows of C are flat I indices; |I| = |J| = n, |K| = m).
#pragma once

#include <cstdint>
#include <vector>

#include "costmodel/schedules.h"

namespace tcec::costmodel {

// TbsBlock and TbsSchedule: costmodel/schedules.h.

/// Streaming, for a short K: a triangle block reads about √2/√S rows of A per pair of C it
/// computes, whatever |K|; a panel of R ≈ S/|K| rows held whole (all K columns) against rows
/// streamed past it computes R pairs per row read, more when |K| < √(S/2). C's rows in panels
/// of `panel` rows; each panel meets the rows below it, streamed in groups of at most `group`
/// rows (one stream block with `columns` = |K|), then its own triangle by the family.
/// panel = 0: triangles only.
struct TbsStream {
  std::int64_t panel = 0, group = 0, columns = 0;
};

/// The TBS family (Algorithm 4, tiled) of rows [0, n):
///  * when the whole lower triangle fits (a diagonal block of q even tiles, (n² + Σ h²)/2 <=
///    block_words for the fewest such tiles q): one leaf block, which reads each row once;
///  * else k >= 2 zones of c tiles each (T = c·k tiles, heights ⌈n/T⌉ first, then ⌊n/T⌋) with
///    c >= k − 1 free of prime factors <= k − 2 (Lemma 5.5: the cyclic indexing family
///    f_c^{i,j}(0) = j, f_c^{i,j}(u) = i + j(u − 1) mod c is then valid) and k(k−1)/2·⌈n/T⌉²
///    <= block_words; the c² blocks B_{i,j} = TB({u·c + f_c^{i,j}(u)}) cover the square zones,
///    each tile lying in c of them (so they read c·n rows), then each diagonal zone recursively;
///  * or, as Algorithm 4 does, such a level over the first c·k·b rows only (full tiles of the
///    largest height b that fits, c the largest valid zone count below the one that covers all
///    rows), then the remaining strip against them in rectangles (two ranges: g groups of the
///    strip, each against the first rows in groups of at most ⌊block_words / group⌋, g chosen
///    for the fewest rows read; OOC_SYRK's part in the paper), then the strip's own triangle
///    recursively. The rounding of c to a valid zone count costs less this way for some n.
///    k, c and the variant are chosen for the fewest rows read over the whole recursion (k <= 64).
/// With `stream`, the panels first (TbsStream), each panel's triangle by the family above.
/// The blocks are dealt to the ranks by work (pairs() per K column), largest first, each to
/// the least loaded rank (the lowest on ties); each rank keeps the family's order.
/// Returns no blocks when no family fits block_words (only for block_words below about n).
/// Precondition: n >= 1, processors >= 1.
TbsSchedule tbs_schedule(std::int64_t n, std::int64_t block_words, std::int64_t processors,
                         const TbsStream& stream = {});

/// The A rows the family of an n-row problem reads (Σ rows() over blocks) without building it,
/// the same number tbs_schedule() gives; -1 when no family fits block_words.
std::int64_t tbs_rows_read(std::int64_t n, std::int64_t block_words);

}  // namespace tcec::costmodel
