// runtime/program/program_info.h — ProgramInfo: what a generated program knows about itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/spec/gemm_spec.h"

namespace tcert {

/// What a generated program knows about itself (constants written by the compiler).
struct ProgramInfo {
  std::string name;                ///< program name, e.g. "matmul"
  std::string source;              ///< the .tce file it was generated from
  std::int64_t processors = 1;     ///< P of the plans: the communicator's size must match
  std::uint64_t memory_bytes = 0;  ///< memory per rank for tile buffers (bytes; 0 = unlimited)
  /// The inputs the program reads, with their stored extents (elements per dimension).
  std::vector<TensorShape> inputs;
  /// Its outputs: their latest versions are written to TensorLocations::outputs at the end.
  std::vector<TensorShape> outputs;
  /// A hash of the generated steps (so of the statements and their plans), 16 hex digits: a
  /// checkpoint is resumed only by the program that made it (checkpoint.h). "" = none given.
  std::string fingerprint;
  int steps = 0;  ///< how many steps run_steps() runs (Run::step()), for the checkpoint's messages
  /// The planned machine's ranks per node with node-local scratch (0: one node, or a scratch all
  /// ranks see): the prediction counts a store of one directory per node (TensorStore::per_node())
  /// exactly when this is below `processors`.
  std::int64_t ranks_per_node = 0;
  /// The planned machine's direct_read_bytes: streamed reads of at least this many bytes bypass
  /// the page cache (set_direct_reads(); 0: none). RunOptions::buffered_reads overrides it.
  std::uint64_t direct_read_bytes = 0;
};

}  // namespace tcert
