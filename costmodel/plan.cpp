// costmodel/plan.cpp — the Plan value type: what every method shares, and the dispatch to the
// plan's method (method.h) for its text, volumes, buffers and validity.
#include "costmodel/plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "costmodel/method_model.h"
#include "costmodel/plan_codec.h"
#include "costmodel/reasons.h"

namespace tcec::costmodel {

std::int64_t GroupTiling::extent() const {
  std::int64_t n = 1;
  for (const IndexTiles& x : indices) n *= x.extent;
  return n;
}
std::int64_t GroupTiling::t1() const {
  std::int64_t n = 1;
  for (const IndexTiles& x : indices) n *= x.t1;
  return n;
}
std::int64_t GroupTiling::t2() const {
  std::int64_t n = 1;
  for (const IndexTiles& x : indices) n *= x.t2;
  return n;
}

TileCounts Plan::tile_counts() const {
  auto d = [](std::int64_t v) { return static_cast<double>(v); };
  return {d(I.t1()), d(I.t2()), d(J.t1()), d(J.t2()), d(K.t1()), d(K.t2())};
}

const char* split_name(MemorySplit split) { return split == MemorySplit::Thirds ? "thirds" : "optimal"; }

std::string Plan::to_string() const { return codec_of(*this).plan_text(*this) + (accumulate ? " C0=current" : ""); }

TileBytes tile_bytes(const Plan& plan, double element_size_bytes) {
  return model_of(plan).tile_bytes(plan, element_size_bytes);
}

bool fits_memory_exact(const Plan& plan, const Machine& machine, std::string* reason) {
  const TileBytes t = tile_bytes(plan, machine.element_size_bytes);
  const int sets = model_of(plan).buffer_sets(plan);  // 2 with overlap's second buffers
  const double total = static_cast<double>(sets) * static_cast<double>(t.A + t.B + t.C);
  if (plan.split == MemorySplit::Optimal) {
    if (total <= machine.memory_bytes) return true;
    if (reason) {
      const std::string terms = fmt::format("{} + {} + {}", t.A, t.B, t.C);
      *reason = reason_text(ReasonId::tiles_exceed_memory, sets == 1 ? terms : fmt::format("{} x ({})", sets, terms),
                            total, machine.memory_bytes);
    }
    return false;
  }
  const double M = machine.array_memory_bytes() / sets;
  const std::uint64_t bytes[] = {t.A, t.B, t.C};
  for (int i = 0; i < 3; ++i) {
    if (static_cast<double>(bytes[i]) <= M) continue;
    if (reason) *reason = reason_text(ReasonId::tile_exceeds_third, "ABC"[i], bytes[i], M);
    return false;
  }
  return true;
}

bool check_valid(const Plan& plan, const Machine& machine, std::string* reason) {
  if (plan.processors != machine.processors) {
    if (reason) *reason = reason_text(ReasonId::plan_other_machine, plan.processors, machine.processors);
    return false;
  }
  return codec_of(plan).check_valid(plan, machine, reason);
}

double rank_time_s(double factor, const Machine& m, std::uint64_t read_bytes, std::uint64_t write_bytes,
                   std::uint64_t recv_bytes, std::uint64_t internode_recv_bytes) {
  return static_cast<double>(read_bytes) / m.disk_read_bytes_per_s +
         static_cast<double>(write_bytes) / m.disk_write_bytes_per_s +
         factor * m.network_s(static_cast<double>(recv_bytes), static_cast<double>(internode_recv_bytes));
}

double rank_time_s(const Plan& plan, const Machine& m, std::uint64_t read_bytes, std::uint64_t write_bytes,
                   std::uint64_t recv_bytes, std::uint64_t internode_recv_bytes) {
  return rank_time_s(model_of(plan).collective_factor(plan, m), m, read_bytes, write_bytes, recv_bytes,
                     internode_recv_bytes);
}

std::uint64_t internode_recv(const PlanVolumes& v, std::size_t r) {
  return r < v.internode_recv_bytes.size() ? v.internode_recv_bytes[r] : 0;
}

void append_rank(PlanVolumes& v, double factor, const Machine& machine, std::uint64_t read_elems,
                 std::uint64_t write_elems, std::uint64_t sent_elems, std::uint64_t recv_elems,
                 std::pair<std::uint64_t, std::uint64_t> crossing) {
  const auto e = static_cast<std::uint64_t>(machine.element_size_bytes);
  v.disk_read_bytes.push_back(read_elems * e);
  v.disk_write_bytes.push_back(write_elems * e);
  v.comm_sent_bytes.push_back(sent_elems * e);
  v.comm_recv_bytes.push_back(recv_elems * e);
  if (machine.nodes() > 1) {
    v.internode_sent_bytes.push_back(crossing.first * e);
    v.internode_recv_bytes.push_back(crossing.second * e);
  }
  v.time_s = std::max(
      v.time_s, rank_time_s(factor, machine, read_elems * e, write_elems * e, recv_elems * e, crossing.second * e));
}

tcert::RankVolumes rank_volumes(const PlanVolumes& v) {
  return {v.disk_read_bytes,      v.disk_write_bytes,     v.comm_sent_bytes, v.comm_recv_bytes,
          v.internode_sent_bytes, v.internode_recv_bytes, v.disk_requests};
}

tcert::RankVolumes stage_volumes(const PlanVolumes& v) {
  tcert::RankVolumes out;  // the comm fields stay empty
  out.disk_read_bytes = v.disk_read_bytes, out.disk_write_bytes = v.disk_write_bytes;
  out.internode_sent_bytes = v.internode_sent_bytes, out.internode_recv_bytes = v.internode_recv_bytes;
  out.disk_requests = v.disk_requests;
  return out;
}

PlanVolumes plan_volumes(const Plan& plan, const Machine& machine) {
  PlanVolumes v = plan_volumes(plan, machine, 0, plan.processors);
  plan_wall(plan, machine, v);
  return v;
}

double gemm_efficiency(double m, double n, double k) {
  const auto e = [](double m, double n, double k) {
    auto f = [](double x, double half) { return std::max(x, 1.0) / (std::max(x, 1.0) + half); };
    return f(m, 12) * f(n, 32) * f(k, 8);  // runtime/kernel/kernel_plan.cpp efficiency()
  };
  return std::min(1.05, e(m, n, k) / e(768, 768, 768));
}

double gemm_efficiency(double m, double n, double k, const Machine& machine) {
  const double shape = gemm_efficiency(m, n, k);
  if (machine.memory_bytes_per_s <= 0) return shape;
  m = std::max(m, 1.0), n = std::max(n, 1.0), k = std::max(k, 1.0);
  const double e = machine.element_size_bytes, tile_C = e * m * n;
  // Roofline (Williams et al. 2009): a call takes at least the time to stream its panels, and
  // its C tile in and out when that does not stay in the cache between calls.
  const double bytes = e * k * (m + n) + (tile_C > kKernelCacheBytes ? 2.0 * tile_C : 0.0);
  const double compute_s = 2.0 * m * n * k / (machine.flops_per_s * shape);
  const double stream_s = bytes / machine.memory_bytes_per_s;
  return shape * compute_s / std::max(compute_s, stream_s);
}

namespace {

/// Rank r's time of its disk requests and page faults beyond their bytes (seconds).
double request_time_s(const Machine& machine, const PlanVolumes& v, std::size_t r) {
  const auto at = [r](const std::vector<std::uint64_t>& x) { return r < x.size() ? static_cast<double>(x[r]) : 0.0; };
  return machine.disk_latency_s * at(v.disk_requests) + machine.page_fault_s * at(v.page_faults);
}

}  // namespace

WallParts wall_parts(const Plan& plan, const Machine& machine, const PlanVolumes& v, std::size_t r) {
  const MethodModel& method = model_of(plan);
  WallParts w;
  w.overlap = method.buffer_sets(plan) > 1;
  if (w.overlap) {  // Gao et al.'s tiles: the first of A and B are read, the last of C written, alone
    const TileBytes t = tile_bytes(plan, machine.element_size_bytes);
    w.fill = static_cast<double>(t.A + t.B) / machine.disk_read_bytes_per_s +
             static_cast<double>(t.C) / machine.disk_write_bytes_per_s;
  }
  const auto read = static_cast<double>(v.disk_read_bytes[r]), write = static_cast<double>(v.disk_write_bytes[r]);
  w.disk = read / machine.disk_read_bytes_per_s + write / machine.disk_write_bytes_per_s;
  if (w.overlap && machine.disk_mixed_bytes_per_s > 0 && r < v.disk_read_C_bytes.size()) {
    // Two I/O threads at once (A and B; C), the device serving both: the longer thread, or all
    // the bytes at the device's rate for reads and writes together, whichever is longer
    // (docs/model.md "Reads and writes at once"; beyond Gao et al., whose disk time is the sum).
    const auto read_C = static_cast<double>(v.disk_read_C_bytes[r]);
    w.disk = std::max({(read - read_C) / machine.disk_read_bytes_per_s,
                       read_C / machine.disk_read_bytes_per_s + write / machine.disk_write_bytes_per_s,
                       (read + write) / machine.disk_mixed_bytes_per_s});
  }
  w.disk += request_time_s(machine, v, r);
  w.network = method.collective_factor(plan, machine) *
              machine.network_s(static_cast<double>(v.comm_recv_bytes[r]), static_cast<double>(internode_recv(v, r)));
  const auto rank = static_cast<std::int64_t>(r);
  w.kernel = method.rank_flops(plan, rank) / (machine.flops_per_s * method.kernel_efficiency(plan, machine, rank));
  if (w.overlap) {  // the part of the shorter that does not hide behind the longer adds to it
    const double busy = w.network + w.kernel;
    const double requests = r < v.disk_requests.size() ? static_cast<double>(v.disk_requests[r]) : 0.0;
    const double overlap = machine.overlap_for(read + write, requests);
    w.wall = std::max(w.disk, busy) + (1.0 - overlap) * std::min(w.disk, busy) + w.fill;
  } else {
    w.wall = w.disk + w.network + w.kernel;
  }
  return w;
}

WallParts slowest_wall_parts(const Plan& plan, const Machine& machine, const PlanVolumes& v) {
  WallParts slowest;
  for (std::size_t r = 0; r < v.disk_read_bytes.size(); ++r) {
    const WallParts w = wall_parts(plan, machine, v, r);
    if (r == 0 || w.wall > slowest.wall) slowest = w;
  }
  return slowest;
}

void plan_wall(const Plan& plan, const Machine& machine, PlanVolumes& v) {
  v.kernel_s = v.wall_s = 0;
  for (std::size_t r = 0; r < v.disk_read_bytes.size(); ++r) {
    const WallParts w = wall_parts(plan, machine, v, r);
    v.kernel_s = std::max(v.kernel_s, w.kernel);
    v.wall_s = std::max(v.wall_s, w.wall);
  }
}

PlanVolumes plan_volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank, std::int64_t end_rank) {
  return model_of(plan).volumes(plan, machine, first_rank, end_rank);
}

PlanVolumes simulate(const Plan& plan, const Machine& machine) { return model_of(plan).walk(plan, machine); }

void redistribution_requests(const Plan& plan, const Machine& machine, const StageAccess& access, PlanVolumes& r,
                             const std::vector<std::uint64_t>& extra) {
  r.disk_requests = model_of(plan).stage_requests(plan, access);
  for (std::size_t q = 0; q < extra.size() && q < r.disk_requests.size(); ++q) r.disk_requests[q] += extra[q];
  if (machine.disk_latency_s <= 0) return;
  r.time_s = 0;
  for (std::size_t q = 0; q < r.disk_requests.size(); ++q)  // point-to-point moves: no collective factor
    r.time_s = std::max(r.time_s, rank_time_s(1.0, machine, r.disk_read_bytes[q], r.disk_write_bytes[q],
                                              r.comm_recv_bytes[q], internode_recv(r, q)) +
                                      machine.disk_latency_s * static_cast<double>(r.disk_requests[q]));
}

void plan_requests(const Plan& plan, const Machine& machine, const ArrayAccess& access, PlanVolumes& v) {
  const MethodModel& method = model_of(plan);
  v.disk_requests = method.disk_requests(plan, access);
  v.page_faults.clear();
  if (machine.page_fault_s > 0) v.page_faults = method.page_faults(plan, access);
  if (machine.disk_latency_s <= 0 && v.page_faults.empty()) return;  // Gao et al.'s time, bit for bit
  const double factor = method.collective_factor(plan, machine);
  v.time_s = 0;
  for (std::size_t r = 0; r < v.disk_requests.size(); ++r)
    v.time_s = std::max(v.time_s, rank_time_s(factor, machine, v.disk_read_bytes[r], v.disk_write_bytes[r],
                                              v.comm_recv_bytes[r], internode_recv(v, r)) +
                                      request_time_s(machine, v, r));
  plan_wall(plan, machine, v);
}

}  // namespace tcec::costmodel
