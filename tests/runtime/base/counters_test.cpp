// tests/runtime/base/counters_test.cpp — phases, exclusive times, sections and reset of tcert::Counters.
#include "runtime/base/counters.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "runtime/base/error.h"

namespace {

using tcert::counters;
using tcert::Phase;
using tcert::PhaseScope;

TEST(Counters, PhaseNames) {
  EXPECT_STREQ(tcert::to_string(Phase::Load), "load");
  EXPECT_STREQ(tcert::to_string(Phase::Redistribute), "redistribute");
  EXPECT_STREQ(tcert::to_string(Phase::Compute), "compute");
  EXPECT_STREQ(tcert::to_string(Phase::WriteOut), "write-out");
}

TEST(Counters, BytesGoToTheInnermostScopeAndThePhaseIsRestored) {
  counters().reset();
  counters().add_disk_read(1);  // outside every scope: Load
  {
    PhaseScope compute(Phase::Compute);
    counters().add_disk_read(10);
    counters().add_sent(20);
    {
      PhaseScope redistribute(Phase::Redistribute);
      counters().add_recv(30);
      counters().add_disk_write(40);
      EXPECT_EQ(counters().current_phase(), Phase::Redistribute);
    }
    EXPECT_EQ(counters().current_phase(), Phase::Compute);
    counters().add_disk_write(5);
  }
  EXPECT_EQ(counters().current_phase(), Phase::Load);
  tcert::Volumes load = counters().snapshot(Phase::Load);
  tcert::Volumes compute = counters().snapshot(Phase::Compute);
  tcert::Volumes redistribute = counters().snapshot(Phase::Redistribute);
  EXPECT_EQ(load.disk_read_bytes, 1u);
  EXPECT_EQ(compute.disk_read_bytes, 10u);
  EXPECT_EQ(compute.comm_sent_bytes, 20u);
  EXPECT_EQ(compute.disk_write_bytes, 5u);
  EXPECT_EQ(redistribute.comm_recv_bytes, 30u);
  EXPECT_EQ(redistribute.disk_write_bytes, 40u);
  EXPECT_EQ(counters().snapshot(Phase::WriteOut), tcert::Volumes{});
  EXPECT_EQ(counters().total().disk_write_bytes, 45u);
}

TEST(Counters, TimeIsExclusiveAndOnlyInsideScopes) {
  counters().reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // outside: not charged
  {
    PhaseScope compute(Phase::Compute);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    PhaseScope write_out(Phase::WriteOut);
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
  }
  double load_s = counters().snapshot(Phase::Load).seconds;
  double compute_s = counters().snapshot(Phase::Compute).seconds;
  double write_s = counters().snapshot(Phase::WriteOut).seconds;
  EXPECT_EQ(load_s, 0.0);
  EXPECT_GE(compute_s, 0.029);
  EXPECT_LT(compute_s, 0.059);  // the nested 60 ms are not in it
  EXPECT_GE(write_s, 0.059);
}

TEST(Counters, SectionsAreDifferences) {
  counters().reset();
  counters().add_sent(100);
  counters().begin_section("first");
  counters().add_sent(7);
  {
    PhaseScope compute(Phase::Compute);
    counters().add_disk_read(8);
  }
  const tcert::Section& first = counters().end_section();
  EXPECT_EQ(first.name, "first");
  EXPECT_EQ(first.by_phase[static_cast<std::size_t>(Phase::Load)].comm_sent_bytes, 7u);
  EXPECT_EQ(first.by_phase[static_cast<std::size_t>(Phase::Compute)].disk_read_bytes, 8u);
  EXPECT_EQ(first.total().comm_sent_bytes, 7u);
  counters().begin_section("second");
  counters().end_section();
  ASSERT_EQ(counters().sections().size(), 2u);
  EXPECT_EQ(counters().sections()[1].total().comm_sent_bytes, 0u);
}

TEST(Counters, SectionMisuseThrows) {
  counters().reset();
  EXPECT_THROW(counters().end_section(), tcert::Error);
  counters().begin_section("a");
  EXPECT_THROW(counters().begin_section("b"), tcert::Error);
  counters().reset();
  EXPECT_TRUE(counters().sections().empty());
  EXPECT_THROW(counters().end_section(), tcert::Error);
}

}  // namespace
