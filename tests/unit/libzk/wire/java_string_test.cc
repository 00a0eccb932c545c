// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/java_string.h"

#include <gtest/gtest.h>

namespace zk::wire {
namespace {

// Expected bytes are what Apache ZooKeeper 3.8.0 echoed for sync (probed live).
TEST(JavaString, ValidBmpTextIsUnchanged) {
  EXPECT_EQ(java_string_round_trip("/d/a"), "/d/a");
  EXPECT_EQ(java_string_round_trip("/\xc3\xa9\xe2\x82\xac"), "/\xc3\xa9\xe2\x82\xac");
}

TEST(JavaString, InvalidByteBecomesReplacementCharacter) {
  EXPECT_EQ(java_string_round_trip("/d/\xff"), "/d/\xef\xbf\xbd");
}

TEST(JavaString, TruncatedSequenceAtTheEndBecomesOneReplacement) {
  EXPECT_EQ(java_string_round_trip("/d/a\xc3"), "/d/a\xef\xbf\xbd");
  EXPECT_EQ(java_string_round_trip("/d/a\xe2\x82"), "/d/a\xef\xbf\xbd");
}

TEST(JavaString, SupplementaryCharacterBecomesTwoSurrogateSequences) {
  EXPECT_EQ(java_string_round_trip("/d/\xf0\x9f\x98\x80"), "/d/\xed\xa0\xbd\xed\xb8\x80");
}

TEST(JavaString, EncodedSurrogatesAreMalformedOneReplacementEach) {
  EXPECT_EQ(java_string_round_trip("/d/\xed\xa0\xbd\xed\xb8\x80"), "/d/\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(JavaString, BadContinuationReplacesOnlyTheLeadByte) {
  EXPECT_EQ(java_string_round_trip("\xc3"
                                   "a"),
            "\xef\xbf\xbd"
            "a");
}

}  // namespace
}  // namespace zk::wire
