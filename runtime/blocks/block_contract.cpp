// runtime/blocks/block_contract.cpp — block-sparse contraction, unpack and pack (block_contract.h).
#include "runtime/blocks/block_contract.h"

#include <map>
#include <numeric>
#include <stdexcept>

namespace tcert {

namespace {

bool identity(const std::vector<int>& perm) {
  for (std::size_t d = 0; d < perm.size(); ++d)
    if (perm[d] != static_cast<int>(d)) return false;
  return true;
}

/// Row-major strides (elements) of these extents.
std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& extents) {
  std::vector<std::int64_t> out(extents.size(), 1);
  for (std::size_t d = extents.size(); d-- > 1;) out[d - 1] = out[d] * extents[d];
  return out;
}

/// perm after source: dimension e of the result is stored dimension source[gemm[e]]; empty when
/// that is the identity.
std::vector<int> compose(const std::vector<int>& source, const std::vector<int>& gemm) {
  std::vector<int> out(gemm.size());
  for (std::size_t e = 0; e < gemm.size(); ++e) out[e] = source[static_cast<std::size_t>(gemm[e])];
  return identity(out) ? std::vector<int>{} : out;
}

/// Block `block` of `source` in GEMM order: as the source gives it when `perm` is empty, else
/// permuted into `scratch`.
const double* gemm_operand(BlockSource& source, std::size_t block, const std::vector<int>& perm,
                           Workspace::Buffer& scratch) {
  const BlockLayout& layout = source.layout();
  const double* first = source.block(block);
  if (perm.empty()) return first;
  scratch.resize(static_cast<std::size_t>(layout.block_elements(block)));
  permute(first, layout.extents(block), perm, scratch.data(), 1.0, 0.0, StoreHint::Cached);
  return scratch.data();
}

/// Per dimension of `layout`, the first orbital of each group in the dimension's full range.
std::vector<std::vector<std::int64_t>> group_offsets(const BlockLayout& layout) {
  std::vector<std::vector<std::int64_t>> out;
  for (const std::vector<BlockGroup>& dim : layout.symmetry().groups) {
    out.emplace_back(1, 0);
    for (const BlockGroup& g : dim) out.back().push_back(out.back().back() + g.extent);
  }
  return out;
}

/// Calls visit(key) for every key over the layout's groups.
template <class Visit>
void each_key(const BlockLayout& layout, Visit visit) {
  const std::size_t r = layout.rank();
  for (const std::vector<BlockGroup>& dim : layout.symmetry().groups)
    if (dim.empty()) return;
  std::vector<int> key(r, 0);
  while (true) {
    visit(key);
    std::size_t q = r;
    for (; q > 0; --q) {
      if (++key[q - 1] < static_cast<int>(layout.symmetry().groups[q - 1].size())) break;
      key[q - 1] = 0;
    }
    if (q == 0) return;
  }
}

}  // namespace

BlockContraction::BlockContraction(const BlockLayout& A, const BlockLayout& B, const BlockLayout& C,
                                   const BlockLabels& labels, const std::vector<BlockProduct>& products,
                                   std::int64_t kernel_product)
    : A_(A), B_(B), C_(C), products_(products) {
  std::map<std::vector<std::int64_t>, std::size_t> known;  // the letters' extents → shape
  std::map<char, std::int64_t> extents;
  std::vector<std::int64_t> signature;
  std::vector<ContractionLayout> layouts;
  for (const BlockProduct& p : products) {
    if (p.c >= C.blocks() || p.a.block >= A.blocks() || p.b.block >= B.blocks())
      throw std::invalid_argument("block contraction: a product names no block");
    const std::vector<std::int64_t> ea = A.extents(p.a.block), eb = B.extents(p.b.block);
    for (std::size_t d = 0; d < ea.size(); ++d) extents[labels.a[d]] = ea[static_cast<std::size_t>(p.a.perm[d])];
    for (std::size_t d = 0; d < eb.size(); ++d) extents[labels.b[d]] = eb[static_cast<std::size_t>(p.b.perm[d])];
    signature.clear();
    for (const auto& [letter, e] : extents) signature.push_back(e);
    auto [it, fresh] = known.emplace(signature, shapes_.size());
    if (fresh) {
      // C = A'·B'ᵀ with C in [I, J] order, or Cᵀ = B'·A'ᵀ where C is in [J, I] order; else permuted in.
      ContractionLayout ab = layout_from_labels(labels.a, labels.b, labels.c, extents);
      ContractionLayout ba = layout_from_labels(labels.b, labels.a, labels.c, extents);
      Shape shape;
      shape.swap = !identity(ab.perm_C) && identity(ba.perm_C);
      const ContractionLayout& l = shape.swap ? ba : ab;
      shape.m = l.m(), shape.n = l.n(), shape.k = l.k();
      if (!identity(l.perm_C)) {
        shape.perm_c.assign(l.perm_C.size(), 0);  // the product [I, J] → C: C dim perm_C[q] is product dim q
        for (std::size_t q = 0; q < l.perm_C.size(); ++q)
          shape.perm_c[static_cast<std::size_t>(l.perm_C[q])] = static_cast<int>(q);
        shape.gemm_extents = l.extents_I;
        shape.gemm_extents.insert(shape.gemm_extents.end(), l.extents_J.begin(), l.extents_J.end());
      }
      shape.kernel = shape.m * shape.n * shape.k >= kernel_product;
      shape.layout = ab;
      const bool swap = shape.swap;
      shapes_.push_back(std::move(shape));
      layouts.push_back(swap ? std::move(ba) : std::move(ab));
    }
    const ContractionLayout& l = layouts[it->second];
    const Shape& shape = shapes_[it->second];
    if (shape.kernel) {  // contract() takes the blocks in the letters' order: the sources' permutations
      std::vector<int> ia(A.rank()), ib(B.rank());
      std::iota(ia.begin(), ia.end(), 0);
      std::iota(ib.begin(), ib.end(), 0);
      steps_.push_back({it->second, compose(p.a.perm, ia), compose(p.b.perm, ib)});
      continue;
    }
    // l's operand X is A (or B when swapped): its GEMM order is [rows, K], perm_A of the layout.
    steps_.push_back({it->second, compose(p.a.perm, shape.swap ? l.perm_B : l.perm_A),
                      compose(p.b.perm, shape.swap ? l.perm_A : l.perm_B)});
  }
}

double BlockContraction::run(double alpha, const double* a, const double* b, double* c, Workspace& ws) const {
  MemoryBlocks blocks_a(A_, a), blocks_b(B_, b);
  return run(alpha, blocks_a, blocks_b, c, ws);
}

double BlockContraction::run(double alpha, BlockSource& a, BlockSource& b, double* c, Workspace& ws) const {
  double flops = 0;
  for (std::size_t q = 0; q < products_.size(); ++q) {
    const BlockProduct& p = products_[q];
    const Step& step = steps_[q];
    const Shape& shape = shapes_[step.shape];
    const double* x = gemm_operand(a, p.a.block, step.perm_a, scratch_a_);
    const double* y = gemm_operand(b, p.b.block, step.perm_b, scratch_b_);
    double* block_c = c + C_.offset(p.c);
    flops += p.flops;
    if (shape.kernel) {
      contract(shape.layout, alpha * p.factor, x, y, 1.0, block_c, ws);
      continue;
    }
    if (shape.swap) std::swap(x, y);
    const auto m = static_cast<std::size_t>(shape.m), n = static_cast<std::size_t>(shape.n),
               k = static_cast<std::size_t>(shape.k);
    if (shape.perm_c.empty()) {
      gemm_tile(m, n, k, alpha * p.factor, x, k, y, k, 1.0, block_c, n);
    } else {
      product_.resize(m * n);
      gemm_tile(m, n, k, alpha * p.factor, x, k, y, k, 0.0, product_.data(), n);
      permute(product_.data(), shape.gemm_extents, shape.perm_c, block_c, 1.0, 1.0, StoreHint::Cached);
    }
  }
  return flops;
}

double contract_blocks(const std::vector<BlockProduct>& products, const BlockLabels& labels, double alpha,
                       const BlockLayout& A, const double* a, const BlockLayout& B, const double* b,
                       const BlockLayout& C, double* c, Workspace& ws) {
  return BlockContraction(A, B, C, labels, products).run(alpha, a, b, c, ws);
}

std::vector<double> unpack_dense(const BlockLayout& layout, const double* data) {
  const std::vector<std::vector<std::int64_t>> offsets = group_offsets(layout);
  std::vector<std::int64_t> full;
  for (const std::vector<std::int64_t>& o : offsets) full.push_back(o.back());
  const std::vector<std::int64_t> strides = row_major_strides(full);
  std::vector<double> dense(static_cast<std::size_t>(element_count(full)), 0.0);
  each_key(layout, [&](const std::vector<int>& key) {
    const std::optional<BlockLayout::Source> source = layout.source(key);
    if (!source) return;
    std::int64_t first = 0;
    for (std::size_t d = 0; d < key.size(); ++d) first += offsets[d][static_cast<std::size_t>(key[d])] * strides[d];
    const std::vector<std::int64_t> stored = layout.extents(source->block);
    // Wanted dimension q is stored dimension perm[q]: its stride in the dense tensor is strides[q].
    permute_strided(data + layout.offset(source->block), stored, row_major_strides(stored), source->perm,
                    dense.data() + first, strides, source->sign, 0.0, StoreHint::Cached);
  });
  return dense;
}

std::vector<double> pack_dense(const BlockLayout& layout, const double* dense) {
  const std::vector<std::vector<std::int64_t>> offsets = group_offsets(layout);
  std::vector<std::int64_t> full;
  for (const std::vector<std::int64_t>& o : offsets) full.push_back(o.back());
  const std::vector<std::int64_t> strides = row_major_strides(full);
  std::vector<double> out(static_cast<std::size_t>(layout.elements()));
  std::vector<int> perm(layout.rank());
  std::iota(perm.begin(), perm.end(), 0);
  for (std::size_t b = 0; b < layout.blocks(); ++b) {
    const std::vector<int> key = layout.key(b);
    const std::vector<std::int64_t> extents = layout.extents(b);
    std::int64_t first = 0;
    for (std::size_t d = 0; d < key.size(); ++d) first += offsets[d][static_cast<std::size_t>(key[d])] * strides[d];
    permute_strided(dense + first, extents, strides, perm, out.data() + layout.offset(b), row_major_strides(extents),
                    1.0, 0.0, StoreHint::Cached);
  }
  return out;
}

}  // namespace tcert
