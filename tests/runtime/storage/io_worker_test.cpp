// tests/runtime/storage/io_worker_test.cpp — IoWorker: jobs in order, hand-offs that spin and sleep,
// errors rethrown.
#include "runtime/storage/io_worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

// Many jobs of microseconds (each hand-off within the spin) and some after a pause longer than
// it (the worker asleep on its condition variable): all run, in order, and wait() sees each.
TEST(IoWorker, JobsRunInOrderThroughSpinsAndSleeps) {
  tcert::IoWorker worker;
  std::vector<int> ran;
  for (int i = 0; i < 2000; ++i) {
    if (i % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const tcert::IoWorker::Ticket t = worker.submit([&ran, i] { ran.push_back(i); });
    EXPECT_EQ(t, static_cast<tcert::IoWorker::Ticket>(i + 1));
    if (i % 3 == 0) {
      worker.wait(t);
      ASSERT_EQ(ran.size(), static_cast<std::size_t>(i + 1));
      EXPECT_TRUE(worker.done(t));
    }
  }
  worker.drain();
  ASSERT_EQ(ran.size(), 2000u);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(ran[static_cast<std::size_t>(i)], i);
}

// A job that throws: waiting for it or any later job rethrows, later jobs are skipped.
TEST(IoWorker, AnErrorIsRethrownAndLaterJobsSkipped) {
  tcert::IoWorker worker;
  int ran = 0;
  worker.submit([&] { ++ran; });
  const tcert::IoWorker::Ticket bad = worker.submit([] { throw std::runtime_error("disk gone"); });
  const tcert::IoWorker::Ticket later = worker.submit([&] { ++ran; });
  EXPECT_THROW(worker.wait(later), std::runtime_error);
  EXPECT_TRUE(worker.done(bad));
  EXPECT_EQ(ran, 1);
  EXPECT_THROW(worker.drain(), std::runtime_error);
}

}  // namespace
