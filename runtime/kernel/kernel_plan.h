// runtime/kernel/kernel_plan.h — (private) how contract() runs one contraction: which operand shares
// C's rows, the orders inside the index groups, which tensors are permuted, and the chunks.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernel/kernel.h"

namespace tcert::detail {

/// Every GEMM index gets an id: I = 0..nI-1, J = nI..nI+nJ-1, K after. dims_X lists the ids of
/// X's stored dimensions, outermost first.
struct Indexing {
  std::vector<std::int64_t> extent;  ///< by id (elements)
  std::vector<int> dims_A, dims_B, dims_C, I, J, K;
};

/// The ids and stored orders of a (validated) layout.
Indexing index_layout(const ContractionLayout& layout);

/// Product of extent[id] over `ids` (1 when empty).
std::int64_t product(const std::vector<std::int64_t>& extent, const std::vector<int>& ids);

/// Element stride, by id, of each id of a dense row-major tensor stored in the id order `dims`
/// (extent[id] elements along id); ids not in dims get 0.
std::vector<std::int64_t> strides_by_id(const std::vector<std::int64_t>& extent, const std::vector<int>& dims);

/// v's storage, grown to at least `elements` doubles (kept for later calls).
double* workspace_buffer(Workspace::Buffer& v, std::int64_t elements);

/// How a tensor enters dgemm. `order`: its ids as dgemm reads them: [outer group, K] when
/// outer_first, else [K, outer group]; for C, [rows, columns]. `copy`: order differs from `stored`,
/// so the tensor is permuted (in chunks) through the workspace.
struct Operand {
  std::vector<int> stored, order;
  bool outer_first = true;
  bool copy = false;
};

/// C(R,S) = X(R,K)·Y(S,K)ᵀ, where (X, R, Y, S) is (A, I, B, J) or, with C computed as [J,I],
/// (B, J, A, I). The work is split into chunks: a box of the row indices R (tile[id] elements
/// along each, the extent when whole) times a box of S. X is permuted one R box at a time, C one
/// R×S block at a time, Y once. A box of an operand used in place (not copied) is a contiguous
/// range of rows (leading indices single, one index tiled, the rest whole).
struct Plan {
  Operand X, Y, C;
  bool x_is_A = true;
  std::vector<int> R, S;
  std::vector<std::int64_t> tile;  ///< by id, for the ids of R and S
  double cost = 0;                 ///< modelled seconds: dgemm plus permutations
  /// GETT (kernel_gett.h) instead of TTGT: R, S and K (in this order) index X, Y and C in place;
  /// Operand::copy and tile are unused.
  bool gett = false;
  std::vector<int> K;
  /// GETT with R's rows in groups of C's rows (GettTables::c_groups).
  bool c_groups = false;
};

/// The cheapest plan: I in C's or A's order, J in C's or B's order, K in A's or B's order, and,
/// when C is permuted, rows R = I or J; chunks sized by ws.chunk_bytes and ws.min_chunk_side.
/// Or the GETT plan, where the CPU has AVX-512 and it is cheaper (ws.scheme may force either).
/// `c_written_once` (beta == 0): C is not read, so GETT may stream it past the caches.
Plan choose_plan(const Indexing& x, const Workspace& ws, bool c_written_once);

}  // namespace tcert::detail
