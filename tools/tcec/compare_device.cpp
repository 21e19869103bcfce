// tools/tcec/compare_device.cpp — device bytes against the predicted disk volumes.
#include "compare_device.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include <fmt/format.h>

namespace tcec::tools {

namespace {

using Counts = std::vector<std::uint64_t>;

/// The disk volumes the device's read and write bytes (in that order) are held against.
constexpr Counts tcert::RankVolumes::*kDiskFields[2] = {&tcert::RankVolumes::disk_read_bytes,
                                                        &tcert::RankVolumes::disk_write_bytes};

std::uint64_t total(const Counts& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); }
std::uint64_t most(const Counts& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

/// One line "  LABEL: D total, D max; predicted WHAT P total, P max: VERDICT" and the ranks above
/// predicted + slack under it; returns how many ranks are above (0 when not checked).
int device_line(std::string& out, const std::string& label, const std::string& what, const Counts& predicted,
                const Counts& device, std::optional<std::uint64_t> slack_bytes, const std::string& unchecked) {
  out += fmt::format("  {}: {} total, {} max; predicted {} {} total, {} max: ", label, total(device), most(device),
                     what, total(predicted), most(predicted));
  if (!slack_bytes || !unchecked.empty()) {
    out += unchecked.empty() ? "not checked (--device)\n" : unchecked + "\n";
    return 0;
  }
  std::vector<std::string> above;
  for (std::size_t r = 0; r < device.size() && r < predicted.size(); ++r)
    if (device[r] > predicted[r] + *slack_bytes)
      above.push_back(
          fmt::format("    rank {}: predicted {} + slack {}, device {}\n", r, predicted[r], *slack_bytes, device[r]));
  out += above.empty() ? fmt::format("within (+{} per rank)\n", *slack_bytes)
                       : fmt::format("ABOVE on {} rank{} (+{} per rank)\n", above.size(), above.size() == 1 ? "" : "s",
                                     *slack_bytes);
  for (const std::string& line : above) out += line;
  return static_cast<int>(above.size());
}

/// Element-wise sum of `add` into `sum` (sized to the longer).
void add_into(Counts& sum, const Counts& add) {
  if (sum.size() < add.size()) sum.resize(add.size(), 0);
  for (std::size_t r = 0; r < add.size(); ++r) sum[r] += add[r];
}

}  // namespace

int device_lines(std::string& out, const TraceContraction& c, std::optional<std::uint64_t> slack_bytes) {
  if (c.device[0].empty()) return 0;
  const std::string resumed = c.resumed_at != 0 ? "not checked (resumed inside the contraction)" : "";
  int above = device_line(out, "device read (compute)", "disk read", c.predicted.disk_read_bytes, c.device[0],
                          slack_bytes, resumed);
  above += device_line(out, "device write (compute)", "disk write", c.predicted.disk_write_bytes, c.device[1],
                       slack_bytes, resumed);
  if (!c.redistribution_device[0].empty() && !c.redistribution_predicted.disk_read_bytes.empty()) {
    const std::string note = "shown only (a kept result's flush lands in a later step's; the run's line holds all)";
    device_line(out, "redistribution device read", "disk read", c.redistribution_predicted.disk_read_bytes,
                c.redistribution_device[0], slack_bytes, note);
    device_line(out, "redistribution device write", "disk write", c.redistribution_predicted.disk_write_bytes,
                c.redistribution_device[1], slack_bytes, note);
  }
  return above;
}

int device_run_line(std::string& out, const Trace& trace, std::optional<std::uint64_t> slack_bytes) {
  if (!trace.device) return 0;
  Counts device[2], predicted[2];
  for (const auto& [phase, figures] : trace.device->phases)
    if (phase != "write-out")
      for (int q = 0; q < 2; ++q) add_into(device[q], figures[static_cast<std::size_t>(q)]);
  for (const TraceContraction& c : trace.contractions)
    for (std::size_t q = 0; q < 2; ++q)
      add_into(predicted[q], c.predicted.*kDiskFields[q]),
          add_into(predicted[q], c.redistribution_predicted.*kDiskFields[q]);
  for (const std::optional<TraceTransfers>& files : {trace.imported, trace.exported})
    if (files) add_into(predicted[0], files->read_bytes), add_into(predicted[1], files->write_bytes);
  out += fmt::format(
      "device bytes of the run (/proc/self/io; every phase but write-out: --verify's reads and copy steps), "
      "cancelled writes {} total:\n",
      total(trace.device->cancelled_write_bytes));
  int above = device_line(out, "read", "disk read", predicted[0], device[0], slack_bytes, "");
  return above + device_line(out, "write", "disk write", predicted[1], device[1], slack_bytes, "");
}

}  // namespace tcec::tools
