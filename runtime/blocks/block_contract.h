// runtime/blocks/block_contract.h — a contraction of block-sparse tensors in memory, as the TCE's
// loops run it: one dense product of blocks per BlockProduct (spec/block_layout.h), each block
// read in the order the product wants (permuted, with its sign) and multiplied by contract()
// (kernel.h). All sizes are elements (doubles).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/blocks/block_file.h"
#include "runtime/kernel/kernel.h"
#include "runtime/spec/block_layout.h"

namespace tcert {

/// A block-sparse contraction C += alpha · A · B prepared to run many times (a solver's
/// iterations): each product as the TCE runs it, A's block permuted straight from its stored
/// order into GEMM order [I, K] (its Source's permutation and the macro-index one composed),
/// B's into [J, K], one dgemm, and where C's order is neither [I, J] nor [J, I] the product
/// permuted and added into C's block; a large product (kKernelProduct) through contract()
/// instead. The layouts and `products` (block_products(A, B, C, labels)) must outlive it.
class BlockContraction {
 public:
  /// |I|·|J|·|K| from which a product goes through contract() rather than permutes and one dgemm:
  /// there GETT's packing in place beats permuting whole blocks (bench/blocks_bench.cpp).
  static constexpr std::int64_t kKernelProduct = std::int64_t{1} << 15;

  /// `kernel_product`: the |I|·|J|·|K| from which a product runs through contract() (tests set
  /// 1 and the largest value to check both ways). Throws std::invalid_argument as
  /// layout_from_labels() for letters that do not fit the blocks, or for a product naming no block.
  BlockContraction(const BlockLayout& A, const BlockLayout& B, const BlockLayout& C, const BlockLabels& labels,
                   const std::vector<BlockProduct>& products, std::int64_t kernel_product = kKernelProduct);
  /// C += alpha · A · B: `a` holds A.elements() elements, block b at A.offset(b), row-major in its
  /// extents; likewise b and c. The kernel's scratch comes from `ws`; the permuted blocks' is
  /// this object's (one run() at a time). Returns the flops done (the products' `flops` summed).
  double run(double alpha, const double* a, const double* b, double* c, Workspace& ws) const;
  /// The same with A's and B's blocks from sources (in memory or block files: out of core, C in
  /// memory), asked for in the products' order; `a` and `b` are different objects, of layouts A
  /// and B. Errors as the sources' block().
  double run(double alpha, BlockSource& a, BlockSource& b, double* c, Workspace& ws) const;
  /// Distinct block shapes the products fall into (each prepared once).
  std::size_t shapes() const { return shapes_.size(); }

 private:
  struct Shape {
    std::int64_t m = 0, n = 0, k = 0;
    bool swap = false;                       ///< C's order is [J, I]: computed as Cᵀ = B'·A'ᵀ
    std::vector<int> perm_c;                 ///< empty: C's block is the product itself; else how to permute it in
    std::vector<std::int64_t> gemm_extents;  ///< the product's extents in [rows, columns] order
    /// A product of kKernelProduct or more multiply-adds runs through contract() (kernel.h: TTGT
    /// or GETT, whichever its time model prefers) on the blocks in the letters' order.
    bool kernel = false;
    ContractionLayout layout;  ///< of labels a, b, c (not swapped), for the kernel
  };
  struct Step {
    std::size_t shape = 0;
    std::vector<int> perm_a, perm_b;  ///< stored block → GEMM order (kernel: → the letters' order); empty: as stored
  };
  const BlockLayout &A_, &B_, &C_;
  const std::vector<BlockProduct>& products_;
  std::vector<Shape> shapes_;
  std::vector<Step> steps_;
  /// run()'s scratch, apart from the kernel's Workspace: permuted A and B blocks, a product to permute.
  mutable Workspace::Buffer scratch_a_, scratch_b_, product_;
};

/// C += alpha · A · B through a BlockContraction made for this one call (see there). Returns the flops.
double contract_blocks(const std::vector<BlockProduct>& products, const BlockLabels& labels, double alpha,
                       const BlockLayout& A, const double* a, const BlockLayout& B, const double* b,
                       const BlockLayout& C, double* c, Workspace& ws);

/// A block-sparse tensor unpacked to dense (row-major over the dimensions' full ranges: a
/// dimension's groups lie one after another in their order): every nonzero block, stored or
/// read through its Source (the other orders of an antisymmetric run with their signs, the
/// all-beta blocks of a restricted tensor), the zero blocks zero. For checking and export.
std::vector<double> unpack_dense(const BlockLayout& layout, const double* data);

/// The stored blocks of a dense tensor (the layout unpack_dense() writes): layout.elements() elements.
std::vector<double> pack_dense(const BlockLayout& layout, const double* dense);

}  // namespace tcert
