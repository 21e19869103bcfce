// runtime/spec/tbs_spec.h — the part of a GemmSpec that TbsGemm adds: the triangle blocks of a
// symmetric contraction C(I,J) = alpha·A(I,K)·A(J,K)ᵀ (Beaumont et al., SPAA'22, §5.1 TBS,
// Algorithm 4, tiled version §5.1.4), each dealt to one rank; and its checks, buffers and trace
// names (tbs_spec.cpp, no MPI). Units: elements unless a name says bytes.
//
// THE SCHEDULE (costmodel/methods/tbs/family.h builds it; the runtime runs it as written):
//   rows of C are flat I indices (row-major over the I group, last index fastest); I and J
//   have the same extents, and A and B are the same tensor with I and J at the same stored
//   positions (GemmSpec B == A), so C(i,j) = C(j,i).
//   Rank q runs the blocks with rank == q, in spec order. For one block with ranges
//   R_0 .. R_{k-1} (R_u = [starts[u], starts[u] + lengths[u]), disjoint):
//     1. C block := 0: the tiles C[R_u, R_v] for u > v (lengths[u] x lengths[v], row-major,
//        in the order (1,0), (2,0), (2,1), (3,0), ...), and when `diagonal` then the tiles
//        C[R_u, R_u] (lengths[u]^2, after the off-diagonal ones, u = 0, 1, ...).
//     2. for K columns [k0, k0 + kc), k0 = 0, chunk, 2·chunk, ... (kc = min(chunk, |K| - k0)):
//          read the A panel A[R_0 ∪ … ∪ R_{k-1}, k0 .. k0+kc) straight from A's tensor (its
//          file in the store or the input; Run::input), row by row (u, then rows of R_u in
//          order, then the kc columns in order): 8 bytes of disk read per element, and the
//          disk requests of that pass counted by one RunCounter (runs of adjacent linear
//          indices of the tensor), added when the panel is in;
//          C[R_u,R_v] += alpha · A_u · A_vᵀ (cblas_dgemm) for u > v;
//          when `diagonal`, lower triangle of C[R_u,R_u] += alpha · A_u · A_uᵀ (cblas_dsyrk).
//     3. write into the result's new version in the store (direct, as GemmSpec::direct_C):
//          for u > v: the tile C[R_u,R_v] (rows r of R_u in order, columns c of R_v in order),
//          then its mirror C[R_v,R_u] (rows c of R_v, columns r of R_u) with the same values
//          transposed; when `diagonal`, every C[R_u,R_u] as a full square (upper from lower);
//          8 bytes of disk write per element, and each of those passes (one tile, one mirror,
//          one diagonal square) counts its runs with its own RunCounter.
//   A `stream` block (for a short K, where holding rows of A whole beats triangles: a resident
//   panel against the rows below it, streamed) instead:
//     1. reads the panel A[R_0, all K columns] into the A panel buffer (one pass, one RunCounter,
//        as above with kc = |K|);
//     2. for u = 1 .. k-1 in order: reads A[R_u, all K columns] after it in the buffer (one pass,
//        its own RunCounter); C tile := alpha · A_u · A_0ᵀ (lengths[u] x lengths[0], row-major,
//        at the start of the C block; cblas_dgemm); writes the tile C[R_u, R_0], then its mirror
//        C[R_0, R_u], as in 3. above.
//     It computes only C[R_u, R_0], u >= 1 (never `diagonal`); ranges ascend, so R_u lies below
//     R_0. Buffers: (lengths[0] + max_u lengths[u]) · |K| <= panel_rows · chunk and
//     lengths[0] · max_u lengths[u] <= block_elements.
//   No network. The blocks of all ranks cover each (i, j) with i >= j exactly once.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tcert {

struct GemmSpec;
struct MemoryPart;

/// One triangle block TB(R_0 ∪ … ∪ R_{k-1}) of the family (see THE SCHEDULE above).
struct TbsBlock {
  std::int64_t rank = 0;                      ///< the rank that computes it
  bool diagonal = false;                      ///< also the lower triangles of C[R_u, R_u]
  std::vector<std::int64_t> starts, lengths;  ///< R_u = [starts[u], starts[u] + lengths[u]), flat rows of C
  /// R_0 resident, R_1 … streamed past it: only C[R_u, R_0] (see THE SCHEDULE).
  bool stream = false;
};

/// A tbs plan's part of the spec (GemmSpec::method), run by TbsGemm (tbs.h).
struct TbsSpec {
  std::vector<TbsBlock> blocks;  ///< every rank's, in the order each rank runs its own
  std::int64_t chunk = 1;        ///< K columns per A panel
  /// The A panel buffer holds panel_rows × chunk elements: at least the largest Σ lengths over
  /// the triangle blocks times chunk, and (lengths[0] + max lengths[u]) · |K| of a stream block;
  /// the C block buffer block_elements: the largest C block (a stream block: its largest tile).
  std::int64_t panel_rows = 0, block_elements = 0;
};

/// Throws Error when a block's rank is outside [0, ranks), its ranges leave [0, |I|) or overlap
/// each other, a stream block is diagonal, has fewer than 2 ranges or its ranges do not ascend,
/// or the blocks' pairs (i >= j) do not cover the lower triangle exactly once ("invalid tbs
/// blocks: …"), when panel_rows, block_elements or chunk do not hold the largest block (a stream
/// block: see THE SCHEDULE's buffers), when A and B are not the same tensor at the same
/// positions or |I| != |J| ("tbs needs a symmetric contraction: …"), or when the spec adds to
/// C, takes or keeps a tensor ("tbs reads A from its tensor and writes C into its file; …").
void check_method(const TbsSpec& part, const GemmSpec& spec, std::int64_t ranks);
/// The C block (block_elements) and the A panel (panel_rows × chunk), 8 bytes each.
std::vector<MemoryPart> method_buffers(const TbsSpec& part, const GemmSpec& spec);
/// ("inside", "tbs") for the trace.
std::pair<const char*, const char*> trace_names(const TbsSpec& part);

}  // namespace tcert
