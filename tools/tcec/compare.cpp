// tools/tcec/compare.cpp — `tcec compare`: a trace's measured volumes against the prediction.
#include "compare.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include <fmt/format.h>

#include "compare_device.h"
#include "tools/diagnostics.h"

namespace tcec::tools {

namespace {

std::uint64_t total(const std::vector<std::uint64_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
}
std::uint64_t most(const std::vector<std::uint64_t>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

/// One row of a contraction's volume table: its five cells (the volume's name, predicted and
/// measured totals over ranks, predicted and measured largest rank) and the ranks that differ.
struct VolumeRow {
  std::string cells[5];
  std::vector<std::string> differences;
};

/// The rows of `c`'s volume table, header first: the compute stage's volumes, then stages 1 and
/// 3 (redistribution) where the trace has them. Rows of a nest resumed from a checkpoint are
/// "(part)" and not compared. Adds the (volume, rank) pairs that differ to *mismatches.
std::vector<VolumeRow> volume_rows(const TraceContraction& c, int* mismatches) {
  std::vector<VolumeRow> rows;
  rows.push_back({{"volume", "predicted total", "measured total", "predicted max", "measured max"}, {}});
  // One row: `stages` for stages 1 and 3 (redistribution), after the compute stage's rows.
  auto add = [&](const tcert::VolumeField& f, const tcert::RankVolumes& predicted, const tcert::RankVolumes& measured,
                 bool stages) {
    const std::vector<std::uint64_t>&p = predicted.*f.member, &m = measured.*f.member;
    if (f.member == &tcert::RankVolumes::disk_requests && p.empty()) return;      // an older trace (hand-off: none)
    if (tcert::optional_field(f) && (p.empty() || m.size() != p.size())) return;  // planned for one node
    const std::string label = stages ? std::string("redistribution ") + f.label : f.label;
    VolumeRow row{{label, fmt::format("{}", total(p)), fmt::format("{}", total(m)), fmt::format("{}", most(p)),
                   fmt::format("{}", most(m))},
                  {}};
    if (c.resumed_at != 0 && !stages) {  // the nest ran partly before the checkpoint
      row.cells[2] = row.cells[4] = "(part)";
      rows.push_back(std::move(row));
      return;
    }
    for (std::size_t r = 0; r < p.size(); ++r)
      if (p[r] != m[r]) row.differences.push_back(fmt::format("rank {}: predicted {}, measured {}", r, p[r], m[r]));
    *mismatches += static_cast<int>(row.differences.size());
    rows.push_back(std::move(row));
  };
  for (const tcert::VolumeField& f : tcert::kVolumeFields) add(f, c.predicted, c.measured, false);
  if (!c.redistribution_predicted.disk_read_bytes.empty())
    for (const tcert::VolumeField& f : tcert::kStageVolumeFields)
      add(f, c.redistribution_predicted, c.redistribution_measured, true);
  return rows;
}

/// Appends `rows` to `out` in aligned columns, each with its verdict (equal, not compared, or
/// the ranks that differ, listed under it).
void print_volume_rows(std::string& out, const std::vector<VolumeRow>& rows) {
  std::size_t width[5] = {};
  for (const VolumeRow& row : rows)
    for (int i = 0; i < 5; ++i) width[i] = std::max(width[i], row.cells[i].size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const VolumeRow& row = rows[i];
    std::string verdict = i == 0                     ? "per rank"
                          : row.cells[2] == "(part)" ? "not compared"
                          : row.differences.empty()  ? "equal"
                                                     : fmt::format("differs on {} rank{}", row.differences.size(),
                                                                  row.differences.size() == 1 ? "" : "s");
    out += fmt::format("  {:<{}}", row.cells[0], width[0]);
    for (int k = 1; k < 5; ++k) out += fmt::format("  {:>{}}", row.cells[k], width[k]);
    out += fmt::format("  {}\n", verdict);
    for (const std::string& d : row.differences) out += fmt::format("    {}\n", d);
  }
}

/// Appends `c`'s times (predicted and measured seconds of the compute stage, the slowest rank's
/// busy seconds, stages 1 and 3) and its peak tile memory (bytes) against the plan's. Returns 1
/// when the peak exceeded the planned memory (a mismatch), else 0; times never mismatch.
int print_times_and_memory(std::string& out, const TraceContraction& c) {
  if (c.predicted_seconds >= 0)
    out += fmt::format(
        "  time (s): predicted {:.4g} (the model's wall time of the compute stage: disk, network and kernel)\n",
        c.predicted_seconds);
  if (!c.seconds.empty()) {
    const auto slow =
        static_cast<std::size_t>(std::max_element(c.seconds.begin(), c.seconds.end()) - c.seconds.begin());
    out += fmt::format("  time (s): measured {:.4g} .. {:.4g} over ranks",
                       *std::min_element(c.seconds.begin(), c.seconds.end()), c.seconds[slow]);
    if (c.disk_seconds.size() == c.seconds.size() && c.comm_seconds.size() == c.seconds.size() &&
        c.kernel_seconds.size() == c.seconds.size())
      out += fmt::format("; slowest rank {} busy in disk {:.4g}, network {:.4g}, kernel {:.4g}", slow,
                         c.disk_seconds[slow], c.comm_seconds[slow], c.kernel_seconds[slow]);
    out += "\n";
    if (c.predicted_seconds > 0 && c.seconds[slow] > 0)  // informational: timing is not a mismatch
      out += fmt::format("  wall time: predicted / measured (slowest rank) = {:.3f} ({:+.0f}%)\n",
                         c.predicted_seconds / c.seconds[slow], 100.0 * (c.predicted_seconds / c.seconds[slow] - 1.0));
  }
  if (!c.redistribution_seconds.empty() && c.redistribution_predicted_seconds >= 0)
    out += fmt::format("  stages 1 and 3 (s): predicted {:.4g}, measured {:.4g} (slowest rank)\n",
                       c.redistribution_predicted_seconds,
                       *std::max_element(c.redistribution_seconds.begin(), c.redistribution_seconds.end()));
  int mismatches = 0;
  if (!c.peak_tile_memory_bytes.empty()) {
    const std::uint64_t peak = most(c.peak_tile_memory_bytes);
    out += fmt::format("  peak tile memory: {} bytes (largest rank)", peak);
    if (c.planned_memory_bytes > 0) {
      const bool within = peak <= c.planned_memory_bytes;
      out += fmt::format("; planned {} bytes: {}", c.planned_memory_bytes, within ? "within" : "EXCEEDED");
      if (!within) ++mismatches;
    }
    out += "\n";
  }
  return mismatches;
}

/// One contraction's table; returns how many (volume, rank) pairs differ, plus one when the peak
/// tile memory exceeded the plan's, plus the ranks whose device bytes are above the prediction
/// (with `device_slack_bytes`).
int contraction_table(std::string& out, const TraceContraction& c, std::size_t number,
                      std::optional<std::uint64_t> device_slack_bytes) {
  out += fmt::format("contraction {}: {}\n", number, c.statement);
  out += fmt::format("  plan: {}\n", c.plan);
  if (c.resumed_at != 0)
    out += fmt::format(
        "  resumed from a checkpoint inside the contraction after {} of its {} loop-nest steps: the compute stage's "
        "measured volumes are the rest's, not compared\n",
        c.resumed_at, c.nest_steps);
  int mismatches = 0;
  print_volume_rows(out, volume_rows(c, &mismatches));
  mismatches += device_lines(out, c, device_slack_bytes);
  return mismatches + print_times_and_memory(out, c);
}

/// Appends the peak resident memory line (when the trace has it, or a note when a limit is given
/// but it has not); sets *failed when a rank is above the tile memory plus `resident_slack_bytes`.
void resident_line(std::string& out, const Trace& trace, std::optional<std::uint64_t> resident_slack_bytes,
                   bool* failed) {
  if (!trace.peak_resident_bytes.empty()) {  // a failure only against a given limit
    out += fmt::format(
        "peak resident memory: {} bytes (largest rank; MPI, the program and touched mapped files "
        "included), tile memory {} bytes per rank",
        *std::max_element(trace.peak_resident_bytes.begin(), trace.peak_resident_bytes.end()), trace.memory_bytes);
    if (resident_slack_bytes) {
      const std::uint64_t limit = trace.memory_bytes + *resident_slack_bytes;
      std::vector<std::string> above;
      for (std::size_t r = 0; r < trace.peak_resident_bytes.size(); ++r)
        if (trace.peak_resident_bytes[r] > limit)
          above.push_back(fmt::format("rank {} {} bytes", r, trace.peak_resident_bytes[r]));
      out += fmt::format("; limit {} bytes (tile memory + {}): {}", limit, *resident_slack_bytes,
                         above.empty() ? "within" : fmt::format("ABOVE on {}", fmt::join(above, ", ")));
      if (!above.empty()) *failed = true;
    }
    out += "\n";
  } else if (resident_slack_bytes) {
    out += "peak resident memory: not in the trace, so not checked against the limit\n";
  }
}

}  // namespace

std::string compare_report(const Trace& trace, const std::string& path, bool* failed, const CompareLimits& limits) {
  std::string out =
      fmt::format("trace {}: program {}, P = {}, {} contraction{}\n", path, trace.program.empty() ? "?" : trace.program,
                  trace.processors, trace.contractions.size(), trace.contractions.size() == 1 ? "" : "s");
  int mismatches = 0;
  for (std::size_t i = 0; i < trace.contractions.size(); ++i)
    mismatches += contraction_table(out, trace.contractions[i], i + 1, limits.device_slack_bytes);
  *failed = mismatches > 0;
  if (trace.verify) {
    const TraceVerify& v = *trace.verify;
    out += fmt::format("verify: {} elements checked, max relative error {:.3g}: {}\n", v.checked, v.max_rel_error,
                       v.passed ? "passed" : "FAILED");
    if (!v.passed) *failed = true;
  }
  resident_line(out, trace, limits.resident_slack_bytes, failed);
  if (trace.imported && trace.exported) {  // informational: outside the contractions, not predicted
    const auto sum = [](const std::vector<std::uint64_t>& v) {
      return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
    };
    const auto slowest = [](const std::vector<double>& v) {
      return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
    };
    const TraceTransfers &in = *trace.imported, &out_files = *trace.exported;
    if (sum(in.read_bytes) + sum(out_files.write_bytes) > 0)
      out += fmt::format(
          "files (outside the contractions, all ranks): HDF5 inputs imported {} B read + {} B written "
          "({:.3f} s), outputs exported {} B read + {} B written ({:.3f} s)\n",
          sum(in.read_bytes), sum(in.write_bytes), slowest(in.seconds), sum(out_files.read_bytes),
          sum(out_files.write_bytes), slowest(out_files.seconds));
  }
  const int device_above = device_run_line(out, trace, limits.device_slack_bytes);
  if (device_above > 0) *failed = true, mismatches += device_above;
  if (limits.device_slack_bytes && !trace.device)
    out += "device bytes: not in the trace (a program built before they were traced), so not checked\n";
  if (mismatches == 0) {
    out += "all measured volumes equal the prediction\n";
  } else {
    out += fmt::format("{} mismatch{}\n", mismatches, mismatches == 1 ? "" : "es");
  }
  return out;
}

int run_compare(const std::string& path, const CompareLimits& limits) {
  std::string error;
  const std::optional<Trace> trace = read_trace(path, &error);
  if (!trace) {
    report("tcec", ToolDiag::err_formed, error);
    return 1;
  }
  bool failed = false;
  std::fputs(compare_report(*trace, path, &failed, limits).c_str(), stdout);
  return failed ? 1 : 0;
}

}  // namespace tcec::tools
