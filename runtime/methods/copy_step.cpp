// runtime/methods/copy_step.cpp — one-operand statements, element by element over balanced ranges.
#include "runtime/methods/copy_step.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/kernel/kernel.h"
#include "runtime/methods/contraction_steps.h"
#include "runtime/program/direct_result.h"
#include "runtime/storage/mapped_walk.h"

namespace tcert {

namespace {

/// out's elements [first, end) = start + alpha · in (dimensions reordered), element by element:
/// the input's linear index stepped like an odometer over out's multi-index. `start`: out's
/// current version (accumulating into a new one); `in_place`: out's own values. A streamed
/// result (no data()) gets its elements queued in order (DirectResult::put()), and in place its
/// values are looked up where they are, each before it is written.
void copy_range(Run& run, const CopySpec& spec, const ElementSource& in, const std::optional<ElementSource>& start,
                bool in_place, DirectResult& result, std::uint64_t first, std::uint64_t end) {
  const std::size_t rank_out = spec.out.extents.size();
  std::vector<std::uint64_t> in_stride(rank_out, 1);
  for (std::size_t d = rank_out; d-- > 1;)
    in_stride[d - 1] = in_stride[d] * static_cast<std::uint64_t>(spec.in.extents[d]);
  std::vector<std::uint64_t> index(rank_out), extent(rank_out), stride(rank_out);
  std::uint64_t rest = first, at = 0;
  for (std::size_t d = rank_out; d-- > 0;) {
    extent[d] = static_cast<std::uint64_t>(spec.out.extents[d]);
    stride[d] = in_stride[static_cast<std::size_t>(spec.in_dim_of_out[d])];
    index[d] = rest % extent[d], rest /= extent[d];
    at += index[d] * stride[d];
  }
  double* const out = result.data();
  std::optional<ElementSource> held;
  if (in_place && out == nullptr) held = run.input(spec.out);
  MappedWalk walk(kMappedPageBytes);
  for (std::uint64_t o = first; o < end; ++o) {
    const double base = start ? (*start)(o) : !in_place ? 0.0 : out != nullptr ? out[o] : (*held)(o);
    if (out != nullptr)
      out[o] = base + spec.alpha * in(at);
    else
      result.put(walk, o, base + spec.alpha * in(at));
    for (std::size_t d = rank_out; d-- > 0;) {
      at += stride[d];
      if (++index[d] < extent[d]) break;
      at -= stride[d] * extent[d], index[d] = 0;
    }
  }
  result.flush();
}

}  // namespace

void copy_step(Run& run, const CopySpec& spec) {
  const std::size_t rank_out = spec.out.extents.size();
  if (spec.in_dim_of_out.size() != rank_out || spec.in.extents.size() != rank_out)
    throw Error("copy step '" + spec.statement + "': inconsistent dimensions");
  for (std::size_t d = 0; d < rank_out; ++d)
    if (spec.in.extents.at(static_cast<std::size_t>(spec.in_dim_of_out[d])) != spec.out.extents[d])
      throw Error("copy step '" + spec.statement + "': extents of dimension " + std::to_string(d) + " differ");
  flush_kept(run, spec.in.name);  // a copy reads the store (and its result goes there)
  if (spec.accumulate) flush_kept(run, spec.out.name);
  PhaseScope phase(Phase::WriteOut);
  const Context& ctx = run.context();
  const ElementSource in = run.input(spec.in);
  // Adding to out's latest version where it is, when nothing needs its values: no new file,
  // no copy of the old values (they are the result's to start from).
  const bool in_place = spec.accumulate && run.store().updates_in_place(spec.out.name, {spec.in.name});
  std::optional<ElementSource> start;
  if (spec.accumulate && !run.store().latest(spec.out.name).empty() && !in_place) start = run.input(spec.out);
  DirectResult result(run, spec.out, true,  // every rank writes its range: all of it is written
                      in_place ? DirectResult::Update::InPlace : DirectResult::Update::NextVersion, true);
  double* out = result.data();
  const std::uint64_t n = spec.out.elements(), P = static_cast<std::uint64_t>(ctx.size());
  const std::uint64_t r = static_cast<std::uint64_t>(ctx.rank());
  const std::uint64_t first = r * (n / P) + std::min(r, n % P), end = first + n / P + (r < n % P ? 1 : 0);
  if (first == 0 && end == n && out != nullptr && in.data() != nullptr && (!start || start->data() != nullptr)) {
    // The whole tensor on this rank, from mapped files: out = start + alpha·(in, dimensions
    // reordered) by the transposing kernel (kernel.h permute), not element by element.
    if (start) std::copy_n(start->data(), n, out);
    const Stopwatch clock;
    permute(in.data(), spec.in.extents, spec.in_dim_of_out, out, spec.alpha, start || in_place ? 1.0 : 0.0,
            StoreHint::Cached);
    counters().add_kernel_time(clock.seconds());
  } else {
    copy_range(run, spec, in, start, in_place, result, first, end);
  }
  result.commit(ctx);
  run.end_step();
}

}  // namespace tcert
