// runtime/storage/tiled_matrix.cpp — TiledMatrix: blocks of a tiled matrix on disk.
#include "runtime/storage/tiled_matrix.h"

#include <algorithm>
#include <string>
#include <utility>

#include "runtime/base/error.h"

namespace tcert {

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
