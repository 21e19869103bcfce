// runtime/spec/block_layout.cpp — stored blocks and block products (block_layout.h).
#include "runtime/spec/block_layout.h"

#include "runtime/spec/units.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace tcert {

namespace {

bool same_groups(const std::vector<BlockGroup>& a, const std::vector<BlockGroup>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t g = 0; g < a.size(); ++g)
    if (a[g].spin != b[g].spin || a[g].irrep != b[g].irrep || a[g].extent != b[g].extent) return false;
  return true;
}

/// Calls visit(key) for every key over `groups` (group counts per position), the last position
/// fastest: keys in increasing order. None when a position has no group.
template <class Visit>
void each_key(const std::vector<std::size_t>& counts, Visit visit) {
  for (std::size_t n : counts)
    if (n == 0) return;
  std::vector<int> key(counts.size(), 0);
  while (true) {
    visit(key);
    std::size_t q = counts.size();
    while (q > 0) {
      --q;
      if (++key[q] < static_cast<int>(counts[q])) break;
      key[q] = 0;
      if (q == 0) return;
    }
    if (counts.empty()) return;
  }
}

/// n! / Π m_i!: the distinct orders of the groups along a run (m_i equal groups each).
double orders(std::vector<int> groups) {
  std::sort(groups.begin(), groups.end());
  double out = 1;
  std::size_t same = 0;
  for (std::size_t q = 0; q < groups.size(); ++q) {
    same = q > 0 && groups[q] == groups[q - 1] ? same + 1 : 1;
    out *= static_cast<double>(q + 1) / static_cast<double>(same);
  }
  return out;
}

/// The alpha group that beta group g of `dim` stands for in restricted mode: the one of the same
/// irrep at the same place among that irrep's alpha groups (a group cut into tiles: the same
/// tile), of the same extent; nullopt if there is none.
std::optional<std::size_t> partner(const std::vector<BlockGroup>& dim, std::size_t g) {
  std::size_t place = 0;
  for (std::size_t q = 0; q < g; ++q) place += dim[q].spin == dim[g].spin && dim[q].irrep == dim[g].irrep;
  for (std::size_t q = 0; q < dim.size(); ++q)
    if (dim[q].spin != dim[g].spin && dim[q].irrep == dim[g].irrep && place-- == 0)
      return dim[q].extent == dim[g].extent ? std::optional<std::size_t>(q) : std::nullopt;
  return std::nullopt;
}

}  // namespace

std::vector<BlockGroup> tiles_of(const std::vector<BlockGroup>& groups, std::int64_t tile) {
  if (tile < 1) throw std::invalid_argument("block layout: a tile holds at least one orbital");
  std::vector<BlockGroup> out;
  for (const BlockGroup& g : groups) {
    const std::int64_t n = (g.extent + tile - 1) / tile;
    for (std::int64_t q = 0; q < n; ++q) out.push_back({g.spin, g.irrep, g.extent / n + (q < g.extent % n ? 1 : 0)});
  }
  return out;
}

BlockLayout::BlockLayout(BlockSymmetry symmetry) : symmetry_(std::move(symmetry)) {
  const std::size_t r = rank();
  if (symmetry_.upper > r) throw std::invalid_argument("block layout: the upper half is longer than the rank");
  for (const std::vector<BlockGroup>& dim : symmetry_.groups)
    for (const BlockGroup& g : dim)
      if (g.extent < 0 || g.irrep < 0 || g.irrep > 7 || (g.spin != 0 && g.spin != 1))
        throw std::invalid_argument("block layout: a group has a negative extent, an irrep outside 0..7 or no spin");
  for (const std::vector<int>& run : symmetry_.antisymmetric) {
    for (std::size_t q = 0; q < run.size(); ++q) {
      if (run[q] < 0 || static_cast<std::size_t>(run[q]) >= r || (q > 0 && run[q] <= run[q - 1]))
        throw std::invalid_argument("block layout: an antisymmetric run is out of range or not increasing");
      const bool upper = static_cast<std::size_t>(run[q]) < symmetry_.upper;
      if (upper != (static_cast<std::size_t>(run.front()) < symmetry_.upper))
        throw std::invalid_argument("block layout: an antisymmetric run crosses the upper and lower halves");
      if (!same_groups(symmetry_.groups[static_cast<std::size_t>(run[q])],
                       symmetry_.groups[static_cast<std::size_t>(run.front())]))
        throw std::invalid_argument("block layout: an antisymmetric run spans dimensions of different groups");
    }
  }
  if (symmetry_.restricted)
    for (const std::vector<BlockGroup>& dim : symmetry_.groups) {
      alpha_of_.emplace_back(dim.size(), -1);
      for (std::size_t g = 0; g < dim.size(); ++g) {
        if (dim[g].spin == 0) continue;
        const std::optional<std::size_t> a = partner(dim, g);
        if (!a)
          throw std::invalid_argument("block layout: restricted, but a beta group has no alpha group of its irrep");
        alpha_of_.back()[g] = static_cast<int>(*a);
      }
    }
  std::vector<std::size_t> counts;
  for (const std::vector<BlockGroup>& dim : symmetry_.groups) counts.push_back(dim.size());
  each_key(counts, [&](const std::vector<int>& key) {
    if (!stored(key)) return;
    keys_.insert(keys_.end(), key.begin(), key.end());
    offsets_.push_back(elements_);
    std::int64_t n = 1;
    for (std::size_t d = 0; d < r; ++d) n *= symmetry_.groups[d][static_cast<std::size_t>(key[d])].extent;
    elements_ += n;
  });
}

std::vector<int> BlockLayout::key(std::size_t b) const {
  const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(b * rank());
  return {first, first + static_cast<std::ptrdiff_t>(rank())};
}

std::vector<std::int64_t> BlockLayout::extents(std::size_t b) const {
  std::vector<std::int64_t> out(rank());
  for (std::size_t d = 0; d < rank(); ++d)
    out[d] = symmetry_.groups[d][static_cast<std::size_t>(keys_[b * rank() + d])].extent;
  return out;
}

std::int64_t BlockLayout::block_elements(std::size_t b) const {
  const std::int64_t end = b + 1 < blocks() ? offsets_[b + 1] : elements_;
  return end - offsets_[b];
}

bool BlockLayout::nonzero(const std::vector<int>& key) const {
  int spin = 0, irrep = 0;
  for (std::size_t d = 0; d < rank(); ++d) {
    const BlockGroup& g = symmetry_.groups[d][static_cast<std::size_t>(key[d])];
    const int ms = g.spin == 0 ? 1 : -1;
    spin += d < symmetry_.upper ? ms : -ms;
    irrep ^= g.irrep;
  }
  return spin == 0 && irrep == symmetry_.irrep;
}

bool BlockLayout::stored(const std::vector<int>& key) const {
  if (!nonzero(key)) return false;
  for (const std::vector<int>& run : symmetry_.antisymmetric)
    for (std::size_t q = 1; q < run.size(); ++q)
      if (key[static_cast<std::size_t>(run[q - 1])] > key[static_cast<std::size_t>(run[q])]) return false;
  if (!symmetry_.restricted || rank() == 0) return true;
  for (std::size_t d = 0; d < rank(); ++d)
    if (symmetry_.groups[d][static_cast<std::size_t>(key[d])].spin == 0) return true;
  return false;  // all beta
}

std::optional<std::size_t> BlockLayout::find(const std::vector<int>& key) const {
  if (key.size() != rank()) throw std::invalid_argument("block layout: a key of the wrong rank");
  for (std::size_t d = 0; d < rank(); ++d)
    if (key[d] < 0 || static_cast<std::size_t>(key[d]) >= symmetry_.groups[d].size())
      throw std::invalid_argument("block layout: a key's group is out of range");
  std::size_t lo = 0, hi = blocks();  // tce_hash.F: binary search over the sorted keys
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(mid * rank());
    if (std::lexicographical_compare(first, first + static_cast<std::ptrdiff_t>(rank()), key.begin(), key.end()))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < blocks() && std::equal(key.begin(), key.end(), keys_.begin() + static_cast<std::ptrdiff_t>(lo * rank())))
    return lo;
  return std::nullopt;
}

std::optional<BlockLayout::Source> BlockLayout::source(const std::vector<int>& key) const {
  if (key.size() != rank()) throw std::invalid_argument("block layout: a key of the wrong rank");
  if (!nonzero(key)) return std::nullopt;
  std::vector<int> stored_key = key;
  bool all_beta = rank() > 0;
  for (std::size_t d = 0; d < rank(); ++d)
    all_beta = all_beta && symmetry_.groups[d][static_cast<std::size_t>(key[d])].spin == 1;
  if (symmetry_.restricted && all_beta)  // TCE_RESTRICTED_4: the all-alpha block of the same irreps
    for (std::size_t d = 0; d < rank(); ++d) stored_key[d] = alpha_of_[d][static_cast<std::size_t>(key[d])];
  Source out;
  out.perm.resize(rank());
  std::iota(out.perm.begin(), out.perm.end(), 0);
  std::vector<int> sorted_key = stored_key;
  for (const std::vector<int>& run : symmetry_.antisymmetric) {
    std::vector<std::size_t> order(run.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return stored_key[static_cast<std::size_t>(run[x])] < stored_key[static_cast<std::size_t>(run[y])];
    });
    // Stored dimension run[i] holds the wanted dimension run[order[i]].
    for (std::size_t i = 0; i < run.size(); ++i) {
      sorted_key[static_cast<std::size_t>(run[i])] = stored_key[static_cast<std::size_t>(run[order[i]])];
      out.perm[static_cast<std::size_t>(run[order[i]])] = run[i];
    }
    for (std::size_t i = 0; i < order.size(); ++i)  // parity: count inversions
      for (std::size_t j = i + 1; j < order.size(); ++j)
        if (order[i] > order[j]) out.sign = -out.sign;
  }
  const std::optional<std::size_t> block = find(sorted_key);
  if (!block) return std::nullopt;  // unreachable for a nonzero key; kept as "zero" for safety
  out.block = *block;
  return out;
}

std::vector<BlockProduct> block_products(const BlockLayout& A, const BlockLayout& B, const BlockLayout& C,
                                         const BlockLabels& labels) {
  if (labels.a.size() != A.rank() || labels.b.size() != B.rank() || labels.c.size() != C.rank())
    throw std::invalid_argument("block products: the letters do not match the tensors' ranks");
  std::map<char, const std::vector<BlockGroup>*> groups;
  for (auto [letters, layout] : {std::pair{&labels.a, &A}, std::pair{&labels.b, &B}, std::pair{&labels.c, &C}})
    for (std::size_t d = 0; d < letters->size(); ++d) {
      const char x = (*letters)[d];
      if (letters->find(x) != d) throw std::invalid_argument(std::string("block products: letter ") + x + " repeats");
      const std::vector<BlockGroup>& g = layout->symmetry().groups[d];
      auto [it, fresh] = groups.emplace(x, &g);
      if (!fresh && !same_groups(*it->second, g))
        throw std::invalid_argument(std::string("block products: letter ") + x +
                                    " has different groups in two tensors");
    }
  std::string summed;
  for (const auto& [x, g] : groups) {
    const bool a = labels.a.find(x) != std::string::npos, b = labels.b.find(x) != std::string::npos,
               c = labels.c.find(x) != std::string::npos;
    if (a && b && c) throw std::invalid_argument(std::string("block products: letter ") + x + " is in all three");
    if (!c && !(a && b))
      throw std::invalid_argument(std::string("block products: letter ") + x + " is summed in one operand only");
    if (c && !a && !b) throw std::invalid_argument(std::string("block products: letter ") + x + " is only in C");
    if (!c) summed += x;
  }
  std::vector<std::vector<std::size_t>> runs;  // positions in `summed`
  for (const std::string& run : labels.summed_runs) {
    runs.emplace_back();
    for (char x : run) {
      const std::size_t q = summed.find(x);
      if (q == std::string::npos)
        throw std::invalid_argument(std::string("block products: summed run letter ") + x + " is not summed");
      runs.back().push_back(q);
    }
  }
  std::vector<std::size_t> counts(summed.size());
  for (std::size_t q = 0; q < summed.size(); ++q) counts[q] = groups.at(summed[q])->size();
  std::map<char, int> at;
  std::vector<int> key_a(A.rank()), key_b(B.rank());
  std::vector<BlockProduct> out;
  for (std::size_t c = 0; c < C.blocks(); ++c) {
    const std::vector<int> key_c = C.key(c);
    for (std::size_t d = 0; d < key_c.size(); ++d) at[labels.c[d]] = key_c[d];
    // The odometer over the summed letters, the first fastest (each_key runs the last fastest).
    std::vector<std::size_t> reversed(counts.rbegin(), counts.rend());
    each_key(reversed, [&](const std::vector<int>& rkey) {
      double weight = 1, elements = static_cast<double>(C.block_elements(c));
      for (std::size_t q = 0; q < summed.size(); ++q) {
        const int g = rkey[summed.size() - 1 - q];
        at[summed[q]] = g;
        elements *= static_cast<double>((*groups.at(summed[q]))[static_cast<std::size_t>(g)].extent);
      }
      for (const std::vector<std::size_t>& run : runs) {
        std::vector<int> gs;
        for (std::size_t q : run) gs.push_back(at[summed[q]]);
        if (!std::is_sorted(gs.begin(), gs.end())) return;
        weight *= orders(gs);
      }
      for (std::size_t d = 0; d < key_a.size(); ++d) key_a[d] = at[labels.a[d]];
      for (std::size_t d = 0; d < key_b.size(); ++d) key_b[d] = at[labels.b[d]];
      std::optional<BlockLayout::Source> a = A.source(key_a), b = B.source(key_b);
      if (!a || !b) return;
      const double factor = weight * a->sign * b->sign;
      out.push_back({c, std::move(*a), std::move(*b), factor, 2.0 * elements});
    });
  }
  return out;
}

std::vector<BlockProduct> streaming_order(std::vector<BlockProduct> products, bool operand_b) {
  std::stable_sort(products.begin(), products.end(), [operand_b](const BlockProduct& x, const BlockProduct& y) {
    return operand_b ? x.b.block < y.b.block : x.a.block < y.a.block;
  });
  return products;
}

BlockReads block_reads(const std::vector<BlockProduct>& products, const BlockLayout& layout, bool operand_b) {
  BlockReads out;
  std::size_t last = static_cast<std::size_t>(-1);
  for (const BlockProduct& p : products) {
    const std::size_t b = operand_b ? p.b.block : p.a.block;
    if (b == last) continue;
    out.bytes += bytes_of(static_cast<std::uint64_t>(layout.block_elements(b)));
    out.requests += 1;
    last = b;
  }
  return out;
}

namespace {

/// Elements of the largest block of `layout` (0 without blocks).
std::uint64_t largest_block(const BlockLayout& layout) {
  std::uint64_t out = 0;
  for (std::size_t b = 0; b < layout.blocks(); ++b)
    out = std::max(out, static_cast<std::uint64_t>(layout.block_elements(b)));
  return out;
}

}  // namespace

std::optional<BlockSchedule> block_schedule(const BlockLayout& A, const BlockLayout& B, const BlockLayout& C,
                                            const std::vector<BlockProduct>& products, std::uint64_t memory_bytes) {
  std::uint64_t product = 0;  // elements of the largest product: a C block times nothing more
  for (const BlockProduct& p : products) product = std::max(product, static_cast<std::uint64_t>(C.block_elements(p.c)));
  std::optional<BlockSchedule> best;
  for (const auto [stream_a, stream_b] :
       {std::pair{false, false}, std::pair{false, true}, std::pair{true, false}, std::pair{true, true}}) {
    BlockSchedule s;
    s.stream_a = stream_a;
    s.stream_b = stream_b;
    const std::uint64_t held = static_cast<std::uint64_t>(C.elements()) +
                               (stream_a ? 2 * largest_block(A) : static_cast<std::uint64_t>(A.elements())) +
                               (stream_b ? 2 * largest_block(B) : static_cast<std::uint64_t>(B.elements())) + product;
    s.memory_bytes = bytes_of(held);
    if (s.memory_bytes > memory_bytes) continue;
    s.products = stream_a == stream_b ? products : streaming_order(products, stream_b);
    if (stream_a) s.reads = block_reads(s.products, A, false);
    if (stream_b) {
      const BlockReads b = block_reads(s.products, B, true);
      s.reads.bytes += b.bytes;
      s.reads.requests += b.requests;
    }
    if (!best || s.reads.bytes < best->reads.bytes ||
        (s.reads.bytes == best->reads.bytes && s.reads.requests < best->reads.requests))
      best = std::move(s);
  }
  return best;
}

}  // namespace tcert
