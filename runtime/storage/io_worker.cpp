// runtime/storage/io_worker.cpp — the compute stage's disk thread.
#include "runtime/storage/io_worker.h"

#include <chrono>
#include <limits>
#include <utility>

namespace tcert {

template <class Ready>
bool IoWorker::spin(const Ready& ready) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kSpinSeconds);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::yield();  // a core shared with other ranks goes to them
  }
  return true;
}

IoWorker::IoWorker() : thread_([this] { loop(); }) {}

IoWorker::~IoWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

IoWorker::Ticket IoWorker::submit(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.push_back(std::move(job));
  changed_.notify_all();
  queued_.store(++submitted_, std::memory_order_release);
  return submitted_;
}

void IoWorker::wait(Ticket ticket) {
  spin([&] { return finished_.load(std::memory_order_acquire) >= ticket; });
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return done_ >= ticket; });
  if (error_) std::rethrow_exception(error_);
}

bool IoWorker::done(Ticket ticket) {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_ >= ticket || error_;
}

void IoWorker::drain() {
  Ticket last = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last = submitted_;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return done_ >= last; });
  counters().add_counted(counted_);  // the jobs are done: the worker no longer writes it
  counted_ = Volumes{};
  if (error_) std::rethrow_exception(error_);
}

void IoWorker::loop() {
  CountInto count(counted_);
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (queue_.empty() && !stopping_) {  // a next job is often microseconds away
      const Ticket seen = submitted_;
      lock.unlock();
      spin([&] { return queued_.load(std::memory_order_acquire) != seen; });
      lock.lock();
    }
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    const bool skip = static_cast<bool>(error_);
    lock.unlock();
    std::exception_ptr failed;
    if (!skip) {
      try {
        job();
      } catch (...) {
        failed = std::current_exception();
      }
    }
    lock.lock();
    if (failed && !error_) error_ = failed;
    ++done_;
    finished_.store(error_ ? std::numeric_limits<Ticket>::max() : done_, std::memory_order_release);
    changed_.notify_all();
  }
}

}  // namespace tcert
