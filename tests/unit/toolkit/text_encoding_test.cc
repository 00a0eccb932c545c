// SPDX-License-Identifier: Apache-2.0
#include "toolkit/text_encoding.h"

#include <gtest/gtest.h>

namespace zk::toolkit {
namespace {

TEST(Utf8, AcceptsAsciiAndMultiByteText) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("hello"));
  EXPECT_TRUE(is_valid_utf8("gr\xC3\xBC\xC3\x9F"));         // grüß
  EXPECT_TRUE(is_valid_utf8("\xE2\x82\xAC"));               // €
  EXPECT_TRUE(is_valid_utf8("\xF0\x9F\x98\x80"));           // 😀
  EXPECT_TRUE(is_valid_utf8(std::string_view("a\0b", 3)));  // NUL is valid UTF-8
}

TEST(Utf8, RejectsMalformedSequences) {
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8("\x80"));              // lone continuation
  EXPECT_FALSE(is_valid_utf8("\xC3"));              // truncated
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
}

TEST(Utf8, SanitizeReplacesOnlyBadBytes) {
  EXPECT_EQ(sanitize_utf8("ok \xE2\x82\xAC"), "ok \xE2\x82\xAC");
  EXPECT_EQ(sanitize_utf8("a\xFF"
                          "b"),
            "a\xEF\xBF\xBD"
            "b");
}

TEST(Base64, MatchesRfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string_view("\xFF\x00\xFE", 3)), "/wD+");
}

}  // namespace
}  // namespace zk::toolkit
