// vocabulary.h: the names of a Gao plan's choices, as plan texts, reports and traces write
// them, and back.
#include <gtest/gtest.h>

#include <string>

#include "runtime/spec/vocabulary.h"

namespace {

using namespace tcert;

TEST(Vocabulary, NamesAsPlansAndTracesWriteThem) {
  EXPECT_STREQ(to_string(Communication::Inside), "inside");
  EXPECT_STREQ(to_string(Communication::Outside), "outside");
  EXPECT_STREQ(to_string(Algorithm::Rotation), "rotation");
  EXPECT_STREQ(to_string(Algorithm::Replication), "replication");
  EXPECT_STREQ(to_string(Algorithm::Accumulation), "accumulation");
  EXPECT_STREQ(to_string(Operand::A), "A");
  EXPECT_STREQ(to_string(Operand::B), "B");
  std::string orders;
  for (PlacementOrder o : kAllOrders) orders += std::string(to_string(o)) + " ";
  EXPECT_EQ(orders, "ABC ACB BAC BCA CAB CBA ");
}

TEST(Vocabulary, ParsesEveryNameBackAndNothingElse) {
  for (PlacementOrder o : kAllOrders) EXPECT_EQ(parse_order(to_string(o)), o);
  EXPECT_EQ(parse_operand("A"), Operand::A);
  EXPECT_EQ(parse_operand("B"), Operand::B);
  for (const char* bad : {"", "abc", "CBB", "ABCD", "C"}) EXPECT_EQ(parse_order(bad), std::nullopt) << bad;
  for (const char* bad : {"", "a", "C", "AB"}) EXPECT_EQ(parse_operand(bad), std::nullopt) << bad;
}

}  // namespace
