// runtime/spec/sfc_spec.h — the part of a GemmSpec that SfcGemm adds: C's tile grid walked along a
// generalized Hilbert curve (Georganas et al., seed 002; the curve of Červený's "gilbert"),
// cut into one contiguous segment per rank, each rank keeping an LRU cache of A and B panels;
// and its checks, buffers and trace names (sfc_spec.cpp, no MPI). Units: elements unless a
// name says bytes.
//
// THE SCHEDULE (costmodel/methods/sfc/ builds it; the runtime runs it as written):
//   rows of C are flat I indices, columns flat J, K flat (row-major over each group, last index
//   fastest). I is cut into tiles_I balanced ranges (the first |I| mod tiles_I one longer), J
//   into tiles_J. Tile t = ti·tiles_J + tj. The P ranks form c = `layers` layers of g = P/c
//   ranks: rank r is in layer x = r / g at position q = r mod g; layer x owns K's balanced range
//   x of c (columns [k0, k0 + kx), the first |K| mod c one longer), cut into chunks of `chunk`
//   columns (the last shorter). Rank r walks order[segment[q]] … order[segment[q+1] − 1] (its
//   segment of the curve; no tile twice over a layer's ranks, every tile once), so the c ranks
//   at position q walk the same tiles in the same order. For the w-th tile (ti, tj) of its walk
//   (w = 0, 1, … within the rank), of h rows and wd columns:
//     1. C tile := 0;
//     2. for the layer's K chunks in order, forward when w is even, backward when w is odd (so
//        that the chunks the last tile used are the first this one needs):
//          the A panel (ti, chunk) = A[I_ti, chunk] and the B panel (tj, chunk) = B[J_tj, chunk],
//          A's first: each is looked up in the rank's cache of `slots` panel slots; a panel in
//          the cache is used from it and becomes the most recently used; a missing one is read
//          into the least recently used slot (a free one first, lowest index first), straight
//          from the operand's tensor (Run::input), rows in order then the chunk's columns in
//          order: 8 bytes of disk read per element, one RunCounter per panel read; it becomes
//          the most recently used. (A and B panels share the slots; a panel is known by
//          (operand, tile, chunk).) Then C tile += alpha · A panel · B panelᵀ (cblas_dgemm).
//     3. the rank's piece of the tile: rows [piece_start(h, c, x), + piece(h, c, x)) (balanced
//        over the layers; all of the tile when c = 1). When c > 1 the c ranks at position q
//        reduce the tile (comm.h ring_reduce_scatter over their communicator, ordered by layer,
//        pieces in row order, through the reduction scratch: sent = tile − own piece, received
//        = tile − piece of layer x − 1 mod c, 8 bytes per element), so the piece holds the sum
//        of the c partial tiles;
//     4. when GemmSpec::accumulate, C's current values of the piece are added to it (read from
//        C's current version, rows in order, columns in order: 8 bytes of disk read per element,
//        one RunCounter for the pass);
//     5. the piece is written into the result's new version in the store (direct, as
//        GemmSpec::direct_C), rows in order then columns: 8 bytes of disk write per element, one
//        RunCounter for the pass. (An empty piece, h < c, reads and writes nothing.)
//   Buffers: the C tile (⌈|I|/tiles_I⌉ · ⌈|J|/tiles_J⌉), `slots` panel slots of
//   max(⌈|I|/tiles_I⌉, ⌈|J|/tiles_J⌉) · chunk elements each, and when c > 1 the reduction
//   scratch of one slot's elements.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tcert {

struct GemmSpec;
struct MemoryPart;

/// An sfc plan's part of the spec (GemmSpec::method), run by SfcGemm (sfc.h).
struct SfcSpec {
  std::int64_t tiles_I = 1, tiles_J = 1;  ///< C's tile grid
  std::int64_t chunk = 1;                 ///< K columns per panel
  std::int64_t slots = 2;                 ///< panel slots of the LRU cache (at least 2)
  /// c, the replication along K (2.5D): layers of P/c ranks, each over its share of K, their
  /// partial tiles reduced after each tile (THE SCHEDULE). c divides P; 1: none.
  std::int64_t layers = 1;
  /// The tiles in curve order (t = ti·tiles_J + tj), and where each position's segment starts:
  /// the rank at position q of its layer walks order[segment[q]] .. order[segment[q+1] - 1];
  /// segment has P/c + 1 entries.
  std::vector<std::int64_t> order, segment;
};

/// Throws Error when layers is below 1, above |K| or does not divide `ranks`, the grid exceeds
/// the extents, chunk exceeds ⌈|K|/layers⌉, either is below 1, slots < 2, `order` is not a
/// permutation of the tiles, or `segment` does not rise from 0 to the tile count over
/// ranks/layers + 1 entries ("invalid sfc schedule: …"), or when the spec takes or keeps a tensor
/// ("sfc reads its operands from their tensors and writes C into its file; it takes and keeps
/// nothing").
void check_method(const SfcSpec& part, const GemmSpec& spec, std::int64_t ranks);
/// The C tile, the panel slots and (layers > 1) the reduction scratch (see THE SCHEDULE), 8
/// bytes per element.
std::vector<MemoryPart> method_buffers(const SfcSpec& part, const GemmSpec& spec);
/// ("inside", "sfc") for the trace.
std::pair<const char*, const char*> trace_names(const SfcSpec& part);

}  // namespace tcert
