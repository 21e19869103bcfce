// runtime/program/run_records.cpp — RunRecords (run_records.h): the records, the trace JSON and
// the summary.
#include "runtime/program/run_records.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/base/fault.h"
#include "runtime/base/memory.h"
#include "runtime/base/trace.h"
#include "runtime/kernel/kernel.h"
#include "runtime/program/step_checkpoints.h"

namespace tcert {

namespace {

/// The volumes of one rank in Phase::Import or Phase::Export, gathered at the end of a run.
struct FileTransfers {
  std::vector<std::uint64_t> read_bytes, write_bytes;  // per rank
  std::vector<double> seconds;                         // per rank, wall time
};

FileTransfers gather_transfers(const Context& ctx, Phase phase) {
  const Volumes v = counters().snapshot(phase);
  FileTransfers out{ctx.gather_u64(v.disk_read_bytes), ctx.gather_u64(v.disk_write_bytes), {}};
  for (std::uint64_t ns : ctx.gather_u64(static_cast<std::uint64_t>(v.seconds * 1e9)))
    out.seconds.push_back(static_cast<double>(ns) * 1e-9);
  return out;
}

nlohmann::json volumes_json(const RankVolumes& v) {
  nlohmann::json out = nlohmann::json::object();
  for (const VolumeField& f : kVolumeFields)
    if (!optional_field(f) || !(v.*f.member).empty()) out[f.name] = v.*f.member;
  return out;
}

/// The stage fields of `v` (kStageVolumeFields) that it has, and `seconds`.
nlohmann::json stage_json(const RankVolumes& v, const nlohmann::json& seconds) {
  nlohmann::json out = nlohmann::json::object();
  for (const VolumeField& f : kStageVolumeFields)
    if (!(v.*f.member).empty() || f.member == &RankVolumes::disk_read_bytes ||
        f.member == &RankVolumes::disk_write_bytes)
      out[f.name] = v.*f.member;
  out["seconds"] = seconds;
  return out;
}

bool volumes_equal(const ContractionRecord& r) {
  if (r.resumed_at != 0) return false;  // part of the contraction ran before the resume
  if (r.predicted != r.measured) return false;
  const RankVolumes &p = r.redistribution_predicted, &m = r.redistribution_measured;
  return p.disk_read_bytes == m.disk_read_bytes && p.disk_write_bytes == m.disk_write_bytes &&
         p.internode_sent_bytes == m.internode_sent_bytes && p.internode_recv_bytes == m.internode_recv_bytes &&
         (p.disk_requests.empty() || p.disk_requests == m.disk_requests);  // unless an older program predicts none
}

nlohmann::json transfers_json(const FileTransfers& t) {
  return {{"disk_read_bytes", t.read_bytes}, {"disk_write_bytes", t.write_bytes}, {"seconds", t.seconds}};
}

nlohmann::json record_json(const ContractionRecord& r) {
  nlohmann::json measured = volumes_json(r.measured);
  measured["seconds"] = r.seconds;
  measured["disk_seconds"] = r.disk_seconds;
  measured["comm_seconds"] = r.comm_seconds;
  measured["kernel_seconds"] = r.kernel_seconds;
  nlohmann::json predicted = volumes_json(r.predicted);
  predicted["seconds"] = r.predicted_seconds;
  if (r.resumed_at != 0) measured["resumed_at_nest_step"] = {r.resumed_at, r.nest_steps};
  return {{"statement", r.statement},
          {"plan", r.plan},
          {"comm", r.comm},
          {"algorithm", r.algorithm},
          {"order", r.order},
          {"predicted", predicted},
          {"measured", measured},
          {"peak_tile_memory_bytes", r.peak_tile_memory_bytes},
          {"planned_memory_bytes", r.planned_memory_bytes},
          {"redistribution",
           {{"predicted", stage_json(r.redistribution_predicted, r.redistribution_predicted_seconds)},
            {"measured", stage_json(r.redistribution_measured, r.redistribution_seconds)}}}};
}

/// The trace's "device" object: per rank (vectors of P), the whole run's and each phase's device
/// bytes, `all` holding in order read, write, cancelled write of the run, then read and write of
/// each phase (kPhaseCount pairs).
nlohmann::json run_device_json(const std::vector<std::vector<std::uint64_t>>& all) {
  nlohmann::json phases = nlohmann::json::object();
  for (std::size_t p = 0; p < kPhaseCount; ++p)
    phases[to_string(static_cast<Phase>(p))] = {{"read_bytes", all[3 + 2 * p]}, {"write_bytes", all[4 + 2 * p]}};
  return {{"read_bytes", all[0]}, {"write_bytes", all[1]}, {"cancelled_write_bytes", all[2]}, {"phases", phases}};
}

}  // namespace

nlohmann::json RunRecords::gather_device_json() const {
  if (!ctx_.all_true(counters().counts_device() && record_device_.size() == records_.size())) return nullptr;
  DeviceBytes run;
  std::vector<std::uint64_t> mine(3);
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    const DeviceBytes d = counters().device(static_cast<Phase>(p));
    run += d;
    mine.push_back(d.read_bytes), mine.push_back(d.write_bytes);
  }
  mine[0] = run.read_bytes, mine[1] = run.write_bytes, mine[2] = run.cancelled_write_bytes;
  for (const RecordDevice& r : record_device_)
    for (const DeviceBytes& d : {r.compute, r.redistribution})
      mine.push_back(d.read_bytes), mine.push_back(d.write_bytes);
  const std::vector<std::vector<std::uint64_t>> all = ctx_.gather_u64s(mine);  // the same count on every rank
  nlohmann::json out = {{"run", run_device_json(all)}, {"contractions", nlohmann::json::array()}};
  for (std::size_t i = 0, at = 3 + 2 * kPhaseCount; i < record_device_.size(); ++i, at += 4)
    out["contractions"].push_back({{"compute", {{"read_bytes", all[at]}, {"write_bytes", all[at + 1]}}},
                                   {"redistribution", {{"read_bytes", all[at + 2]}, {"write_bytes", all[at + 3]}}}});
  return out;
}

RunRecords::RunRecords(const Context& ctx, const RunOptions& options, const ProgramInfo& info,
                       const StepCheckpoints& checkpoints)
    : ctx_(ctx), options_(options), info_(info), checkpoints_(checkpoints) {}

void RunRecords::record(ContractionRecord record) {
  if (const ResumedNest nest = checkpoints_.resumed_nest(); nest.at != 0)
    record.resumed_at = nest.at, record.nest_steps = nest.nest_steps;
  records_.push_back(std::move(record));
  if (counters().counts_device()) {  // compute_phase() closed the step's section just before
    const std::vector<Section>& sections = counters().sections();
    record_device_.push_back(
        {sections.empty() ? DeviceBytes{} : sections.back().device_by_phase[static_cast<std::size_t>(Phase::Compute)],
         {}});
  }
  fault_point(ctx_.rank(), fmt::format("compute:{}", checkpoints_.step()));
}

void RunRecords::record_redistribution(std::vector<std::uint64_t> read, std::vector<std::uint64_t> write,
                                       std::vector<std::uint64_t> requests, std::vector<double> seconds,
                                       std::array<std::vector<std::uint64_t>, 2> internode) {
  if (records_.empty()) throw Error("redistribution recorded before any contraction");
  RankVolumes& measured = records_.back().redistribution_measured;  // the comm fields stay empty
  measured.disk_read_bytes = std::move(read), measured.disk_write_bytes = std::move(write);
  measured.disk_requests = std::move(requests);
  if (!records_.back().redistribution_predicted.internode_sent_bytes.empty())  // planned for several nodes
    measured.internode_sent_bytes = std::move(internode[0]), measured.internode_recv_bytes = std::move(internode[1]);
  records_.back().redistribution_seconds = std::move(seconds);
  if (!counters().counts_device() || record_device_.size() != records_.size()) return;
  const DeviceBytes now = counters().device(Phase::Redistribute);
  record_device_.back().redistribution = now - redistribution_device_mark_;
  redistribution_device_mark_ = now;
}

void RunRecords::record_verify(const VerifyResult& result) {
  verified_ = true;
  verify_.checked += result.checked;
  verify_.max_rel_error = std::max(verify_.max_rel_error, result.max_rel_error);
}

void RunRecords::write_trace(int resumed_steps) const {
  if (options_.trace.empty()) return;  // the same on every rank: the gathers are collective
  const std::vector<std::uint64_t> peak_rss = ctx_.gather_u64(peak_resident_bytes());
  const FileTransfers imported = gather_transfers(ctx_, Phase::Import);
  const FileTransfers exported = gather_transfers(ctx_, Phase::Export);
  const nlohmann::json device = gather_device_json();
  const Volumes run = counters().total();  // every phase, copy steps and verification included
  const std::vector<std::vector<std::uint64_t>> network =
      ctx_.gather_u64s({run.comm_sent_bytes, run.comm_recv_bytes, run.internode_sent_bytes, run.internode_recv_bytes});
  ctx_.check_root([&] {
    nlohmann::json doc = {{"program", info_.name},
                          {"source", info_.source},
                          {"processors", info_.processors},
                          {"memory_bytes", info_.memory_bytes}};
    if (resumed_steps > 0) doc["resumed_steps"] = resumed_steps;  // steps done before, not in this trace
    nlohmann::json list = nlohmann::json::array();
    for (const ContractionRecord& r : records_) list.push_back(record_json(r));
    if (!device.is_null())  // new keys beside the counted volumes: what the device moved
      for (std::size_t i = 0; i < list.size(); ++i) {
        const nlohmann::json& d = device["contractions"][i];
        list[i]["measured"]["device_read_bytes"] = d["compute"]["read_bytes"];
        list[i]["measured"]["device_write_bytes"] = d["compute"]["write_bytes"];
        list[i]["redistribution"]["measured"]["device_read_bytes"] = d["redistribution"]["read_bytes"];
        list[i]["redistribution"]["measured"]["device_write_bytes"] = d["redistribution"]["write_bytes"];
      }
    doc["contractions"] = list;
    // HDF5 inputs copied into the store, outputs copied out of it: outside every contraction.
    doc["files"] = {{"import", transfers_json(imported)}, {"export", transfers_json(exported)}};
    doc["peak_resident_bytes"] = peak_rss;                   // per rank, VmHWM at the end (memory.h)
    doc["network"] = {{"comm_sent_bytes", network[0]},       // per rank, the whole run's counted payload,
                      {"comm_recv_bytes", network[1]},       // and of it what crossed nodes (comm.h
                      {"internode_sent_bytes", network[2]},  // set_nodes(); 0 on one node)
                      {"internode_recv_bytes", network[3]}};
    if (!device.is_null()) doc["device"] = device["run"];  // per rank, since the run began (device_io.h)
    doc["blas_kernels"] = blas_kernels();                  // rank 0's (kernel.h)
    if (verified_)
      doc["verify"] = {{"checked", verify_.checked}, {"max_rel_error", verify_.max_rel_error}, {"passed", passed()}};
    write_json_atomically(options_.trace, doc);
  });
}

void RunRecords::print_summary() const {
  if (ctx_.rank() != 0 || options_.quiet) return;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const ContractionRecord& r = records_[i];
    double seconds = 0;
    for (double s : r.seconds) seconds = std::max(seconds, s);
    if (r.resumed_at != 0)
      std::fprintf(stderr,
                   "contraction %zu: %s, compute %.3f s; resumed after %llu of %llu loop-nest steps: "
                   "measured bytes not compared\n",
                   i + 1, r.plan.c_str(), seconds, static_cast<unsigned long long>(r.resumed_at),
                   static_cast<unsigned long long>(r.nest_steps));
    else
      std::fprintf(stderr, "contraction %zu: %s, compute %.3f s; measured bytes %s the prediction\n", i + 1,
                   r.plan.c_str(), seconds, volumes_equal(r) ? "equal" : "DIFFER FROM");
  }
  if (verified_)
    std::fprintf(stderr, "verify: %llu sampled elements, max relative error %.3g: %s\n",
                 static_cast<unsigned long long>(verify_.checked), verify_.max_rel_error,
                 passed() ? "passed" : "FAILED (tolerance 1e-10)");
}

void RunRecords::check_passed() const {
  if (!passed())
    throw Error(
        fmt::format("verification failed: max relative error {:.3g} of {} sampled elements is above the "
                    "tolerance 1e-10",
                    verify_.max_rel_error, verify_.checked));
}

}  // namespace tcert
