// runtime/methods/contraction_steps.cpp — the phases executors share: compute record, write-out, verify.
#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/base/memory.h"
#include "runtime/base/random.h"
#include "runtime/comm/comm.h"
#include "runtime/index/linear_map.h"
#include "runtime/index/split_map.h"
#include "runtime/methods/contraction_steps.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/units.h"
#include "runtime/storage/mapped_walk.h"
#include "runtime/storage/npy.h"

namespace tcert {

using i64 = std::int64_t;

namespace {

constexpr std::uint64_t kVerifySamples = 2000;

}  // namespace

void begin_contraction(Run& run, const GemmSpec& spec) {
  const std::uint64_t memory = budget().limit_bytes();
  check_spec(spec, run.context().size(), memory);
  budget().reset_peak();
  const std::uint64_t planned = spec.planned_memory_bytes > 0 ? spec.planned_memory_bytes : memory;
  run.mapped().bound_pages(std::max(planned, budget().in_use_bytes()));
}

void compute_phase(Run& run, const GemmSpec& spec, std::unique_ptr<Progress>& progress,
                   const std::function<void()>& body) {
  const Context& ctx = run.context();
  counters().begin_section(spec.statement);
  {
    PhaseScope phase(Phase::Compute);
    progress = std::make_unique<Progress>(spec.statement, run.shows_progress());
    body();
    progress->finish();
  }
  // The step's peak since its constructor (load stage included) against the plan's.
  if (spec.planned_memory_bytes > 0 && budget().peak_bytes() > spec.planned_memory_bytes)
    throw Error(fmt::format("internal error: {}: the plan said {} bytes of memory per rank but the step used {}",
                            spec.statement, spec.planned_memory_bytes, budget().peak_bytes()));
  const Volumes v = counters().end_section().by_phase[static_cast<std::size_t>(Phase::Compute)];
  if (!run.records().keeps()) return;
  ContractionRecord rec;
  rec.statement = spec.statement, rec.plan = spec.plan;
  const GaoSpec* gao = std::get_if<GaoSpec>(&spec.method);
  rec.order = gao ? to_string(gao->order) : "-";  // only Gao plans have a disk placement order
  rec.predicted_seconds = spec.predicted_seconds;
  rec.redistribution_predicted = spec.predicted_redistribution;
  rec.redistribution_predicted_seconds = spec.predicted_redistribution_seconds;
  std::tie(rec.comm, rec.algorithm) = std::visit([](const auto& m) { return trace_names(m); }, spec.method);
  // Every rank's figures in one all-gather (a step's collectives cost more than its work on small
  // steps): the five volumes, four busy times in nanoseconds, the peak memory.
  auto ns = [](double seconds) { return static_cast<std::uint64_t>(seconds * 1e9); };
  std::vector<std::vector<std::uint64_t>> all =
      ctx.gather_u64s({v.disk_read_bytes, v.disk_write_bytes, v.comm_sent_bytes, v.comm_recv_bytes, v.disk_requests,
                       ns(v.seconds), ns(v.disk_seconds), ns(v.comm_seconds), ns(v.kernel_seconds),
                       budget().peak_bytes(), v.internode_sent_bytes, v.internode_recv_bytes});
  rec.predicted = spec.predicted;
  rec.measured = {.disk_read_bytes = std::move(all[0]),
                  .disk_write_bytes = std::move(all[1]),
                  .comm_sent_bytes = std::move(all[2]),
                  .comm_recv_bytes = std::move(all[3]),
                  .internode_sent_bytes = {},
                  .internode_recv_bytes = {},
                  .disk_requests = std::move(all[4])};
  if (!spec.predicted.internode_sent_bytes.empty()) {  // planned for several nodes
    rec.measured.internode_sent_bytes = std::move(all[10]);
    rec.measured.internode_recv_bytes = std::move(all[11]);
  }
  std::vector<double>* seconds[4] = {&rec.seconds, &rec.disk_seconds, &rec.comm_seconds, &rec.kernel_seconds};
  for (std::size_t t = 0; t < 4; ++t)
    for (std::uint64_t n : all[5 + t]) seconds[t]->push_back(static_cast<double>(n) * 1e-9);
  rec.peak_tile_memory_bytes = all[9];
  rec.planned_memory_bytes = spec.planned_memory_bytes;
  run.records().record(std::move(rec));
}

Volumes redistribution_now() { return counters().snapshot(Phase::Redistribute); }

void record_redistribution(Run& run, const Volumes& mine) {
  if (!run.records().keeps()) return;
  std::vector<std::vector<std::uint64_t>> all = run.context().gather_u64s(
      {mine.disk_read_bytes, mine.disk_write_bytes, mine.disk_requests, static_cast<std::uint64_t>(mine.seconds * 1e9),
       mine.internode_sent_bytes, mine.internode_recv_bytes});
  std::vector<double> seconds;
  for (std::uint64_t ns : all[3]) seconds.push_back(static_cast<double>(ns) * 1e-9);
  run.records().record_redistribution(std::move(all[0]), std::move(all[1]), std::move(all[2]), std::move(seconds),
                                      {std::move(all[4]), std::move(all[5])});
}

DirectResult::Update update_of_C(const Run& run, const GemmSpec& spec) {
  return spec.accumulate && run.store().updates_in_place(spec.C.shape.name, {spec.A.shape.name, spec.B.shape.name})
             ? DirectResult::Update::InPlace
             : DirectResult::Update::NextVersion;
}

std::optional<ElementSource> initial_C(Run& run, const GemmSpec& spec) {
  if (!spec.accumulate || run.store().latest(spec.C.shape.name).empty()) return std::nullopt;
  return run.input(spec.C.shape);
}

void store_version(Run& run, const TensorBinding& tensor, std::size_t row_count, bool owns, const ResultVisitor& visit,
                   DirectResult::Update update) {
  DirectResult result(run, tensor.shape, owns, update);
  result.commit(run.context(), [&] {
    if (!owns) return;
    const LinearMap map(tensor, row_count);
    std::uint64_t written = 0;
    RunCounter requests;
    MappedWalk walk(kMappedPageBytes);
    std::vector<std::uint64_t> col_parts, row_parts;
    visit([&](const i64* rv, const i64* cv, std::size_t R, std::size_t C, const double* block) {
      // Each run of adjacent elements in the tensor at once.
      for_each_run_of_block(map, rv, cv, R, C, col_parts, row_parts,
                            [&](std::uint64_t at, std::size_t n, std::size_t e, std::size_t step) {
                              requests.span(at, n);
                              result.write(walk, at, n, block + e, step);  // mapped: a bounded part resident
                            });
      result.flush();  // streamed: the block's runs, in few requests
      written += R * C;
      requests.add();  // one transfer per block
    });
    counters().add_disk_write(bytes_of(written));  // into the tensor's file (mapped, so counted here)
  });
}

void write_result(Run& run, const GemmSpec& spec, bool owns, const ResultVisitor& visit) {
  PhaseScope phase(Phase::Redistribute);  // Gao et al. §2.3 stage 3
  store_version(run, spec.C, spec.I.indices.size(), owns, visit, update_of_C(run, spec));
}

void write_result_block(Run& run, const GemmSpec& spec, bool owns, i64 row0, i64 col0, i64 cols, i64 first, i64 end,
                        const double* block) {
  PhaseScope phase(Phase::Redistribute);  // Gao et al. §2.3 stage 3
  DirectResult result(run, spec.C.shape, owns, update_of_C(run, spec));
  result.commit(run.context(), [&] {
    if (!owns || end <= first) return;
    SplitMap map(spec.C, extents_of(spec.I), extents_of(spec.J));
    const i64 row_first = first / cols;  // the block's rows the range meets
    std::vector<std::uint64_t> row_part, col_part;
    map.rows(row0 + row_first, (end - 1) / cols - row_first + 1, row_part);
    map.cols(col0, cols, col_part);
    RunCounter requests;
    MappedWalk walk(kMappedPageBytes);
    for_each_run_of_view(
        first, end - first, cols, col_part, consecutive_runs(col_part),
        [&](i64 r) { return row_part[static_cast<std::size_t>(r - row_first)]; },
        [&](std::uint64_t at, std::size_t n, i64 e) {
          requests.span(at, n);
          result.write(walk, at, n, block + first + e);
        });
    result.flush();
    counters().add_disk_write(bytes_of(static_cast<std::uint64_t>(end - first)));  // into C's file (mapped)
    requests.add();
  });
}

void keep_result(Run& run, const GemmSpec& spec, Placement placement, std::unique_ptr<TiledMatrix> file) {
  KeptTensor kept{spec.C.shape, std::move(placement), std::move(file)};
  if (run.options().verify) {  // a shadow in the store for the checks; not a counted phase
    PhaseScope phase(Phase::WriteOut);
    store_version(run, spec.C, spec.I.indices.size(), kept.file != nullptr,
                  [&](const BlockVisit& visit) { kept.file->read_blocks(visit); });
    kept.shadowed = true;
  }
  run.kept().keep(std::move(kept));
}

void flush_kept(Run& run, const std::string& name) {
  const std::unique_ptr<KeptTensor> kept = run.kept().withdraw(name);
  if (!kept) return;
  PhaseScope phase(Phase::Redistribute);  // the producing step's deferred stage 3
  store_version(run, TensorBinding{kept->shape, kept->placement.perm}, kept->placement.rows.indices().size(),
                kept->file != nullptr, [&](const BlockVisit& visit) { kept->file->read_blocks(visit); });
  if (kept->file) kept->file->file().remove();
}

void take_kept(Run& run, const std::string& name, const Placement& to, TiledMatrix* target) {
  KeptTensor* kept = run.kept().find(name);
  if (!kept) throw Error("tensor " + name + " should be kept on the ranks by an earlier step but is not");
  PhaseScope phase(Phase::Redistribute);  // Gao et al. §2.3 stage 1, rank to rank
  move_tensor(run.context(), kept->placement, kept->file.get(), to, target);
}

void finish_in_place(Run& run, const GemmSpec& spec, DirectResult& result, const Volumes& mine, bool owns,
                     const std::function<bool(const std::int64_t*, const std::int64_t*)>& holds) {
  const Volumes before = redistribution_now();  // a store of one directory per node completes the version
  result.commit(run.context());
  Volumes recorded = mine;
  recorded += redistribution_now() - before;
  record_redistribution(run, recorded);
  const LinearMap map_C(spec.C, spec.I.indices.size());
  std::optional<ElementSource> stored;  // the committed version, opened at the first lookup
  verify_result(run, spec, owns, [&](const i64* rv, const i64* cv) -> std::optional<double> {
    if (!holds(rv, cv)) return std::nullopt;
    if (!stored) stored = run.input(spec.C.shape);
    return (*stored)(map_C(rv, cv));
  });
  run.end_step();
}

void verify_result(Run& run, const GemmSpec& spec, bool owns, const ResultLookup& lookup) {
  if (!run.options().verify) return;
  PhaseScope phase(Phase::WriteOut);
  const Context& ctx = run.context();
  const ElementSource a = run.input(spec.A.shape), b = run.input(spec.B.shape);
  std::optional<ElementSource> c0;  // the version this step started from
  if (spec.accumulate && !run.store().previous(spec.C.shape.name).empty())
    c0 = run.mapped().read_npy(run.store().previous(spec.C.shape.name), spec.C.shape);
  const LinearMap map_C(spec.C, spec.I.indices.size());
  const std::vector<i64> eI = extents_of(spec.I), eJ = extents_of(spec.J), eK = extents_of(spec.K);
  const auto nI = static_cast<std::uint64_t>(product(eI)), nJ = static_cast<std::uint64_t>(product(eJ)),
             nK = static_cast<std::uint64_t>(product(eK)), total = nI * nJ;
  const std::uint64_t samples = std::min(total, kVerifySamples);
  const LinearMap map_A(spec.A, eI.size()), map_B(spec.B, eJ.size());
  std::vector<i64> iv(eI.size() + 1), jv(eJ.size() + 1), kv(eK.size() + 1);
  std::uint64_t checked = 0;
  double max_error = 0;
  for (std::uint64_t s = 0; s < samples && owns; ++s) {
    const std::uint64_t at = samples == total ? s : splitmix64_mix(s + 0x7465636563ULL) % total;
    unflatten(at / nJ, eI, iv.data());
    unflatten(at % nJ, eJ, jv.data());
    const std::optional<double> got = lookup(iv.data(), jv.data());
    if (!got) continue;
    long double sum = 0, magnitude = 0;
    // What the reads may make resident of A's and B's mappings (a column of a row-major operand
    // touches a window per element): kept bounded by MappedInputs::touched as they go.
    MappedWalk walk_A(kFaultAroundBytes), walk_B(kFaultAroundBytes);
    for (std::uint64_t k = 0; k < nK; ++k) {
      unflatten(k, eK, kv.data());
      const std::uint64_t at_A = map_A(iv.data(), kv.data()), at_B = map_B(jv.data(), kv.data());
      run.mapped().touched((a.data() ? walk_A.touch(at_A) : 0) + (b.data() ? walk_B.touch(at_B) : 0));
      const long double term = static_cast<long double>(a(at_A)) * static_cast<long double>(b(at_B));
      sum += term;
      magnitude += std::fabs(term);
    }
    // Error relative to Σ|terms| (the conditioning of the dot product), robust to cancellation.
    const long double start = c0 ? static_cast<long double>((*c0)(map_C(iv.data(), jv.data()))) : 0;
    const long double exact = start + spec.alpha * sum, scale = std::fabs(start) + std::fabs(spec.alpha) * magnitude;
    const long double error = std::fabs(static_cast<long double>(*got) - exact) / (scale > 0 ? scale : 1);
    max_error = std::max(max_error, static_cast<double>(error));
    ++checked;
    run.mapped().touched((c0 ? 2 : 1) * kFaultAroundBytes);  // the element of C looked up, and of c0
  }
  std::uint64_t all_checked = 0;
  for (std::uint64_t n : ctx.gather_u64(checked)) all_checked += n;
  run.records().record_verify({all_checked, ctx.max_over_ranks(max_error)});
}

}  // namespace tcert
