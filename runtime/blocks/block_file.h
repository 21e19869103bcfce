// runtime/blocks/block_file.h — a block-sparse tensor in a file, read block by block: how the
// TCE keeps a tensor on disk (its blocks in key order; tce_hash.F finds one by its key) and what
// an out-of-core block contraction reads (BlockContraction::run on BlockSource).
//
// The file: a header of kBlockHeaderBytes bytes, the line "tcec-blocks 1" and then the tensor's
// BlockSymmetry as one JSON object ({"upper", "irrep", "restricted", "antisymmetric": [[dim…]…],
// "groups": [[[spin, irrep, extent]…] per dimension]}), padded with spaces; then the stored
// blocks (BlockLayout of that symmetry) one after another, 8-byte doubles in native byte order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/kernel/kernel.h"
#include "runtime/spec/block_layout.h"
#include "runtime/storage/disk.h"

namespace tcert {

/// Bytes of a block file's header; the blocks start there (a multiple of 4 KiB, for O_DIRECT).
inline constexpr std::uint64_t kBlockHeaderBytes = 4096;

/// Writes `data` (layout.elements() elements, layout's blocks in order) as the block file `path`:
/// into `path`.part, then renamed, so that a failed write leaves no file by that name. Counted as
/// disk writes. Throws Error naming the path when it cannot be written, or when the symmetry does
/// not fit the header.
void write_block_file(const std::string& path, const BlockLayout& layout, const double* data);

/// Where a block contraction's operand blocks come from: block(b) returns block b's elements as
/// stored (row-major in layout().extents(b)), valid until the next block() call.
class BlockSource {
 public:
  virtual ~BlockSource() = default;
  virtual const BlockLayout& layout() const = 0;
  virtual const double* block(std::size_t b) = 0;
};

/// The blocks of a tensor in memory (layout.elements() elements, block b at layout.offset(b)).
class MemoryBlocks final : public BlockSource {
 public:
  MemoryBlocks(const BlockLayout& layout, const double* data) : layout_(layout), data_(data) {}
  const BlockLayout& layout() const override { return layout_; }
  const double* block(std::size_t b) override { return data_ + layout_.offset(b); }

 private:
  const BlockLayout& layout_;
  const double* data_;
};

/// A block file opened for reading: each block() is one read of the block's bytes (counted as
/// disk bytes and one request), except that asking again for the block it read last reads
/// nothing (block_read_bytes() predicts exactly this).
class BlockFile final : public BlockSource {
 public:
  /// Throws Error naming the path when it cannot be opened, is not a block file, or is shorter
  /// than its blocks.
  explicit BlockFile(const std::string& path);
  const BlockLayout& layout() const override { return layout_; }
  /// Throws Error naming the path when the read fails.
  const double* block(std::size_t b) override;
  /// The whole tensor (layout().elements() elements), read in one request.
  void read_all(double* out);

 private:
  DiskFile file_;
  BlockLayout layout_;
  Workspace::Buffer buffer_;  ///< the block read last
  std::size_t last_ = static_cast<std::size_t>(-1);
};

}  // namespace tcert
