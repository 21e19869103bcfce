// runtime/storage/io_worker.h — IoWorker: one helper thread per rank that runs disk jobs in order while
// the program's thread multiplies and communicates (the compute stage's overlap, issue 17).
//
// Jobs run first in, first out, one at a time, so two jobs on the same file region keep the
// order they were submitted in. What a job counts (disk bytes, requests, busy seconds: DiskFile
// and RunCounter count through counters()) goes into the worker's own Volumes (CountInto), which
// its owner adds to the current phase with drain(). MPI is never called from the worker.
//
// A hand-off spins (yielding) for up to kSpinSeconds before it sleeps on the condition variable,
// on both sides: the worker for a next job, the owner for a job's end. Small tiles make jobs of
// microseconds, where a sleep and wake-up per job cost more than the job (tcec-ccsd on
// H2O/cc-pVDZ, 256 KB per rank: see the README's overlap section).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "runtime/base/counters.h"

namespace tcert {

class IoWorker {
 public:
  using Ticket = std::uint64_t;  ///< 1, 2, … in submission order; 0 = no job

  IoWorker();
  /// Waits for the submitted jobs, then stops the thread (errors are dropped: call drain()).
  ~IoWorker();
  IoWorker(const IoWorker&) = delete;
  IoWorker& operator=(const IoWorker&) = delete;

  /// Queues `job`; returns its ticket.
  Ticket submit(std::function<void()> job);
  /// Blocks until job `ticket` (and every earlier one) has run. Rethrows the first exception a
  /// job threw (later jobs are skipped once one has failed).
  void wait(Ticket ticket);
  /// Whether job `ticket` (and every earlier one) has run, without blocking (true after a
  /// failure too: wait() then rethrows it).
  bool done(Ticket ticket);
  /// Waits for every job, adds what they counted to counters()' current phase, and rethrows
  /// as wait() does.
  void drain();

 private:
  void loop();
  /// Spins (yielding the core) until ready() or kSpinSeconds have passed; returns ready().
  template <class Ready>
  static bool spin(const Ready& ready);
  static constexpr double kSpinSeconds = 20e-6;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
  Ticket submitted_ = 0, done_ = 0;
  std::atomic<Ticket> queued_{0}, finished_{0};  // submitted_ and done_ (or all, on an error), for spin()
  bool stopping_ = false;
  std::exception_ptr error_;
  Volumes counted_;  // written by the worker only while it runs a job
  std::thread thread_;
};

}  // namespace tcert
