// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/path.h"

#include <gtest/gtest.h>

namespace zk::wire {
namespace {

TEST(Path, ValidPaths) {
  for (const char* p : {"/", "/a", "/a/b", "/zookeeper/quota", "/a.b", "/...", "/a b", "/é"}) {
    EXPECT_TRUE(is_valid_path(p)) << p << ": " << path_error(p);
  }
}

TEST(Path, InvalidPaths) {
  for (const char* p : {"", "a", "/a/", "//", "/a//b", "/.", "/..", "/a/./b", "/a/../b", "/a/."}) {
    EXPECT_FALSE(is_valid_path(p)) << p;
  }
}

TEST(Path, ControlAndReservedCharactersAreInvalid) {
  EXPECT_FALSE(is_valid_path(std::string("/a\0b", 4)));
  EXPECT_FALSE(is_valid_path("/a\x01"));
  EXPECT_FALSE(is_valid_path("/a\x7f"));
  EXPECT_FALSE(is_valid_path("/a\xc2\x85"));      // U+0085
  EXPECT_FALSE(is_valid_path("/a\xef\xbf\xb0"));  // U+FFF0
}

TEST(Path, SupplementaryCharactersAreInvalidAsInApache) {
  EXPECT_FALSE(is_valid_path("/\xf0\x9f\x98\x80"));  // U+1F600, two UTF-16 surrogates in Java
}

TEST(Path, SequentialPathMayEndWithSlash) {
  EXPECT_TRUE(path_error("/t/", true).empty());
  EXPECT_FALSE(path_error("/t/", false).empty());
  EXPECT_TRUE(path_error("/t/n-", true).empty());
}

TEST(Path, ErrorsSayWhy) {
  EXPECT_EQ(path_error("a"), "Path must start with / character");
  EXPECT_EQ(path_error("/a/"), "Path must not end with / character");
}

TEST(Path, ParentAndBaseName) {
  EXPECT_EQ(parent_path("/a/b"), "/a");
  EXPECT_EQ(parent_path("/a"), "/");
  EXPECT_EQ(parent_path("/"), "");
  EXPECT_EQ(base_name("/a/b"), "b");
  EXPECT_EQ(base_name("/a"), "a");
  EXPECT_EQ(base_name("/"), "");
}

}  // namespace
}  // namespace zk::wire
