// tests/runtime/base/device_io_test.cpp — parsing /proc/PID/io, this process's reading, and the
// counters' device bytes by phase.
#include "runtime/base/device_io.h"

#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "runtime/base/counters.h"
#include "temp_dir.h"

namespace {

using tcert::DeviceBytes;
using tcert::parse_proc_io;

constexpr const char* kProcIo =
    "rchar: 6976\n"
    "wchar: 12\n"
    "syscr: 10\n"
    "syscw: 1\n"
    "read_bytes: 1310720\n"
    "write_bytes: 8192\n"
    "cancelled_write_bytes: 4096\n";

TEST(DeviceIo, ParsesTheThreeDeviceFigures) {
  const std::optional<DeviceBytes> d = parse_proc_io(kProcIo);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->read_bytes, 1310720u);
  EXPECT_EQ(d->write_bytes, 8192u);
  EXPECT_EQ(d->cancelled_write_bytes, 4096u);
}

TEST(DeviceIo, AnyOrderNoFinalNewlineAndUnknownKeys) {
  const std::optional<DeviceBytes> d =
      parse_proc_io("cancelled_write_bytes: 0\nnew_key: 7\nwrite_bytes: 18446744073709551615\nread_bytes: 3");
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, (DeviceBytes{3, 18446744073709551615u, 0}));
}

TEST(DeviceIo, MissingOrMalformedFiguresAreRefused) {
  EXPECT_FALSE(parse_proc_io(""));
  EXPECT_FALSE(parse_proc_io("rchar: 1\nread_bytes: 1\nwrite_bytes: 2\n"));  // no cancelled_write_bytes
  EXPECT_FALSE(parse_proc_io("read_bytes: -1\nwrite_bytes: 2\ncancelled_write_bytes: 0\n"));
  EXPECT_FALSE(parse_proc_io("read_bytes: 1x\nwrite_bytes: 2\ncancelled_write_bytes: 0\n"));
  EXPECT_FALSE(parse_proc_io("read_bytes:\nwrite_bytes: 2\ncancelled_write_bytes: 0\n"));
  EXPECT_FALSE(parse_proc_io("read_bytes: 99999999999999999999\nwrite_bytes: 2\ncancelled_write_bytes: 0\n"));
}

TEST(DeviceIo, DifferencesAndSums) {
  const DeviceBytes a{10, 20, 5}, b{4, 8, 1};
  EXPECT_EQ(a - b, (DeviceBytes{6, 12, 4}));
  EXPECT_EQ(a - b + b, a);
}

TEST(DeviceIo, ThisProcessIsReadableOnLinuxAndNeverDecreases) {
  const std::optional<DeviceBytes> before = tcert::device_bytes_now();
  if (!before) GTEST_SKIP() << "/proc/self/io cannot be read here";
  const std::optional<DeviceBytes> after = tcert::device_bytes_now();
  ASSERT_TRUE(after);
  EXPECT_GE(after->read_bytes, before->read_bytes);
  EXPECT_GE(after->write_bytes, before->write_bytes);
}

TEST(DeviceIo, CountersChargeNothingUnlessTurnedOn) {
  using tcert::counters;
  using tcert::Phase;
  counters().count_device(false);
  counters().reset();
  EXPECT_FALSE(counters().counts_device());
  { tcert::PhaseScope compute(Phase::Compute); }
  EXPECT_EQ(counters().device(Phase::Compute), DeviceBytes{});
  counters().count_device(true);
  EXPECT_EQ(counters().counts_device(), tcert::device_bytes_now().has_value());
  counters().begin_section("s");
  { tcert::PhaseScope compute(Phase::Compute); }
  const tcert::Section& s = counters().end_section();
  for (std::size_t p = 0; p < tcert::kPhaseCount; ++p)  // what this process moved meanwhile, if anything
    EXPECT_LE(s.device_by_phase[p].read_bytes, counters().device(static_cast<Phase>(p)).read_bytes);
  counters().count_device(false);
  counters().reset();
}

TEST(DeviceIo, CountersChargeTheBytesDirtiedInAPhaseToIt) {
  using tcert::counters;
  using tcert::Phase;
  tcert_test::TempDir dir;
  counters().count_device(true);
  if (!counters().counts_device()) GTEST_SKIP() << "/proc/self/io cannot be read here";
  counters().reset();
  const DeviceBytes before = *tcert::device_bytes_now();
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  {
    tcert::PhaseScope compute(Phase::Compute);
    const std::vector<char> data(kBytes, 'x');
    std::ofstream(dir.file("f.bin"), std::ios::binary).write(data.data(), static_cast<std::streamsize>(kBytes));
  }
  const DeviceBytes after = *tcert::device_bytes_now();
  if (after.write_bytes == before.write_bytes) GTEST_SKIP() << "this file system does not account page-cache writes";
  EXPECT_GE(counters().device(Phase::Compute).write_bytes, kBytes);  // the pages it dirtied
  EXPECT_EQ(counters().device(Phase::Redistribute), DeviceBytes{});
  counters().count_device(false);
  counters().reset();
}

}  // namespace
