// runtime/kernel/kernel_gett.h — (private) GETT: a GEMM whose packing reads the operands straight
// from their stored, permuted layouts and whose micro-tiles go straight into C, so that no
// tensor is transposed through memory (Springer & Bientinesi 2016, "GETT"; the scatter tables of
// Matthews 2018, TBLIS; the blocking of Goto & van de Geijn 2008 and BLIS: a K×N block of Y
// packed for the L3 cache, an M×K block of X for L2, a 16×14 register tile of C).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernel/kernel.h"

namespace tcert::detail {

/// The tables of C(R,S) = X(R,K)·Y(S,K)ᵀ over the ids `rows`, `cols` and `k` (each group
/// enumerated as an odometer, its last id fastest), for dense row-major tensors stored in the id
/// orders dims_x, dims_y and dims_c, with extent[id] elements along id; x_chain where it applies.
/// `c_groups` where gett_groups() holds (else ignored): the rows, given as [others, X's innermost,
/// C's innermost], are enumerated as GettTables::c_groups says.
GettTables gett_tables(const std::vector<std::int64_t>& extent, const std::vector<int>& rows,
                       const std::vector<int>& cols, const std::vector<int>& k, const std::vector<int>& dims_x,
                       const std::vector<int>& dims_y, const std::vector<int>& dims_c, bool c_groups = false);
/// gett_tables() into `t`, whose vectors keep their memory from one call to the next
/// (Workspace::gett_tables: a product with a long |I|, |J| or |K| then allocates nothing).
void fill_gett_tables(GettTables& t, const std::vector<std::int64_t>& extent, const std::vector<int>& rows,
                      const std::vector<int>& cols, const std::vector<int>& k, const std::vector<int>& dims_x,
                      const std::vector<int>& dims_y, const std::vector<int>& dims_c, bool c_groups = false);

/// Whether rows `rows` can be taken in groups of C's rows (GettTables::c_groups): with AVX-512,
/// the last two row ids are X's innermost index and C's innermost index (X stored in the id order
/// dims_x, C in dims_c), different, each a multiple of 8 elements long.
bool gett_groups(const std::vector<std::int64_t>& extent, const std::vector<int>& rows, const std::vector<int>& dims_x,
                 const std::vector<int>& dims_c);

/// The register tile of gett(): kGettMr rows (two AVX-512 vectors) by kGettNr columns of C.
inline constexpr std::int64_t kGettMr = 16, kGettNr = 14;

/// gett()'s cache blocks (elements): ws.gett_mc rows (rounded up to kGettMr), ws.gett_kc and
/// ws.gett_nc columns (rounded up to kGettNr); with chains (x_chain > 0, GettTables) a block
/// holds whole chains of 8·x_chain rows, and K shrinks to keep mc·kc about the same; packed
/// k-outer (`k_outer`, GettTables::x_chain_k_outer), up to 128 rows per value of the last row
/// index (1 KiB runs of X) in up to 4x mc·kc, fewer (8 at least) where all of `K` would not
/// fit one block with 128.
struct GettBlocks {
  std::int64_t mc, kc, nc;
};
GettBlocks gett_blocks(const Workspace& ws, std::int64_t x_chain, bool k_outer, std::int64_t K);

/// Whether chains pack k-outer: the innermost id of `k` steps 8192 elements (64 KiB) or more in
/// X stored in the id order dims_x, with extent[id] elements along id.
bool gett_chain_k_outer(const std::vector<std::int64_t>& extent, const std::vector<int>& k,
                        const std::vector<int>& dims_x);

/// The K step (elements) at which gett() reads a K block's panels of X straight from X (direct
/// panels, no packing): X's offsets col_x[0..kc) of the block advance by one step, and where more
/// than 28 columns (`cols`, of the N block) reuse each panel, the step is not a multiple of 256
/// elements (2 KiB, whose lines would crowd into a few of L2's sets). 0 when neither holds or
/// without AVX-512 (the panels are packed); 1 when kc is 1.
std::int64_t gett_direct_step(const std::int64_t* col_x, std::int64_t kc, std::int64_t cols);

/// Whether gett() reads X's panels straight from X (gett_direct_step()) for rows `rows` and K
/// ids `k` of X stored in the id order dims_x (extent[id] elements along id), with cache blocks
/// `blocks` and N columns: the rows are in groups of C's rows (`c_groups`, gett_groups()), or X's
/// innermost index is the last row index, a multiple of 16 elements long (every panel of kGettMr
/// rows a run) or of 8 and at least 64 (at most one panel in 4 straddles two runs and is
/// packed); and the first K block has a direct step.
bool gett_direct(const std::vector<std::int64_t>& extent, const std::vector<int>& rows, const std::vector<int>& k,
                 const std::vector<int>& dims_x, const GettBlocks& blocks, std::int64_t N, bool c_groups = false);

/// Whether gett() stores C past the caches: C (M×N elements) is only written (beta == 0), K
/// fits one K block of `blocks`, and C is larger than ws.gett_stream_bytes, so it would not stay
/// in cache anyway. The AVX-512 path only (gett_vectorized()).
bool gett_streams(const Workspace& ws, const GettBlocks& blocks, std::int64_t M, std::int64_t N, std::int64_t K,
                  bool c_written_once);

/// The x_chain of gett_tables() for rows `rows` of X stored in the id order dims_x (0: none).
std::int64_t gett_chain(const std::vector<std::int64_t>& extent, const std::vector<int>& rows,
                        const std::vector<int>& dims_x);

/// C = alpha·X·Yᵀ + beta·C over the tables (beta == 0: C is only written). Blocks of
/// gett_blocks(ws, t.x_chain, t.x_chain_k_outer, K) rows × K × columns, packed into ws.a (X)
/// and ws.b (Y). With AVX-512, a panel of X whose rows are one or two runs of 8 in memory is
/// read straight from X where the K block has a direct step (gett_direct_step()), and not
/// packed; where such a step is a multiple of 64 elements and the N block has two column tiles,
/// an 8-row register tile computes both at once, loading X once; with t.c_groups, blocks hold
/// multiples of 64 rows and every 4 panels' tiles go to C through register transposes.
/// Otherwise 8 rows of X or Y that are consecutive in memory are packed with vector copies, 8
/// rows × 8 consecutive k with a register transpose, chains of X's rows (t.x_chain: blocks then
/// hold whole chains) with register transposes, anything else element by element. A register
/// tile whose rows are a run in C is written from the registers, others through a tile buffer,
/// 8 consecutive rows of C with vector instructions, stored past the caches where
/// gett_streams(). Requires K ≥ 1. `t` may be ws.gett_tables: gett() leaves the tables as they are.
void gett(const GettTables& t, double alpha, const double* X, const double* Y, double beta, double* C, Workspace& ws);

/// True when gett() runs its AVX-512 micro-kernel; otherwise it runs a portable one (correct,
/// but slow: contract() then only uses GETT when a workspace asks for it).
bool gett_vectorized();

}  // namespace tcert::detail
