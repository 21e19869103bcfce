// runtime/io_worker.cpp — the compute stage's disk thread.
#include "runtime/io_worker.h"

#include <utility>

namespace tcert {

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
  return ++submitted_;
}

void IoWorker::wait(Ticket ticket) {
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
    changed_.notify_all();
  }
}

}  // namespace tcert
