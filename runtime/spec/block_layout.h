// runtime/spec/block_layout.h — block-sparse tensors as NWChem's TCE stores them, and the block
// products of a contraction over them: the rule the compiler counts with and the runtime runs.
//
// Spin orbitals come in groups of one spin and one irrep (src/tce/tce_tile.F: ordered by spin,
// then irrep); a block holds one group per dimension and no block crosses a group. A tensor
// stores the blocks that conserve spin between its upper and lower halves (Σ m_s equal) and
// whose irreps XOR to its irrep (abelian point groups, irreps 0..7 in Cotton's order as psi4
// numbers them), in one order of each antisymmetric run of dimensions (groups non-decreasing
// along the run; a block of equal groups is stored whole, as the TCE stores a diagonal tile
// block), and in restricted (closed-shell) mode not the all-beta blocks, which are the all-alpha
// ones (TCE_RESTRICTED_4). Stored blocks lie in key order, each row-major, one after another
// (tce_hash.F's sorted keys; TAMM's Distribution_NW offsets by prefix sum).
//
// Reader's map:
//   BlockGroup, BlockSymmetry    a dimension's groups, and a tensor's halves, runs, irrep, mode.
//   BlockLayout                  the stored blocks: keys, offsets, extents; find() and source().
//   BlockProduct, block_products()  C += A·B as the TCE's loops: one dense product per tuple.
// All extents, offsets and counts are elements (doubles), never bytes. No MPI, no file I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tcert {

/// `extent` spin orbitals of one spin (0 alpha, 1 beta) and one irrep (0..7): a whole group of
/// the TCE's order, or one tile of it (a group cut into tiles, as tce_tile.F cuts them by
/// tilesize; a block then holds one tile per dimension).
struct BlockGroup {
  int spin = 0;
  int irrep = 0;
  std::int64_t extent = 0;
};

/// `groups` with each group cut into ceil(extent / tile) tiles of its spin and irrep, their extents
/// as even as possible (the first ones one larger), in order: the TCE's tiling (tce_tile.F) of
/// one range. Throws std::invalid_argument for tile < 1.
std::vector<BlockGroup> tiles_of(const std::vector<BlockGroup>& groups, std::int64_t tile);

/// The symmetry of a block-sparse tensor of rank groups.size().
struct BlockSymmetry {
  /// Per dimension, the groups of its range in the TCE's order (alpha, then beta, each by irrep).
  std::vector<std::vector<BlockGroup>> groups;
  /// The first `upper` dimensions are the upper half; spin is conserved between the halves.
  std::size_t upper = 0;
  /// Antisymmetric runs, as dimension positions in increasing order, each within one half and
  /// over dimensions of the same groups.
  std::vector<std::vector<int>> antisymmetric;
  /// The XOR of a stored block's irreps.
  int irrep = 0;
  /// Closed shell: all-beta blocks equal the all-alpha ones of the same irreps and are not stored.
  bool restricted = false;
};

/// The stored blocks of a tensor, in increasing key order (key[d]: the group of dimension d).
class BlockLayout {
 public:
  /// Throws std::invalid_argument when `upper` exceeds the rank, a run is out of range, not
  /// increasing, crosses the halves or spans dimensions whose groups differ, a group has a
  /// negative extent or an irrep outside 0..7, or (restricted) a beta group has no alpha group
  /// of the same irrep and extent at the same place among that irrep's groups in its dimension.
  explicit BlockLayout(BlockSymmetry symmetry);

  const BlockSymmetry& symmetry() const { return symmetry_; }
  std::size_t rank() const { return symmetry_.groups.size(); }
  /// Number of stored blocks.
  std::size_t blocks() const { return offsets_.size(); }
  /// Stored elements, all blocks.
  std::int64_t elements() const { return elements_; }
  /// Block b's key (b < blocks()).
  std::vector<int> key(std::size_t b) const;
  /// Block b's first element in the tensor's storage.
  std::int64_t offset(std::size_t b) const { return offsets_[b]; }
  /// Block b's extents, one per dimension (row-major within the block).
  std::vector<std::int64_t> extents(std::size_t b) const;
  /// Elements of block b.
  std::int64_t block_elements(std::size_t b) const;
  /// The stored block of exactly this key, by binary search over the sorted keys; nullopt if it
  /// is not stored. Throws std::invalid_argument for a key of the wrong rank or a group out of range.
  std::optional<std::size_t> find(const std::vector<int>& key) const;

  /// Where the block of `key` comes from: block `block` as stored, read as
  /// sign · transpose(stored, perm) (dimension d of the wanted block is dimension perm[d] of the
  /// stored one, numpy's convention), where `key` may have any order along an antisymmetric run
  /// (sign: the parity of the sort, equal groups not swapped) and, restricted, be all beta (read
  /// from the all-alpha block). nullopt for a block that is zero by spin or irrep.
  struct Source {
    std::size_t block = 0;
    std::vector<int> perm;
    double sign = 1;
  };
  std::optional<Source> source(const std::vector<int>& key) const;

  /// Whether a block of this key conserves spin and has the tensor's irrep.
  bool nonzero(const std::vector<int>& key) const;

 private:
  bool stored(const std::vector<int>& key) const;
  BlockSymmetry symmetry_;
  std::vector<int> keys_;                   ///< blocks() · rank(), row-major
  std::vector<std::vector<int>> alpha_of_;  ///< restricted: per dimension, a beta group's alpha group
  std::vector<std::int64_t> offsets_;
  std::int64_t elements_ = 0;
};

/// One dense product of a block-sparse contraction C += alpha · A · B:
/// C block `c` += alpha · factor · A' · B', where A' = source_a read from A (as its Source says,
/// its sign already in `factor`), likewise B'.
struct BlockProduct {
  std::size_t c = 0;
  BlockLayout::Source a, b;
  /// The sources' signs times the number of orders of the summed antisymmetric runs' groups
  /// this product stands for (2 for a summed pair of two different groups: the TCE's 2/nsuperp!).
  double factor = 1;
  /// 2 · (elements of the C block) · (elements of the summed indices' groups).
  double flops = 0;
};

/// The letters of C += A·B, one per dimension (as kernel.h's layout_from_labels: a letter of C in
/// A or B, a summed letter in both A and B), and the summed antisymmetric runs: sets of summed
/// letters that lie in one antisymmetric run of A and in one of B, summed over in one order of
/// their groups.
struct BlockLabels {
  std::string a, b, c;
  std::vector<std::string> summed_runs;
};

/// The TCE's loops of C += A·B: for each stored block of C, each tuple of the summed letters'
/// groups non-decreasing along every summed run, the product of A's and B's blocks of those
/// groups when both are nonzero; in C's block order, then the summed letters' odometer (the first
/// summed letter fastest). Throws std::invalid_argument when the letters do not match the
/// ranks, a letter's groups differ between tensors, a letter repeats within one tensor or is in
/// all three, a summed letter is in only one operand, or a summed run names a letter that is not
/// summed.
std::vector<BlockProduct> block_products(const BlockLayout& A, const BlockLayout& B, const BlockLayout& C,
                                         const BlockLabels& labels);

/// `products` reordered for streaming one operand from disk: stably by that operand's block (A's
/// when operand_b is false, B's when true), so that each of its blocks is read once (block_reads()
/// of the result: the bytes of the distinct blocks used) while C and the other operand stay in
/// memory. The sum is the same up to the order of its floating-point additions.
std::vector<BlockProduct> streaming_order(std::vector<BlockProduct> products, bool operand_b);

/// What a run of `products` reads from a block file holding A (operand_b false) or B (true): each
/// product reads its block of that operand in one request, unless the product before it read the
/// same block (runtime/blocks/block_file.h BlockFile keeps the block it read last).
struct BlockReads {
  std::uint64_t bytes = 0;     ///< 8 per element
  std::uint64_t requests = 0;  ///< reads, one per block read
};
BlockReads block_reads(const std::vector<BlockProduct>& products, const BlockLayout& layout, bool operand_b);

/// How a block contraction C += A·B runs within a memory budget (bytes per rank): which operands
/// stay in memory and which are read from their block files, block by block.
struct BlockSchedule {
  bool stream_a = false, stream_b = false;  ///< read from a block file (else held in memory)
  std::vector<BlockProduct> products;       ///< in the order they run
  BlockReads reads;                         ///< what the streamed operands read (block_reads())
  /// Peak bytes: C and the held operands whole, a streamed operand's largest block twice (the
  /// block read and its permuted copy), the largest product once (for a C block it is permuted into).
  std::uint64_t memory_bytes = 0;
};

/// The schedule of `products` (block_products(A, B, C, …)) that reads the fewest bytes within
/// `memory_bytes`: everything in memory; B streamed in streaming_order (each used block read
/// once), or A so; both streamed in the TCE's loop order. Fewer requests break ties. nullopt when
/// not even C and one block of each operand fit.
std::optional<BlockSchedule> block_schedule(const BlockLayout& A, const BlockLayout& B, const BlockLayout& C,
                                            const std::vector<BlockProduct>& products, std::uint64_t memory_bytes);

}  // namespace tcert
