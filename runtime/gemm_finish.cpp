// runtime/gemm_finish.cpp — DistributedGemm's last phases: writing C to .npy and --verify.
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "runtime/comm.h"
#include "runtime/counters.h"
#include "runtime/error.h"
#include "runtime/gemm.h"
#include "runtime/linear_map.h"
#include "runtime/npy.h"
#include "runtime/random.h"

namespace tcert {

using i64 = std::int64_t;

namespace {

constexpr std::uint64_t kVerifySamples = 2000;

std::vector<i64> extents_of(const GroupSpec& g) {
  std::vector<i64> e;
  for (const IndexTiling& x : g.indices) e.push_back(x.extent);
  return e;
}

std::uint64_t product(const std::vector<i64>& e) {
  std::uint64_t n = 1;
  for (i64 x : e) n *= static_cast<std::uint64_t>(x);
  return n;
}

/// Row-major multi-index of `linear` over `extents`.
void unflatten(std::uint64_t linear, const std::vector<i64>& extents, i64* values) {
  for (std::size_t d = extents.size(); d-- > 0;) {
    values[d] = static_cast<i64>(linear % static_cast<std::uint64_t>(extents[d]));
    linear /= static_cast<std::uint64_t>(extents[d]);
  }
}

}  // namespace

void DistributedGemm::finish() {
  write_output();
  verify();
}

void DistributedGemm::write_output() {
  const std::string& dir = run_.options().output_dir;
  if (dir.empty()) return;
  PhaseScope phase(Phase::WriteOut);
  const Context& ctx = run_.context();
  const TensorShape& shape = spec_.C.shape;
  std::unique_ptr<NpyWriter> writer;
  std::string temp;
  if (rank_ == 0) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw Error("cannot create output directory " + dir + ": " + ec.message());
    writer = std::make_unique<NpyWriter>(dir + "/" + shape.name + ".npy",
                                         std::vector<std::uint64_t>(shape.extents.begin(), shape.extents.end()));
    temp = writer->temp_path();
  }
  temp = ctx.bcast_string(temp);
  if (owns_result()) {
    std::unique_ptr<NpyPatch> patch;
    if (rank_ != 0) patch = std::make_unique<NpyPatch>(temp);
    double* out = rank_ == 0 ? writer->data() : patch->data();
    const LinearMap map(spec_.C, spec_.I.indices.size());
    result().for_each([&](const i64* rv, const i64* cv, double v) { out[map(rv, cv)] = v; });
    if (patch) patch->sync();
  }
  ctx.barrier();
  if (rank_ == 0) writer->commit();
}

void DistributedGemm::verify() {
  if (!run_.options().verify) return;
  PhaseScope phase(Phase::WriteOut);
  const Context& ctx = run_.context();
  const ElementSource a = run_.input(spec_.A.shape), b = run_.input(spec_.B.shape);
  const std::vector<i64> eI = extents_of(spec_.I), eJ = extents_of(spec_.J), eK = extents_of(spec_.K);
  const std::uint64_t nI = product(eI), nJ = product(eJ), nK = product(eK), total = nI * nJ;
  const std::uint64_t samples = std::min(total, kVerifySamples);
  const LinearMap map_A(spec_.A, eI.size()), map_B(spec_.B, eJ.size());
  std::vector<i64> iv(eI.size() + 1), jv(eJ.size() + 1), kv(eK.size() + 1);
  std::uint64_t checked = 0;
  double max_error = 0;
  for (std::uint64_t s = 0; s < samples && owns_result(); ++s) {
    const std::uint64_t at = samples == total ? s : splitmix64_mix(s + 0x7465636563ULL) % total;
    unflatten(at / nJ, eI, iv.data());
    unflatten(at % nJ, eJ, jv.data());
    const std::optional<double> got = result().element(iv.data(), jv.data());
    if (!got) continue;
    long double sum = 0, magnitude = 0;
    for (std::uint64_t k = 0; k < nK; ++k) {
      unflatten(k, eK, kv.data());
      const long double term =
          static_cast<long double>(a(map_A(iv.data(), kv.data()))) *
          static_cast<long double>(b(map_B(jv.data(), kv.data())));
      sum += term;
      magnitude += std::fabs(term);
    }
    // Error relative to Σ|terms| (the conditioning of the dot product), robust to cancellation.
    const long double exact = spec_.alpha * sum, scale = std::fabs(spec_.alpha) * magnitude;
    const long double error = std::fabs(static_cast<long double>(*got) - exact) / (scale > 0 ? scale : 1);
    max_error = std::max(max_error, static_cast<double>(error));
    ++checked;
  }
  std::uint64_t all_checked = 0;
  for (std::uint64_t n : ctx.gather_u64(checked)) all_checked += n;
  run_.record_verify({all_checked, ctx.max_over_ranks(max_error)});
}

}  // namespace tcert
