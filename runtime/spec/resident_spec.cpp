// runtime/spec/resident_spec.cpp — the checks, buffers and trace names of a resident accumulation
// step's spec (resident_spec.h).
#include "runtime/spec/resident_spec.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/tiling.h"
#include "runtime/spec/units.h"

namespace tcert {

namespace {

using i64 = std::int64_t;

}  // namespace

ResidentRange resident_range(const ResidentSpec& part, const GemmSpec& spec, std::int64_t rank) {
  const i64 e = spec.C.shape.extents.at(static_cast<std::size_t>(part.split));
  const i64 all = static_cast<i64>(spec.C.shape.elements());
  ResidentRange r;
  r.start = piece_start(e, part.ranks, rank), r.length = piece(e, part.ranks, rank);
  r.elements = e > 0 ? all / e * r.length : 0;
  return r;
}

ResidentSplit resident_split(const ResidentSpec& part, const GemmSpec& spec) {
  const auto at = std::find(spec.C.perm.begin(), spec.C.perm.end(), part.split);
  const auto p = static_cast<std::size_t>(at - spec.C.perm.begin());
  const std::size_t ni = spec.I.indices.size();
  return p < ni ? ResidentSplit{true, p} : ResidentSplit{false, p - ni};
}

std::vector<std::pair<i64, i64>> restricted_rows(const std::vector<i64>& extents, std::size_t position, i64 s0,
                                                 i64 len) {
  std::vector<std::pair<i64, i64>> out;
  if (len <= 0) return out;
  i64 outer = 1, inner = 1;
  for (std::size_t q = 0; q < position; ++q) outer *= extents[q];
  for (std::size_t q = position + 1; q < extents.size(); ++q) inner *= extents[q];
  const i64 e = extents.at(position);
  for (i64 o = 0; o < outer; ++o) out.emplace_back((o * e + s0) * inner, len * inner);
  return out;
}

void check_method(const ResidentSpec& part, const GemmSpec& spec, std::int64_t ranks) {
  if (spec.take_A || spec.take_B || spec.take_C || spec.keep_result)
    throw Error("a resident accumulation reads its operands from their tensors; it takes and keeps nothing");
  const auto dims = static_cast<int>(spec.C.shape.extents.size());
  if (part.ranks != ranks)
    throw Error(fmt::format("invalid resident schedule: split over {} ranks, but the run has {}", part.ranks, ranks));
  if (part.split < 0 || part.split >= dims ||
      std::find(spec.C.perm.begin(), spec.C.perm.end(), part.split) == spec.C.perm.end())
    throw Error(fmt::format("invalid resident schedule: split dimension {} of {} ({} dimensions)", part.split,
                            spec.C.shape.name, dims));
  const i64 k = product(extents_of(spec.K));
  if (part.chunk < 1 || part.chunk > k)
    throw Error(fmt::format("invalid resident schedule: chunks of {} columns for |K| = {}", part.chunk, k));
}

std::vector<MemoryPart> method_buffers(const ResidentSpec& part, const GemmSpec& spec) {
  const ResidentRange r = resident_range(part, spec, 0);
  const ResidentSplit s = resident_split(part, spec);
  const i64 e = spec.C.shape.extents.at(static_cast<std::size_t>(part.split));
  const i64 m = product(extents_of(spec.I)), n = product(extents_of(spec.J));
  const i64 rows_A = s.in_I && e > 0 ? m / e * r.length : m, rows_B = !s.in_I && e > 0 ? n / e * r.length : n;
  auto bytes = [](i64 elements) { return bytes_of(static_cast<std::uint64_t>(elements)); };
  return {{"resident block", bytes(r.elements), false},
          {"product", bytes(r.elements), false},
          {"A panel", bytes(rows_A * part.chunk), false},
          {"B panel", bytes(rows_B * part.chunk), false}};
}

std::pair<const char*, const char*> trace_names(const ResidentSpec&) { return {"inside", "resident"}; }

}  // namespace tcert
