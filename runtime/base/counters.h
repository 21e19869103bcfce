// runtime/base/counters.h — per-process counts of disk and network bytes and wall time, by phase.
//
// Every byte a DiskFile transfers and every element the counted collectives of comm.h move is
// added to counters(), into the phase that is current (set by a PhaseScope). A generated
// program reports these measured volumes beside the cost model's prediction (Gao et al. §3).
// Counting is per thread: the thread that runs the program (the one calling MPI) counts into
// the current phase; a helper thread (the compute stage's I/O worker, io_worker.h) counts into
// the Volumes it has set with CountInto, which its owner adds to the phase when it is done.
// With count_device(true), each phase also gets the bytes the whole process made the device
// read and write while it was current (device_io.h), read at every phase switch.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/base/device_io.h"

namespace tcert {

/// The phases a generated program goes through for each contraction.
enum class Phase {
  Load,          ///< reading the inputs (.npy or random initialisation) into the disk layout
  Redistribute,  ///< moving data between ranks or disk layouts before/after the compute
  Compute,       ///< the out-of-core tile loops: tile reads/writes, shifts, GEMMs
  WriteOut,      ///< writing results to .npy files
  Import,        ///< copying HDF5 inputs into the tensor store at the start of a run (tensor_files.h)
  Export,        ///< copying outputs from the store to their files at the end of a run
};
inline constexpr std::size_t kPhaseCount = 6;

/// "load", "redistribute", "compute", "write-out", "import" or "export".
const char* to_string(Phase phase);

/// Volumes moved by this process. All counts are bytes; seconds is wall-clock time.
struct Volumes {
  std::uint64_t disk_read_bytes = 0;
  std::uint64_t disk_write_bytes = 0;
  std::uint64_t comm_sent_bytes = 0;  ///< payload sent by the counted collectives of comm.h
  std::uint64_t comm_recv_bytes = 0;  ///< payload received by them
  /// Of comm_sent_bytes and comm_recv_bytes, the payload sent to and received from ranks on
  /// other nodes (comm.h set_nodes(); zero while no nodes are set, as on one node).
  std::uint64_t internode_sent_bytes = 0, internode_recv_bytes = 0;
  /// Disk requests: one per DiskFile transfer call that moves data (one contiguous range of
  /// the file), and, for a tensor file read or written through its mapping, one per maximal
  /// run of consecutive accesses to adjacent elements within one block transfer (counted by
  /// RunCounter). The model charges each the machine's disk_latency.
  std::uint64_t disk_requests = 0;
  double seconds = 0;         ///< wall time charged to the phase (exclusive, see PhaseScope)
  double disk_seconds = 0;    ///< wall time inside disk reads and writes (DiskFile)
  double comm_seconds = 0;    ///< wall time inside the counted MPI transfers of comm.h
  double kernel_seconds = 0;  ///< wall time inside the tile kernel (gemm_tile)

  /// Field-wise sum and difference (e.g. "after − before" of two snapshots).
  Volumes& operator+=(const Volumes& other);
  Volumes& operator-=(const Volumes& other);
  friend Volumes operator+(Volumes a, const Volumes& b) { return a += b; }
  friend Volumes operator-(Volumes a, const Volumes& b) { return a -= b; }
  friend bool operator==(const Volumes&, const Volumes&) = default;
};

/// The volumes of one closed section (see Counters::begin_section), one entry per Phase,
/// indexed by static_cast<std::size_t>(phase).
struct Section {
  std::string name;
  std::array<Volumes, kPhaseCount> by_phase;
  /// The process's device bytes while each phase was current (all zero unless counts_device()).
  std::array<DeviceBytes, kPhaseCount> device_by_phase{};
  Volumes total() const;  ///< sum over the phases
};

/// Per-process counters (one instance, reached through counters()).
class Counters {
 public:
  /// Add bytes to the current phase's disk_read_bytes / disk_write_bytes / comm_sent_bytes /
  /// comm_recv_bytes. Called by DiskFile and comm.h; generated code rarely calls them directly.
  void add_disk_read(std::uint64_t bytes) { target().disk_read_bytes += bytes; }
  void add_disk_write(std::uint64_t bytes) { target().disk_write_bytes += bytes; }
  void add_sent(std::uint64_t bytes) { target().comm_sent_bytes += bytes; }
  void add_recv(std::uint64_t bytes) { target().comm_recv_bytes += bytes; }
  /// Add bytes, already counted by add_sent() / add_recv(), that crossed nodes.
  void add_internode_sent(std::uint64_t bytes) { target().internode_sent_bytes += bytes; }
  void add_internode_recv(std::uint64_t bytes) { target().internode_recv_bytes += bytes; }
  /// Add disk requests (see Volumes::disk_requests) to the current phase.
  void add_disk_requests(std::uint64_t n) { target().disk_requests += n; }
  /// Add busy time (seconds) to the current phase's disk_seconds / comm_seconds / kernel_seconds.
  void add_disk_time(double seconds) { target().disk_seconds += seconds; }
  void add_comm_time(double seconds) { target().comm_seconds += seconds; }
  void add_kernel_time(double seconds) { target().kernel_seconds += seconds; }
  /// Adds volumes counted elsewhere (a helper thread's, see CountInto) to the current phase;
  /// their `seconds` are ignored (wall time is the phase's own).
  void add_counted(const Volumes& v);

  /// The phase bytes are counted into: that of the innermost open PhaseScope, Phase::Load
  /// when none is open (bytes are counted, but no time is charged, outside every scope).
  Phase current_phase() const { return phase_; }

  /// The volumes of `phase` since the last reset(), including the time elapsed so far in an
  /// open PhaseScope of that phase.
  Volumes snapshot(Phase phase);
  /// Sum of snapshot() over all phases.
  Volumes total();

  /// Device bytes by phase (device_io.h): while on, every phase switch, snapshot(), device() and
  /// section boundary reads /proc/self/io and charges the bytes since the previous reading to the
  /// phase that was current (Phase::Load outside every scope, like bytes). They are the whole
  /// process's, helper threads included, so a phase gets what any thread moved while it was
  /// current. Off by default (a reading costs a few system calls); turning it on starts from now.
  /// Where /proc/self/io cannot be read it stays off: counts_device() says whether it is on.
  void count_device(bool on);
  bool counts_device() const { return device_on_; }
  /// The device bytes charged to `phase` since the last reset() (or count_device(true)),
  /// including those of the current phase so far. Zero when not counting.
  DeviceBytes device(Phase phase);

  /// Sections measure one part of the run (e.g. one contraction) without the caller having
  /// to subtract snapshots: begin_section records a snapshot of every phase, end_section
  /// appends {name, volumes now − volumes at begin} to sections(). Sections do not nest.
  /// Throws Error when begin_section is called inside an open section, or end_section
  /// outside one.
  void begin_section(std::string name);
  const Section& end_section();
  /// The closed sections, oldest first.
  const std::vector<Section>& sections() const { return sections_; }

  /// Zero every phase and forget all sections (an open section is closed and dropped).
  /// Open PhaseScopes stay open and keep charging time from now on.
  void reset();

 private:
  friend class PhaseScope;
  using Clock = std::chrono::steady_clock;

  Volumes& current() { return volumes_[static_cast<std::size_t>(phase_)]; }
  Volumes& target() { return sink_ != nullptr ? *sink_ : current(); }
  friend class CountInto;
  static thread_local Volumes* sink_;  // set on a helper thread by CountInto
  void charge_time();                  // adds the time since mark_ to the current phase when a scope is open
  void charge_device();                // adds the device bytes since device_mark_ to the current phase
  void switch_phase(Phase next, int depth_change);

  std::array<Volumes, kPhaseCount> volumes_{};
  std::array<DeviceBytes, kPhaseCount> device_{};
  bool device_on_ = false;
  DeviceBytes device_mark_;  // the process's device bytes at the last reading
  Phase phase_ = Phase::Load;
  int scope_depth_ = 0;
  Clock::time_point mark_ = Clock::now();
  bool section_open_ = false;
  Section section_start_;  // name, volumes and device bytes at begin_section
  std::vector<Section> sections_;
};

/// The counters of this process.
Counters& counters();

/// Seconds since construction (steady clock), for the busy-time counters.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

/// RAII, on a helper thread: while it lives, everything this thread counts goes into `into`
/// instead of the current phase (which belongs to the program's thread).
class CountInto {
 public:
  explicit CountInto(Volumes& into) : previous_(Counters::sink_) { Counters::sink_ = &into; }
  ~CountInto() { Counters::sink_ = previous_; }
  CountInto(const CountInto&) = delete;
  CountInto& operator=(const CountInto&) = delete;

 private:
  Volumes* previous_;
};

/// Counts the disk requests of one transfer through a tensor file's mapping: feed it the file
/// element index (elements) of every access in order; a request is each maximal run of
/// accesses to consecutive elements (index = previous + 1). add() charges them to counters().
class RunCounter {
 public:
  void at(std::uint64_t element) {
    if (runs_ == 0 || element != last_ + 1) ++runs_;
    last_ = element;
  }
  /// The same as at(first), at(first + 1), …, at(first + n − 1).
  void span(std::uint64_t first, std::uint64_t n) {
    if (n == 0) return;
    at(first);
    last_ = first + n - 1;
  }
  std::uint64_t runs() const { return runs_; }
  /// Adds runs() to counters() as disk requests and starts a new transfer.
  void add();

 private:
  std::uint64_t last_ = 0, runs_ = 0;
};

/// RAII: makes `phase` current for its lifetime and restores the previous phase at the end.
/// Wall time is exclusive: while a nested scope is open its time goes to the nested phase
/// only, so the seconds of all phases add up to the time spent inside outermost scopes.
class PhaseScope {
 public:
  /// Charges the time so far to the current phase and makes `phase` current.
  explicit PhaseScope(Phase phase);
  /// Charges the time since to `phase` and makes the previous phase current again.
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  Phase previous_;
};

}  // namespace tcert
