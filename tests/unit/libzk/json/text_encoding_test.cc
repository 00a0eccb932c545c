// SPDX-License-Identifier: Apache-2.0
#include "libzk/json/text_encoding.h"

#include <gtest/gtest.h>

namespace zk::json {
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

TEST(Base64, DecodesWhatItEncodesPaddedOrNot) {
  for (const char* text : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    EXPECT_EQ(base64_decode(base64_encode(text)), std::string(text)) << text;
  }
  EXPECT_EQ(base64_decode("Zm8"), "fo");
  EXPECT_EQ(base64_decode("Zm9v\nYmFy\n"), "foobar");
  EXPECT_EQ(base64_decode("/wD+"), std::string("\xFF\x00\xFE", 3));
}

TEST(Base64, RefusesWhatNoEncodingProduces) {
  EXPECT_EQ(base64_decode("Z"), std::nullopt);      // one digit holds no byte
  EXPECT_EQ(base64_decode("Zm9v!"), std::nullopt);  // not in the alphabet
  EXPECT_EQ(base64_decode("Zg=a"), std::nullopt);   // a digit after padding
  EXPECT_EQ(base64_decode("Zg==="), std::nullopt);  // too much padding
  EXPECT_EQ(base64_decode("Zm8=="), std::nullopt);  // padding past the quantum
}

TEST(Hex, RoundTripsAndRefusesOddOrForeignDigits) {
  EXPECT_EQ(hex_encode(std::string_view("\x00\x7f\xff", 3)), "007fff");
  EXPECT_EQ(hex_decode("007FfF"), std::string("\x00\x7f\xff", 3));
  EXPECT_EQ(hex_decode("0x41"), "A");
  EXPECT_EQ(hex_decode(""), "");
  EXPECT_EQ(hex_decode("abc"), std::nullopt);
  EXPECT_EQ(hex_decode("zz"), std::nullopt);
}

}  // namespace
}  // namespace zk::json
