// runtime/spec/cosma_spec.cpp — the checks, buffers and trace names of a cosma plan's spec
// (cosma_spec.h).
#include "runtime/spec/cosma_spec.h"

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/units.h"

namespace tcert {

namespace {

using i64 = std::int64_t;

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

}  // namespace

void check_method(const CosmaSpec& part, const GemmSpec& spec, std::int64_t ranks) {
  const i64 pm = part.grid[0], pn = part.grid[1], pk = part.grid[2];
  const i64 m = product(extents_of(spec.I)), n = product(extents_of(spec.J)), k = product(extents_of(spec.K));
  // Every rank of the grid cuts its K columns (k / pk or one more) into the rounds.
  if (pm < 1 || pn < 1 || pk < 1 || pm * pn * pk > ranks || pm > m || pn > n || pk > k || part.rounds < 1 ||
      part.rounds > k / pk || part.rounds > kMaxCosmaRounds)
    throw Error(fmt::format("invalid cosma grid {}x{}x{} with {} rounds for {} ranks and m, n, k = {}, {}, {}", pm, pn,
                            pk, part.rounds, ranks, m, n, k));
  if (spec.direct_A || spec.direct_B || spec.direct_C)
    throw Error("cosma loads its operands' pieces and stores its result itself; direct tile I/O does not apply");
  if (spec.take_A || spec.take_B || spec.take_C || spec.keep_result)
    throw Error("cosma reads its operands from the store and stores its result; it takes and keeps nothing");
}

std::vector<MemoryPart> method_buffers(const CosmaSpec& part, const GemmSpec& spec) {
  // Rank 0's: the first pieces are the largest.
  const i64 pm = part.grid[0], pn = part.grid[1], pk = part.grid[2];
  const auto m = static_cast<std::uint64_t>(ceil_div(product(extents_of(spec.I)), pm));
  const auto n = static_cast<std::uint64_t>(ceil_div(product(extents_of(spec.J)), pn));
  const auto slice = static_cast<std::uint64_t>(ceil_div(ceil_div(product(extents_of(spec.K)), pk), part.rounds));
  const std::uint64_t buffers = part.rounds > 1 ? 2 : 1;  // double buffering over rounds
  return {{"C block", bytes_of(m * n), false},
          {"A slices", bytes_of(buffers * m * slice), false},
          {"B slices", bytes_of(buffers * n * slice), false}};
}

std::pair<const char*, const char*> trace_names(const CosmaSpec&) { return {"inside", "cosma"}; }

}  // namespace tcert
