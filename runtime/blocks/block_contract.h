// runtime/blocks/block_contract.h — a contraction of block-sparse tensors in memory, as the TCE's
// loops run it: one dense product of blocks per BlockProduct (spec/block_layout.h), each block
// read in the order the product wants (permuted, with its sign) and multiplied by contract()
// (kernel.h). All sizes are elements (doubles).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernel/kernel.h"
#include "runtime/spec/block_layout.h"

namespace tcert {

/// C += alpha · A · B, each a block-sparse tensor in memory: `a` holds A.elements() elements,
/// block b at A.offset(b), row-major in its extents; likewise b and c. `products` is
/// block_products(A, B, C, labels). Returns the flops done (the products' `flops` summed).
/// Scratch for permuted blocks and the kernel comes from `ws`. Throws std::invalid_argument
/// when a product names a block outside its layout.
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
