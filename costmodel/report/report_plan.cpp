// costmodel/report/report_plan.cpp — the chosen plan in the dry-run report (text and JSON).
#include <algorithm>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/method.h"

namespace tcec::costmodel {

namespace {

template <class T>
std::pair<T, T> min_max(const std::vector<T>& v) {
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

}  // namespace

std::string range_text(const std::vector<std::uint64_t>& v) {
  auto [lo, hi] = min_max(v);
  return lo == hi ? fmt::format("{}", lo) : fmt::format("{} .. {}", lo, hi);
}

namespace {

/// " (of which to other nodes S, from other nodes R)" for volumes that have bytes crossing nodes.
std::string crossing_text(const PlanVolumes& v) {
  if (v.internode_sent_bytes.empty()) return {};
  return fmt::format(" (of which to other nodes {}, from other nodes {})", range_text(v.internode_sent_bytes),
                     range_text(v.internode_recv_bytes));
}

}  // namespace

std::string per_rank_text(const PlanVolumes& v) {
  return fmt::format(
      "    per rank (bytes, min .. max): disk read {}, disk write {}, sent {}, received {}{}; disk requests {}{}\n",
      range_text(v.disk_read_bytes), range_text(v.disk_write_bytes), range_text(v.comm_sent_bytes),
      range_text(v.comm_recv_bytes), crossing_text(v), range_text(v.disk_requests),
      v.page_faults.empty() ? std::string() : fmt::format(", page faults about {}", range_text(v.page_faults)));
}

std::string wall_text(const ContractionAnalysis& a, const Machine& machine) {
  const WallParts w = slowest_wall_parts(a.plan().plan, machine, a.plan().volumes);
  const std::string rate = fmt::format("{:g} GFLOP/s", machine.flops_per_s / 1e9);
  if (!w.overlap)
    return fmt::format(
        "    wall time {:.5g} s predicted, serial: disk {:.5g} s + network {:.5g} s + kernel {:.5g} s ({})\n", w.wall,
        w.disk, w.network, w.kernel, rate);
  const std::string unhidden = machine.overlap < 1
                                   ? fmt::format(" + {:g} of the shorter {:.5g} s (overlap {:g})", 1 - machine.overlap,
                                                 std::min(w.disk, w.network + w.kernel), machine.overlap)
                                   : std::string();
  return fmt::format(
      "    wall time {:.5g} s predicted, overlapped (second buffers; an I/O thread reads ahead and writes "
      "behind): max(disk {:.5g} s, network {:.5g} s + kernel {:.5g} s ({})){} + fill and drain {:.5g} s; "
      "serially {:.5g} s\n",
      w.wall, w.disk, w.network, w.kernel, rate, unhidden, w.fill, w.disk + w.network + w.kernel);
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 6) {
    bytes /= 1000.0;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.3g} {}", bytes, units[u]);
}

std::string memory_text(const PlanMemory& memory, const Machine& machine) {
  std::vector<std::string> load, resident;
  std::uint64_t sum = 0;
  for (const MemoryPart& p : memory.parts) {
    if (p.load_stage) {
      load.push_back(fmt::format("{} {} B", p.what, p.bytes));
    } else {
      resident.push_back(fmt::format("{} {}", p.what, p.bytes));
      sum += p.bytes;
    }
  }
  const auto M = static_cast<std::uint64_t>(machine.memory_bytes);
  if (load.empty()) return fmt::format("{} = {} B of {} B", fmt::join(resident, " + "), sum, M);
  return fmt::format("{} (load stage), then {} = {} B; peak {} B of {} B", fmt::join(load, ", "),
                     fmt::join(resident, " + "), sum, memory.peak_bytes, M);
}

nlohmann::json memory_json(const PlanMemory& memory, const Machine& machine) {
  nlohmann::json parts = nlohmann::json::array();
  for (const MemoryPart& p : memory.parts)
    parts.push_back({{"what", p.what}, {"bytes", p.bytes}, {"stage", p.load_stage ? "load" : "step"}});
  return {{"parts", parts},
          {"peak_bytes", memory.peak_bytes},
          {"memory_bytes", static_cast<std::uint64_t>(machine.memory_bytes)}};
}

double moved_bytes(const Plan& plan, const PlanVolumes& v, const Machine& machine) {
  const MethodModel& method = model_of(plan);
  double most = 0;
  for (std::size_t r = 0; r < v.disk_read_bytes.size(); ++r) {
    const double resident = method.resident_bytes(plan, static_cast<std::int64_t>(r), machine.element_size_bytes);
    most = std::max(
        most, static_cast<double>(v.disk_read_bytes[r] + v.comm_recv_bytes[r] + v.disk_write_bytes[r]) + resident);
  }
  return most;
}

namespace {

/// The arrays the chosen plan's compute stage reads (A, B) or reads and writes (C) straight in
/// their tensors' files (direct tile I/O), unless declared or kept on the ranks.
std::vector<std::string> direct_operands(const ContractionAnalysis& a) {
  std::vector<std::string> out;
  if (model_of(a.plan().plan).reads_operands_directly(a.plan().plan)) {
    if (!a.declared.A) out.push_back("A");
    if (!a.declared.B) out.push_back("B");
  }
  if (writes_result_directly(a.plan().plan, &a.declared)) out.push_back("C");
  return out;
}

}  // namespace

/// The plan's redistribution line (Gao et al. §2.3 stages 1 and 3): through the tensor files
/// as tcec runs them, or rank to rank from and to the declared distributions.
std::string redistribution_text(const ContractionAnalysis& a) {
  const PlanVolumes& r = a.plan().redistribution;
  const std::string declared = a.declared.which();
  const std::string how = declared.empty()        ? "through the tensor files"
                          : declared == "A, B, C" ? "declared distributions of A, B, C"
                                                  : "declared distributions of " + declared + ", tensor files";
  const bool moved = std::any_of(r.comm_recv_bytes.begin(), r.comm_recv_bytes.end(), [](auto b) { return b > 0; });
  const std::vector<std::string> direct = direct_operands(a);
  return fmt::format(
      "    redistribution (stages 1 and 3, {}{}{}): per rank disk read {}, disk write {}{}{}; {:.5g} s; "
      "total with the compute stage {:.5g} s\n",
      how, direct.empty() ? "" : fmt::format("; direct tile I/O of {}", fmt::join(direct, ", ")),
      a.accumulate ? "; C starts from its current value" : "", range_text(r.disk_read_bytes),
      range_text(r.disk_write_bytes),
      moved ? fmt::format(", sent {}, received {}{}", range_text(r.comm_sent_bytes), range_text(r.comm_recv_bytes),
                          crossing_text(r))
            : "",
      r.disk_requests.empty() ? "" : fmt::format(", disk requests {}", range_text(r.disk_requests)), r.time_s,
      a.plan().total_s());
}

std::string plan_text(const ContractionAnalysis& a, const Machine& machine) {
  if (!a.plan().feasible) return fmt::format("  plan: none ({})\n", a.plan().reason);
  return report_of(a.plan().plan).plan_section(a, machine) + redistribution_text(a) +
         io_bound_text(io_bound(a, machine)) + write_text(write_report(a, machine));
}

nlohmann::json plan_json(const ContractionAnalysis& a, const Machine& machine) {
  if (!a.plan().feasible) return nullptr;
  const Plan& p = a.plan().plan;
  const PlanVolumes& v = a.plan().volumes;
  const TileCounts t = p.tile_counts();
  const TileBytes tb = tile_bytes(p, machine.element_size_bytes);
  auto dist = [](const GroupTiling& g) {
    return g.dist < 0 ? nlohmann::json(nullptr) : nlohmann::json(g.indices[g.dist].name);
  };
  nlohmann::json per_index = nlohmann::json::object();
  for (const GroupTiling* g : {&p.I, &p.J, &p.K})
    for (const IndexTiles& x : g->indices) per_index[x.name] = {x.t1, x.t2};
  nlohmann::json j = {{"text", p.to_string()},
                      {"distribution", {{"I", dist(p.I)}, {"J", dist(p.J)}, {"K", dist(p.K)}}},
                      {"tiles",
                       {{"It1", t.It1},
                        {"It2", t.It2},
                        {"Jt1", t.Jt1},
                        {"Jt2", t.Jt2},
                        {"Kt1", t.Kt1},
                        {"Kt2", t.Kt2},
                        {"per_index", per_index}}},
                      {"memory_split", split_name(p.split)},
                      {"tile_bytes", {{"A", tb.A}, {"B", tb.B}, {"C", tb.C}}},
                      {"memory_bytes_per_rank", memory_json(plan_memory(p, machine), machine)},
                      {"disk_read_bytes", v.disk_read_bytes},
                      {"disk_write_bytes", v.disk_write_bytes},
                      {"comm_sent_bytes", v.comm_sent_bytes},
                      {"comm_recv_bytes", v.comm_recv_bytes},
                      {"disk_requests", v.disk_requests},
                      {"time_s", v.time_s},
                      {"kernel_s", v.kernel_s},
                      {"wall_s", v.wall_s},
                      {"model_time_s", a.plan_row().time_s},
                      {"moved_bytes_per_rank", moved_bytes(p, v, machine)},
                      {"lower_bound_ratio", moved_bytes(p, v, machine) / a.lower_bound_bytes_per_rank},
                      {"redistribution",
                       {{"disk_read_bytes", a.plan().redistribution.disk_read_bytes},
                        {"disk_write_bytes", a.plan().redistribution.disk_write_bytes},
                        {"comm_sent_bytes", a.plan().redistribution.comm_sent_bytes},
                        {"comm_recv_bytes", a.plan().redistribution.comm_recv_bytes},
                        {"disk_requests", a.plan().redistribution.disk_requests},
                        {"time_s", a.plan().redistribution.time_s},
                        {"accumulate", a.accumulate},
                        {"direct", direct_operands(a)},
                        {"declared", a.declared.which()}}},
                      {"total_time_s", a.plan().total_s()}};
  if (!v.page_faults.empty()) j["page_faults"] = v.page_faults;  // estimated, where counted (Machine::page_fault_s)
  if (!v.internode_sent_bytes.empty()) {                         // a machine of several nodes
    j["internode_sent_bytes"] = v.internode_sent_bytes, j["internode_recv_bytes"] = v.internode_recv_bytes;
    const PlanVolumes& r = a.plan().redistribution;
    j["redistribution"]["internode_sent_bytes"] = r.internode_sent_bytes;
    j["redistribution"]["internode_recv_bytes"] = r.internode_recv_bytes;
  }
  j["io_bound"] = io_bound_json(io_bound(a, machine));
  j["writes"] = write_json(write_report(a, machine));
  report_of(p).plan_json(a, machine, j);
  return j;
}

}  // namespace tcec::costmodel
