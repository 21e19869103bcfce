// runtime/spec/sfc_spec.cpp — the checks, buffers and trace names of an sfc plan's spec (sfc_spec.h).
#include "runtime/spec/sfc_spec.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/units.h"

namespace tcert {

namespace {

using i64 = std::int64_t;

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

/// Throws unless `order` lists every tile of the grid exactly once.
void check_order(const SfcSpec& part) {
  const i64 tiles = part.tiles_I * part.tiles_J;
  if (static_cast<i64>(part.order.size()) != tiles)
    throw Error(fmt::format("invalid sfc schedule: the order lists {} tiles but the {}x{} grid has {}",
                            part.order.size(), part.tiles_I, part.tiles_J, tiles));
  std::vector<bool> seen(static_cast<std::size_t>(tiles), false);
  for (std::size_t w = 0; w < part.order.size(); ++w) {
    const i64 t = part.order[w];
    if (t < 0 || t >= tiles)
      throw Error(fmt::format("invalid sfc schedule: order[{}] is tile {}, outside [0, {})", w, t, tiles));
    if (seen[static_cast<std::size_t>(t)])
      throw Error(fmt::format("invalid sfc schedule: tile {} is listed twice (again at order[{}])", t, w));
    seen[static_cast<std::size_t>(t)] = true;
  }
}

/// Throws unless `segment` has ranks + 1 entries (the ranks of a layer) rising from 0 to the
/// tile count.
void check_segments(const SfcSpec& part, i64 ranks) {
  const i64 tiles = part.tiles_I * part.tiles_J;
  const std::vector<i64>& s = part.segment;
  if (static_cast<i64>(s.size()) != ranks + 1)
    throw Error(
        fmt::format("invalid sfc schedule: {} segment bounds for {} ranks; it needs {}", s.size(), ranks, ranks + 1));
  if (s.front() != 0 || s.back() != tiles)
    throw Error(fmt::format("invalid sfc schedule: the segments run from {} to {}, not from 0 to the {} tiles",
                            s.front(), s.back(), tiles));
  for (std::size_t q = 1; q < s.size(); ++q)
    if (s[q] < s[q - 1])
      throw Error(fmt::format("invalid sfc schedule: segment {} starts at {} but ends at {}", q - 1, s[q - 1], s[q]));
}

}  // namespace

void check_method(const SfcSpec& part, const GemmSpec& spec, std::int64_t ranks) {
  if (spec.take_A || spec.take_B || spec.take_C || spec.keep_result)
    throw Error("sfc reads its operands from their tensors and writes C into its file; it takes and keeps nothing");
  const i64 m = product(extents_of(spec.I)), n = product(extents_of(spec.J)), k = product(extents_of(spec.K));
  if (part.layers < 1 || part.layers > k || ranks % part.layers != 0)
    throw Error(
        fmt::format("invalid sfc schedule: c = {} layers along K for {} ranks and |K| = {} (c must divide the "
                    "ranks and not exceed |K|)",
                    part.layers, ranks, k));
  const i64 kx = ceil_div(k, part.layers);  // the largest layer's share of K
  if (part.tiles_I < 1 || part.tiles_I > m || part.tiles_J < 1 || part.tiles_J > n || part.chunk < 1 || part.chunk > kx)
    throw Error(
        fmt::format("invalid sfc schedule: a {}x{} tile grid with chunks of {} for |I|, |J|, |K|/c = {}, {}, {}/{}",
                    part.tiles_I, part.tiles_J, part.chunk, m, n, k, part.layers));
  if (part.slots < 2)
    throw Error(fmt::format("invalid sfc schedule: {} panel slots; the cache needs at least 2", part.slots));
  check_order(part);
  check_segments(part, ranks / part.layers);
}

std::vector<MemoryPart> method_buffers(const SfcSpec& part, const GemmSpec& spec) {
  const i64 rows = ceil_div(product(extents_of(spec.I)), std::max<i64>(part.tiles_I, 1));
  const i64 cols = ceil_div(product(extents_of(spec.J)), std::max<i64>(part.tiles_J, 1));
  const auto slot = static_cast<std::uint64_t>(std::max(rows, cols) * part.chunk);
  std::vector<MemoryPart> out = {{"C tile", bytes_of(static_cast<std::uint64_t>(rows * cols)), false},
                                 {"panel slots", bytes_of(static_cast<std::uint64_t>(part.slots) * slot), false}};
  if (part.layers > 1) out.push_back({"reduction scratch", bytes_of(slot), false});
  return out;
}

std::pair<const char*, const char*> trace_names(const SfcSpec&) { return {"inside", "sfc"}; }

}  // namespace tcert
