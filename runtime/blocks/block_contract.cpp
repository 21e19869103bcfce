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

/// The block `source` names, in the wanted order: a pointer into `data` when it is stored so
/// (the sign is the caller's), else permuted into `scratch`.
const double* wanted_block(const BlockLayout& layout, const double* data, const BlockLayout::Source& source,
                           Workspace::Buffer& scratch, std::vector<std::int64_t>& extents) {
  if (source.block >= layout.blocks()) throw std::invalid_argument("block contraction: a product names no block");
  const std::vector<std::int64_t> stored = layout.extents(source.block);
  const double* first = data + layout.offset(source.block);
  extents.resize(stored.size());
  for (std::size_t d = 0; d < stored.size(); ++d) extents[d] = stored[static_cast<std::size_t>(source.perm[d])];
  if (identity(source.perm)) return first;
  scratch.resize(static_cast<std::size_t>(layout.block_elements(source.block)));
  permute(first, stored, source.perm, scratch.data(), 1.0, 0.0, StoreHint::Cached);
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

double contract_blocks(const std::vector<BlockProduct>& products, const BlockLabels& labels, double alpha,
                       const BlockLayout& A, const double* a, const BlockLayout& B, const double* b,
                       const BlockLayout& C, double* c, Workspace& ws) {
  Workspace::Buffer scratch_a, scratch_b;
  std::vector<std::int64_t> extents_a, extents_b;
  std::map<char, std::int64_t> extents;
  double flops = 0;
  for (const BlockProduct& p : products) {
    if (p.c >= C.blocks()) throw std::invalid_argument("block contraction: a product names no block of C");
    const double* block_a = wanted_block(A, a, p.a, scratch_a, extents_a);
    const double* block_b = wanted_block(B, b, p.b, scratch_b, extents_b);
    for (std::size_t d = 0; d < extents_a.size(); ++d) extents[labels.a[d]] = extents_a[d];
    for (std::size_t d = 0; d < extents_b.size(); ++d) extents[labels.b[d]] = extents_b[d];
    const ContractionLayout layout = layout_from_labels(labels.a, labels.b, labels.c, extents);
    contract(layout, alpha * p.factor, block_a, block_b, 1.0, c + C.offset(p.c), ws);
    flops += p.flops;
  }
  return flops;
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
