// SPDX-License-Identifier: Apache-2.0
#include "libzk/json/json_writer.h"

#include <gtest/gtest.h>

namespace zk::json {
namespace {

TEST(JsonWriter, WritesNestedObjectsAndArraysWithCommas) {
  JsonWriter w;
  w.begin_object();
  w.key("path").string("/a");
  w.key("n").number(-3);
  w.key("big").number(INT64_MAX);
  w.key("ok").boolean(true);
  w.key("none").null();
  w.key("list").begin_array().string("x").string("y").end_array();
  w.key("empty").begin_array().end_array();
  w.key("obj").begin_object().key("k").boolean(false).end_object();
  w.end_object();
  EXPECT_EQ(w.str(), R"({"path":"/a","n":-3,"big":9223372036854775807,"ok":true,"none":null,)"
                     R"("list":["x","y"],"empty":[],"obj":{"k":false}})");
}

TEST(JsonQuote, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(json_quote("plain"), R"("plain")");
  EXPECT_EQ(json_quote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(json_quote("l1\nl2\tx\r"), R"("l1\nl2\tx\r")");
  EXPECT_EQ(json_quote(std::string_view("\0\x01\x1f\x7f", 4)), R"("\u0000\u0001\u001f\u007f")");
  EXPECT_EQ(json_quote("\b\f"), R"("\b\f")");
}

TEST(JsonQuote, KeepsUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(json_quote("\xE2\x82\xAC"), "\"\xE2\x82\xAC\"");
  EXPECT_EQ(json_quote("\xFF"), "\"\xEF\xBF\xBD\"");
}

TEST(JsonWriter, RealsAreShortestAndAlwaysValidJson) {
  JsonWriter w;
  w.begin_array().real(0.25).real(1e6).real(1.0 / 0.0).real(0.0 / 0.0).end_array();
  EXPECT_EQ(w.str(), "[0.25,1e+06,0,0]");
}

}  // namespace
}  // namespace zk::json
