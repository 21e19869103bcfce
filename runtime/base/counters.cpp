// runtime/base/counters.cpp — per-process byte and time counters by phase.
#include "runtime/base/counters.h"

#include "runtime/base/error.h"

namespace tcert {

const char* to_string(Phase phase) {
  switch (phase) {
    case Phase::Load: return "load";
    case Phase::Redistribute: return "redistribute";
    case Phase::Compute: return "compute";
    case Phase::WriteOut: return "write-out";
    case Phase::Import: return "import";
    case Phase::Export: return "export";
  }
  return "unknown";
}

Volumes& Volumes::operator+=(const Volumes& other) {
  disk_read_bytes += other.disk_read_bytes;
  disk_write_bytes += other.disk_write_bytes;
  comm_sent_bytes += other.comm_sent_bytes;
  comm_recv_bytes += other.comm_recv_bytes;
  internode_sent_bytes += other.internode_sent_bytes;
  internode_recv_bytes += other.internode_recv_bytes;
  disk_requests += other.disk_requests;
  seconds += other.seconds;
  disk_seconds += other.disk_seconds;
  comm_seconds += other.comm_seconds;
  kernel_seconds += other.kernel_seconds;
  return *this;
}

Volumes& Volumes::operator-=(const Volumes& other) {
  disk_read_bytes -= other.disk_read_bytes;
  disk_write_bytes -= other.disk_write_bytes;
  comm_sent_bytes -= other.comm_sent_bytes;
  comm_recv_bytes -= other.comm_recv_bytes;
  internode_sent_bytes -= other.internode_sent_bytes;
  internode_recv_bytes -= other.internode_recv_bytes;
  disk_requests -= other.disk_requests;
  seconds -= other.seconds;
  disk_seconds -= other.disk_seconds;
  comm_seconds -= other.comm_seconds;
  kernel_seconds -= other.kernel_seconds;
  return *this;
}

thread_local Volumes* Counters::sink_ = nullptr;

void Counters::add_counted(const Volumes& v) {
  Volumes add = v;
  add.seconds = 0;
  current() += add;
}

void RunCounter::add() {
  counters().add_disk_requests(runs_);
  runs_ = 0;
}

Volumes Section::total() const {
  Volumes sum;
  for (const Volumes& v : by_phase) sum += v;
  return sum;
}

void Counters::charge_time() {
  Clock::time_point now = Clock::now();
  if (scope_depth_ > 0) current().seconds += std::chrono::duration<double>(now - mark_).count();
  mark_ = now;
  charge_device();
}

void Counters::charge_device() {
  if (!device_on_) return;
  const std::optional<DeviceBytes> now = device_bytes_now();
  if (!now) return;  // readable when turned on; a failed reading leaves the bytes to the next one
  device_[static_cast<std::size_t>(phase_)] += *now - device_mark_;
  device_mark_ = *now;
}

void Counters::count_device(bool on) {
  const std::optional<DeviceBytes> now = on ? device_bytes_now() : std::nullopt;
  device_on_ = now.has_value();
  if (now) device_mark_ = *now;
}

DeviceBytes Counters::device(Phase phase) {
  charge_device();
  return device_[static_cast<std::size_t>(phase)];
}

void Counters::switch_phase(Phase next, int depth_change) {
  charge_time();
  phase_ = next;
  scope_depth_ += depth_change;
}

Volumes Counters::snapshot(Phase phase) {
  charge_time();
  return volumes_[static_cast<std::size_t>(phase)];
}

Volumes Counters::total() {
  charge_time();
  Volumes sum;
  for (const Volumes& v : volumes_) sum += v;
  return sum;
}

void Counters::begin_section(std::string name) {
  if (section_open_)
    throw Error("cannot begin section '" + name + "': section '" + section_start_.name +
                "' is still open (sections do not nest)");
  charge_time();
  section_start_ = Section{std::move(name), volumes_, device_};
  section_open_ = true;
}

const Section& Counters::end_section() {
  if (!section_open_) throw Error("end_section called without an open section");
  charge_time();
  Section done{section_start_.name, {}};
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    done.by_phase[p] = volumes_[p] - section_start_.by_phase[p];
    done.device_by_phase[p] = device_[p] - section_start_.device_by_phase[p];
  }
  section_open_ = false;
  sections_.push_back(std::move(done));
  return sections_.back();
}

void Counters::reset() {
  volumes_ = {};
  device_ = {};
  if (device_on_) count_device(true);  // from now
  mark_ = Clock::now();
  section_open_ = false;
  sections_.clear();
}

Counters& counters() {
  static Counters instance;
  return instance;
}

PhaseScope::PhaseScope(Phase phase) : previous_(counters().current_phase()) { counters().switch_phase(phase, +1); }

PhaseScope::~PhaseScope() { counters().switch_phase(previous_, -1); }

}  // namespace tcert
