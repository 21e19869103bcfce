// tests/runtime/base/memory_test.cpp — tile buffers against the per-rank memory budget.
#include "runtime/base/memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "runtime/base/error.h"

namespace {

using tcert::budget;

struct MemoryTest : ::testing::Test {
  void SetUp() override {
    budget().set_limit_bytes(0);
    budget().reset_peak();
    ASSERT_EQ(budget().in_use_bytes(), 0u);
  }
  void TearDown() override { budget().set_limit_bytes(0); }
};

TEST_F(MemoryTest, AllocationIsAlignedAndCharged) {
  tcert::Buffer a = tcert::allocate(3, "tile of A");
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 64, 0u);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a.bytes(), 24u);
  EXPECT_EQ(budget().in_use_bytes(), 24u);
  a[2] = 1.5;
  EXPECT_EQ(a.span()[2], 1.5);
  {
    tcert::Buffer b = tcert::allocate(100, "tile of B");
    EXPECT_EQ(budget().in_use_bytes(), 824u);
  }
  EXPECT_EQ(budget().in_use_bytes(), 24u);
  EXPECT_EQ(budget().peak_bytes(), 824u);
  budget().reset_peak();
  EXPECT_EQ(budget().peak_bytes(), 24u);
}

TEST_F(MemoryTest, OverTheLimitThrowsWithTheNumbers) {
  budget().set_limit_bytes(1000);
  tcert::Buffer a = tcert::allocate(100, "tile of A");  // 800 bytes
  try {
    tcert::Buffer b = tcert::allocate(26, "tile of C");  // 208 more
    FAIL() << "no error";
  } catch (const tcert::Error& e) {
    EXPECT_STREQ(e.what(),
                 "tile buffers need 1008 bytes on this rank (tile of C) but the memory per rank "
                 "is 1000 bytes");
  }
  EXPECT_EQ(budget().in_use_bytes(), 800u);
  tcert::Buffer c = tcert::allocate(25, "tile of C");  // exactly at the limit
  EXPECT_EQ(budget().in_use_bytes(), 1000u);
}

TEST_F(MemoryTest, MovesTransferOwnershipAndReleaseOnce) {
  tcert::Buffer a = tcert::allocate(10, "a");
  double* p = a.data();
  tcert::Buffer b = std::move(a);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0u);
  tcert::Buffer c = tcert::allocate(5, "c");
  c = std::move(b);  // frees c's 5 elements
  EXPECT_EQ(budget().in_use_bytes(), 80u);
  c = tcert::Buffer();
  EXPECT_EQ(budget().in_use_bytes(), 0u);
}

TEST_F(MemoryTest, ZeroElementsIsEmpty) {
  budget().set_limit_bytes(1);
  tcert::Buffer a = tcert::allocate(0, "nothing");
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(budget().in_use_bytes(), 0u);
}

}  // namespace
