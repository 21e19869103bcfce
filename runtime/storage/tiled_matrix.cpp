// runtime/storage/tiled_matrix.cpp — GroupLayout (the tiling rule) and TiledMatrix (blocks on disk).
#include "runtime/storage/tiled_matrix.h"

#include <algorithm>
#include <string>
#include <utility>

#include "runtime/base/error.h"

namespace tcert {
namespace {

// Balanced split of n into g parts: the first n mod g parts have n/g + 1 elements.
std::int64_t piece_size(std::int64_t n, std::int64_t g, std::int64_t p) { return n / g + (p < n % g ? 1 : 0); }
std::int64_t piece_begin(std::int64_t n, std::int64_t g, std::int64_t p) { return p * (n / g) + std::min(p, n % g); }
std::int64_t piece_of(std::int64_t n, std::int64_t g, std::int64_t v) {
  const std::int64_t q = n / g, r = n % g;
  return v < r * (q + 1) ? v / (q + 1) : r + (v - r * (q + 1)) / q;
}

[[noreturn]] void invalid(const std::string& what) { throw Error("invalid group layout: " + what); }

void check_index(std::size_t k, const IndexTiling& x) {
  const std::string at = "index " + std::to_string(k) + " (extent " + std::to_string(x.extent) + ", t1 " +
                         std::to_string(x.t1) + ", t2 " + std::to_string(x.t2) + ")";
  if (x.extent < 1) invalid(at + " has no elements");
  if (x.t1 < 1 || x.t1 > x.extent) invalid(at + " needs 1 <= t1 <= extent");
  if (x.t2 < 1 || x.t2 > x.extent / x.t1) invalid(at + " needs 1 <= t2 <= extent / t1");
}

}  // namespace

GroupLayout::GroupLayout(std::vector<IndexTiling> indices, int dist, std::int64_t parts)
    : indices_(std::move(indices)), dist_(dist), parts_(parts) {
  const std::size_t n = indices_.size();
  if (dist_ < -1 || dist_ >= static_cast<int>(n)) invalid("dist " + std::to_string(dist_));
  if (parts_ < 1 || (dist_ < 0 && parts_ != 1))
    invalid(std::to_string(parts_) + " parts with dist " + std::to_string(dist_));
  stride1_.assign(n, 1);
  stride2_.assign(n, 1);
  start_.resize(n);
  for (std::size_t k = n; k-- > 0;) {
    const IndexTiling& x = indices_[k];
    check_index(k, x);
    stride1_[k] = tiles1_;
    stride2_[k] = tiles2_;
    tiles1_ *= x.t1;
    tiles2_ *= x.t2;
    for (std::int64_t a = 0; a < x.t1; ++a) {
      const std::int64_t s1 = piece_size(x.extent, x.t1, a), b1 = piece_begin(x.extent, x.t1, a);
      for (std::int64_t b = 0; b < x.t2; ++b) start_[k].push_back(b1 + piece_begin(s1, x.t2, b));
    }
    start_[k].push_back(x.extent);
  }
  if (dist_ >= 0) order_.push_back(static_cast<std::size_t>(dist_));
  for (std::size_t k = 0; k < n; ++k)
    if (static_cast<int>(k) != dist_) order_.push_back(k);
}

std::int64_t GroupLayout::part_id(std::size_t k, std::int64_t f) const {
  const IndexTiling& x = indices_[k];
  return ((f / tiles2_ / stride1_[k]) % x.t1) * x.t2 + ((f % tiles2_) / stride2_[k]) % x.t2;
}

std::int64_t GroupLayout::size_of(std::size_t k, std::int64_t f) const {
  const std::int64_t j = part_id(k, f);
  return start_[k][j + 1] - start_[k][j];
}

std::int64_t GroupLayout::extent() const {
  std::int64_t e = 1;
  for (const IndexTiling& x : indices_) e *= x.extent;
  return e;
}

std::int64_t GroupLayout::rows(std::int64_t f, std::int64_t p) const {
  std::int64_t r = 1;
  for (std::size_t k = 0; k < indices_.size(); ++k) {
    const std::int64_t s = size_of(k, f);
    r *= (p >= 0 && static_cast<int>(k) == dist_) ? piece_size(s, parts_, p) : s;
  }
  return r;
}

std::int64_t GroupLayout::piece_start(std::int64_t f, std::int64_t p) const {
  if (p < 0 || dist_ < 0) return 0;
  const std::int64_t s = size_of(static_cast<std::size_t>(dist_), f);
  return piece_begin(s, parts_, p) * (rows(f, -1) / s);
}

std::int64_t GroupLayout::total(std::int64_t p) const {
  if (p < 0 || dist_ < 0) return extent();
  // Σ_f piece(s_dist(f)) · Π_{k≠dist} s_k(f) factorises over the indices.
  const std::vector<std::int64_t>& st = start_[static_cast<std::size_t>(dist_)];
  std::int64_t sum = 0;
  for (std::size_t j = 0; j + 1 < st.size(); ++j) sum += piece_size(st[j + 1] - st[j], parts_, p);
  return sum * (extent() / indices_[static_cast<std::size_t>(dist_)].extent);
}

std::pair<std::int64_t, std::int64_t> GroupLayout::value_range(std::size_t k, std::int64_t f, std::int64_t p) const {
  const std::int64_t j = part_id(k, f), first = start_[k][j], s = start_[k][j + 1] - first;
  if (p < 0 || static_cast<int>(k) != dist_) return {first, s};
  return {first + piece_begin(s, parts_, p), piece_size(s, parts_, p)};
}

std::int64_t GroupLayout::finest_part(std::size_t k, std::int64_t v) const {
  const IndexTiling& x = indices_[k];
  const std::int64_t a = piece_of(x.extent, x.t1, v), b1 = piece_begin(x.extent, x.t1, a);
  return a * x.t2 + piece_of(piece_size(x.extent, x.t1, a), x.t2, v - b1);
}

std::int64_t GroupLayout::part_of_value(std::size_t k, std::int64_t v) const {
  if (static_cast<int>(k) != dist_) return 0;
  const std::int64_t j = finest_part(k, v);
  return piece_of(start_[k][j + 1] - start_[k][j], parts_, v - start_[k][j]);
}

GroupLayout::Location GroupLayout::locate(const std::int64_t* values) const {
  Location loc;
  std::int64_t l1 = 0, l2 = 0;
  constexpr std::size_t kKept = 16;  // finest part ids kept for the second pass (groups are small)
  std::int64_t part[kKept];
  for (std::size_t k = 0; k < indices_.size(); ++k) {
    const IndexTiling& x = indices_[k];
    const std::int64_t a = piece_of(x.extent, x.t1, values[k]);
    const std::int64_t b1 = piece_begin(x.extent, x.t1, a);
    const std::int64_t b = piece_of(piece_size(x.extent, x.t1, a), x.t2, values[k] - b1);
    l1 = l1 * x.t1 + a;
    l2 = l2 * x.t2 + b;
    if (k < kKept) part[k] = a * x.t2 + b;
  }
  loc.tile = l1 * tiles2_ + l2;
  for (std::size_t k : order_) {
    const std::int64_t j = k < kKept ? part[k] : part_id(k, loc.tile), s = start_[k][j + 1] - start_[k][j];
    std::int64_t rel = values[k] - start_[k][j];
    if (static_cast<int>(k) == dist_) {
      loc.part = piece_of(s, parts_, rel);
      rel -= piece_begin(s, parts_, loc.part);
    }
    loc.offset = loc.offset * s + rel;
  }
  return loc;
}

void GroupLayout::values_at(std::int64_t tile, std::int64_t part, std::int64_t offset, std::int64_t* values) const {
  std::int64_t off = offset + piece_start(tile, part);
  for (std::size_t i = order_.size(); i-- > 0;) {
    const std::size_t k = order_[i];
    const std::int64_t j = part_id(k, tile), s = start_[k][j + 1] - start_[k][j];
    values[k] = start_[k][j] + off % s;
    off /= s;
  }
}

void GroupLayout::values_from(std::int64_t tile, std::int64_t part, std::int64_t offset, std::int64_t count,
                              std::int64_t* values) const {
  const std::size_t n = indices_.size();
  if (count <= 0 || n == 0) return;
  values_at(tile, part, offset, values);
  std::vector<std::int64_t> first(n), end(n);  // per index, the tile's range of values
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t j = part_id(k, tile);
    first[k] = start_[k][j], end[k] = start_[k][j + 1];
  }
  for (std::int64_t r = 1; r < count; ++r) {
    std::int64_t* v = values + r * static_cast<std::int64_t>(n);
    std::copy_n(v - n, n, v);
    for (std::size_t i = order_.size(); i-- > 0;) {  // innermost first, carrying outwards
      const std::size_t k = order_[i];
      if (++v[k] < end[k]) break;
      v[k] = first[k];
    }
  }
}

TiledMatrix::TiledMatrix(std::string path, GroupLayout rows, std::int64_t pr, GroupLayout cols, std::int64_t pc,
                         std::uint64_t base)
    : rows_(std::move(rows)), cols_(std::move(cols)), pr_(pr), pc_(pc), base_(base) {
  if (pr_ < -1 || pr_ >= rows_.parts() || pc_ < -1 || pc_ >= cols_.parts())
    throw Error("invalid tiled matrix part (" + std::to_string(pr_) + ", " + std::to_string(pc_) + ") for " + path);
  row_prefix_.assign(1, 0);
  for (std::int64_t f = 0; f < rows_.finest_tiles(); ++f)
    row_prefix_.push_back(row_prefix_.back() + static_cast<std::uint64_t>(rows_.rows(f, pr_)));
  col_prefix_.assign(1, 0);
  for (std::int64_t h = 0; h < cols_.finest_tiles(); ++h)
    col_prefix_.push_back(col_prefix_.back() + static_cast<std::uint64_t>(cols_.rows(h, pc_)));
  file_ = DiskFile(std::move(path));
}

std::uint64_t TiledMatrix::block_offset(std::int64_t f, std::int64_t h) const {
  return base_ + row_prefix_[f] * col_prefix_.back() + static_cast<std::uint64_t>(block_rows(f)) * col_prefix_[h];
}

std::uint64_t TiledMatrix::total() const { return row_prefix_.back() * col_prefix_.back(); }

void TiledMatrix::read_block(std::int64_t f, std::int64_t h, double* dst) {
  file_.read(dst, block_offset(f, h), static_cast<std::size_t>(block_rows(f) * block_cols(h)));
}

void TiledMatrix::write_block(std::int64_t f, std::int64_t h, const double* src) {
  file_.write(src, block_offset(f, h), static_cast<std::size_t>(block_rows(f) * block_cols(h)));
}

void TiledMatrix::create() { file_.resize(base_ + total()); }

std::vector<std::int64_t> TiledMatrix::piece_values(const GroupLayout& g, std::int64_t f, std::int64_t p) {
  const std::size_t n = g.indices().size();
  const std::int64_t rows = g.rows(f, p);
  std::vector<std::int64_t> v(static_cast<std::size_t>(rows) * n);
  g.values_from(f, p, 0, rows, v.data());
  return v;
}

void TiledMatrix::for_each_block(const BlockVisitor& visit) {
  for (std::int64_t f = 0; f < rows_.finest_tiles(); ++f) {
    const std::vector<std::int64_t> rv = piece_values(rows_, f, pr_);
    for (std::int64_t h = 0; h < cols_.finest_tiles(); ++h) {
      const std::vector<std::int64_t> cv = piece_values(cols_, h, pc_);
      visit(f, h, rv, cv, static_cast<std::size_t>(block_rows(f)), static_cast<std::size_t>(block_cols(h)));
    }
  }
}

void TiledMatrix::fill_blocks(const BlockFiller& fill_block) {
  std::vector<double> block;
  for_each_block([&](std::int64_t f, std::int64_t h, const std::vector<std::int64_t>& rv,
                     const std::vector<std::int64_t>& cv, std::size_t R, std::size_t C) {
    if (R * C == 0) return;
    block.resize(R * C);
    fill_block(rv.data(), cv.data(), R, C, block.data());
    write_block(f, h, block.data());
  });
}

void TiledMatrix::read_blocks(const BlockVisit& visit) {
  std::vector<double> block;
  for_each_block([&](std::int64_t f, std::int64_t h, const std::vector<std::int64_t>& rv,
                     const std::vector<std::int64_t>& cv, std::size_t R, std::size_t C) {
    if (R * C == 0) return;
    block.resize(R * C);
    read_block(f, h, block.data());
    visit(rv.data(), cv.data(), R, C, block.data());
  });
}

std::int64_t TiledMatrix::local_offset(const GroupLayout& g, std::int64_t part, const GroupLayout::Location& loc) {
  return part < 0 ? g.piece_start(loc.tile, loc.part) + loc.offset : loc.offset;
}

std::optional<std::uint64_t> TiledMatrix::offset_of(const std::int64_t* row_values,
                                                    const std::int64_t* col_values) const {
  const GroupLayout::Location r = rows_.locate(row_values), c = cols_.locate(col_values);
  if ((pr_ >= 0 && r.part != pr_) || (pc_ >= 0 && c.part != pc_)) return std::nullopt;
  return block_offset(r.tile, c.tile) +
         static_cast<std::uint64_t>(local_offset(rows_, pr_, r) * block_cols(c.tile) + local_offset(cols_, pc_, c));
}

std::optional<double> TiledMatrix::element(const std::int64_t* row_values, const std::int64_t* col_values) {
  const std::optional<std::uint64_t> at = offset_of(row_values, col_values);
  if (!at) return std::nullopt;
  double v = 0;
  file_.read(&v, *at, 1);
  return v;
}

}  // namespace tcert
