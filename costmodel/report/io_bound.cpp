// costmodel/report/io_bound.cpp — io_bound(): the I/O lower bound of one contraction whose
// operands start in files and whose result ends in one, and the chosen plan against it.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "costmodel/analysis.h"

namespace tcec::costmodel {

IoBound io_bound(const ContractionAnalysis& a, const Machine& machine) {
  IoBound b;
  const double P = static_cast<double>(machine.processors);
  const double m = a.problem.I, n = a.problem.J, k = a.problem.K, e = machine.element_size_bytes;
  const double words = machine.memory_bytes / e;
  // A symmetric result (C = A·Aᵀ, ir MacroIndexGemm::symmetric) has one operand, and the SYRK
  // bound (Beaumont et al. Corollary 4.7, analysis.h) in place of Theorem 1, which TBS beats.
  b.symmetric = a.gemm.symmetric && !a.accumulate;
  // (a) Compulsory: each operand's share read once from its file (and C's current values when
  // the statement adds to them), the result's share written once.
  b.compulsory_read_bytes = (a.problem.A + (b.symmetric ? 0 : a.problem.B) + (a.accumulate ? a.problem.C : 0)) / P;
  b.compulsory_write_bytes = a.problem.C / P;
  // (b) Kwasniewski et al. Theorem 1: words a rank must load or store (its I/O with the rest
  // of the machine: disks and other ranks); symmetric: Beaumont et al.'s SYRK bound, which
  // counts the loads of A and the traffic of C together (a plan holding whole rows of A for a
  // short K reads less A than N²M/(√2·P·√S) and writes C).
  b.theorem1_bytes = b.symmetric ? syrk_lower_bound_words(m, k, P, words) * e : a.lower_bound_bytes_per_rank;
  // (c) The machine's memories as one: the ranks' P·S words together are a fast memory of a
  // sequential machine whose slow memory is the P disks, and moving data between ranks costs
  // nothing in that relaxation. Kwasniewski et al. Theorem 1 (sequential: 2mnk/√S + mn loads
  // and stores, S := P·S; symmetric: Beaumont et al. Corollary 4.7, mnk/√(2S), at least the
  // result's mn stores) then bounds the disk traffic of all ranks together; the fullest rank carries at
  // least 1/P of it. Of that traffic mn words are the result's writes (at B_dw), the rest costs
  // at least its bytes at the faster disk direction.
  b.aggregate_bytes = b.symmetric ? std::max(m * n * k / std::sqrt(2.0 * P * words), m * n) * e / P
                                  : (2.0 * m * n * k / std::sqrt(P * words) + m * n) * e / P;
  const double compulsory = b.compulsory_read_bytes + b.compulsory_write_bytes;
  b.binds = compulsory >= std::max(b.theorem1_bytes, b.aggregate_bytes) ? IoBound::Binds::compulsory
            : b.theorem1_bytes >= b.aggregate_bytes                     ? IoBound::Binds::theorem1
                                                                        : IoBound::Binds::aggregate;
  b.bytes = std::max({compulsory, b.theorem1_bytes, b.aggregate_bytes});
  // Time: the compulsory reads at B_dr and writes at B_dw, Theorem 1's words at the fastest
  // channel, or (c)'s result writes at B_dw and the rest at the faster disk direction,
  // whichever is longest.
  const double fastest =
      std::max({machine.disk_read_bytes_per_s, machine.disk_write_bytes_per_s, machine.network_bytes_per_s});
  const double result_writes = m * n * e / P;
  const double times[] = {
      b.compulsory_read_bytes / machine.disk_read_bytes_per_s +
          b.compulsory_write_bytes / machine.disk_write_bytes_per_s,
      b.theorem1_bytes / fastest,
      (b.aggregate_bytes - result_writes) / std::max(machine.disk_read_bytes_per_s, machine.disk_write_bytes_per_s) +
          result_writes / machine.disk_write_bytes_per_s};
  const auto longest = std::max_element(std::begin(times), std::end(times));
  b.time_s = *longest;
  b.time_binds = static_cast<IoBound::Binds>(longest - std::begin(times));
  if (!a.plan().feasible) return b;
  // The plan: every byte its fullest rank reads, receives and writes, both stages together.
  const PlanVolumes& v = a.plan().volumes;
  const PlanVolumes& r = a.plan().redistribution;
  for (std::size_t q = 0; q < v.disk_read_bytes.size(); ++q) {
    const double moved = static_cast<double>(v.disk_read_bytes[q] + v.comm_recv_bytes[q] + v.disk_write_bytes[q]) +
                         (q < r.disk_read_bytes.size()
                              ? static_cast<double>(r.disk_read_bytes[q] + r.comm_recv_bytes[q] + r.disk_write_bytes[q])
                              : 0.0);
    b.plan_bytes = std::max(b.plan_bytes, moved);
  }
  b.plan_time_s = a.plan().total_s();
  return b;
}

namespace {

const char* binds_text(IoBound::Binds binds, bool symmetric) {
  switch (binds) {
    case IoBound::Binds::compulsory: return "compulsory I/O";
    case IoBound::Binds::theorem1: return symmetric ? "SYRK bound" : "Theorem 1";
    case IoBound::Binds::aggregate: return "disks of all memories";
  }
  return "";
}

}  // namespace

std::string io_bound_text(const IoBound& b) {
  return fmt::format(
      "    I/O lower bound per rank: {} ({} binds: compulsory reads {} + writes {}; {} {}; "
      "disks of all memories {}), {:.5g} s ({} binds); the plan moves {} in {:.5g} s: {:.3f}x in bytes, {:.3f}x in "
      "time\n",
      human_bytes(b.bytes), binds_text(b.binds, b.symmetric), human_bytes(b.compulsory_read_bytes),
      human_bytes(b.compulsory_write_bytes), b.symmetric ? "SYRK bound" : "Theorem 1", human_bytes(b.theorem1_bytes),
      human_bytes(b.aggregate_bytes), b.time_s, binds_text(b.time_binds, b.symmetric), human_bytes(b.plan_bytes),
      b.plan_time_s, b.plan_bytes / b.bytes, b.plan_time_s / b.time_s);
}

nlohmann::json io_bound_json(const IoBound& b) {
  static constexpr const char* kBinds[] = {"compulsory", "theorem1", "aggregate"};
  return {{"binds", kBinds[static_cast<int>(b.binds)]},
          {"time_binds", kBinds[static_cast<int>(b.time_binds)]},
          {"symmetric", b.symmetric},
          {"compulsory_read_bytes", b.compulsory_read_bytes},
          {"compulsory_write_bytes", b.compulsory_write_bytes},
          {"theorem1_bytes", b.theorem1_bytes},
          {"aggregate_bytes", b.aggregate_bytes},
          {"bytes", b.bytes},
          {"time_s", b.time_s},
          {"plan_bytes", b.plan_bytes},
          {"plan_time_s", b.plan_time_s},
          {"bytes_ratio", b.bytes > 0 ? b.plan_bytes / b.bytes : 0.0},
          {"time_ratio", b.time_s > 0 ? b.plan_time_s / b.time_s : 0.0}};
}

}  // namespace tcec::costmodel
