// tests/runtime/base/random_test.cpp — the counter-based input generator and the FNV-1a tensor ids.
#include "runtime/base/random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace {

using tcert::random_element;
using tcert::tensor_id_of;

// Pure and constexpr: the compiler can evaluate both.
static_assert(random_element(1, 2, 3) == random_element(1, 2, 3));
static_assert(tensor_id_of("") == 14695981039346656037ULL);

TEST(Random, Fnv1aKnownValues) {
  EXPECT_EQ(tensor_id_of(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(tensor_id_of("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(tensor_id_of("foobar"), 0x85944171f73967e8ULL);
}

TEST(Random, ValuesAreInRangeAndDependOnEveryArgument) {
  double sum = 0, sum_sq = 0;
  std::set<double> seen;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    double x = random_element(7, tensor_id_of("A"), i);
    ASSERT_GE(x, -1.0);
    ASSERT_LT(x, 1.0);
    sum += x;
    sum_sq += x * x;
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(n));
  EXPECT_NEAR(sum / n, 0.0, 0.01);           // uniform on [-1, 1): mean 0
  EXPECT_NEAR(sum_sq / n, 1.0 / 3.0, 0.01);  // and second moment 1/3
  EXPECT_NE(random_element(7, 1, 0), random_element(8, 1, 0));
  EXPECT_NE(random_element(7, 1, 0), random_element(7, 2, 0));
  EXPECT_NE(random_element(7, 1, 0), random_element(7, 1, 1));
}

TEST(Random, ExtremesOfTheMapping) {
  // 53 bits of the mix give k·2^-52 − 1 exactly: a multiple of 2^-52.
  double x = random_element(0, 0, 0);
  double scaled = (x + 1.0) * 0x1.0p52;
  EXPECT_EQ(scaled, std::floor(scaled));
}

}  // namespace
