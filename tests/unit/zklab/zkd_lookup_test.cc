// SPDX-License-Identifier: Apache-2.0
// Which zkd the zklab tool starts (zklab/zkd_lookup.h): the named one, the one
// beside zklab, the build tree's, the one on PATH, in that order, and an error
// naming every place looked; on files in a temporary directory.
#include "zklab/process/zkd_lookup.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "zklab/process/zkd_process.h"

namespace {

namespace fs = std::filesystem;
using zk::lab::find_zkd;
using zk::lab::ZkdSearch;

class ZkdLookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = zk::lab::make_temp_dir("zkd_lookup_test");
    ASSERT_FALSE(root_.empty());
    for (const char* d : {"prefix/bin", "build/zkd", "path1", "path2"}) {
      fs::create_directories(root_ / d);
    }
  }
  void TearDown() override { fs::remove_all(root_); }

  // An executable file (mode 0755) at root_/rel; its path.
  std::string executable(const std::string& rel, fs::perms perms = fs::perms(0755)) {
    const auto p = root_ / rel;
    std::ofstream(p) << "#!/bin/sh\n";
    fs::permissions(p, perms);
    return p.string();
  }
  // zklab installed at prefix/bin, built beside build/zkd/zkd, PATH path1:path2.
  ZkdSearch search() const {
    return {"", root_ / "prefix/bin/zklab", (root_ / "build/zkd/zkd").string(),
            (root_ / "path1").string() + ":" + (root_ / "path2").string()};
  }

  fs::path root_;
};

TEST_F(ZkdLookupTest, NamedWinsEvenWhenOthersExist) {
  executable("prefix/bin/zkd");
  auto s = search();
  s.named = "/somewhere/else/zkd";
  EXPECT_EQ(find_zkd(s).path, "/somewhere/else/zkd");
}

TEST_F(ZkdLookupTest, BesideZklabBeforeBuildTreeAndPath) {
  const auto beside = executable("prefix/bin/zkd");
  executable("build/zkd/zkd");
  executable("path1/zkd");
  const auto found = find_zkd(search());
  EXPECT_EQ(found.path, beside);
  EXPECT_EQ(found.error, "");
}

TEST_F(ZkdLookupTest, BuildTreeWhenNoneBeside) {
  const auto built = executable("build/zkd/zkd");
  executable("path1/zkd");
  EXPECT_EQ(find_zkd(search()).path, built);
}

TEST_F(ZkdLookupTest, PathInOrderWhenNeitherBesideNorBuilt) {
  // Not executable, so not taken; a directory named zkd is no zkd either.
  executable("prefix/bin/zkd", fs::perms(0644));
  fs::create_directories(root_ / "path1/zkd");
  const auto second = executable("path2/zkd");
  EXPECT_EQ(find_zkd(search()).path, second);
  // The first directory of PATH that has one wins.
  fs::remove(root_ / "path1/zkd");
  const auto in_first = executable("path1/zkd");
  EXPECT_EQ(find_zkd(search()).path, in_first);
}

TEST_F(ZkdLookupTest, NoneFoundNamesEveryPlaceLooked) {
  const auto found = find_zkd(search());
  EXPECT_EQ(found.path, "");
  const auto& e = found.error;
  EXPECT_NE(e.find("no zkd executable found"), std::string::npos) << e;
  EXPECT_NE(e.find("beside zklab (" + (root_ / "prefix/bin/zkd").string() + ")"), std::string::npos)
      << e;
  EXPECT_NE(e.find("in the build tree (" + (root_ / "build/zkd/zkd").string() + ")"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("on PATH (" + search().path_variable + ")"), std::string::npos) << e;
  EXPECT_NE(e.find("--zkd or $ZKLAB_ZKD"), std::string::npos) << e;
}

TEST_F(ZkdLookupTest, NoBuildTreeAndEmptyPath) {
  ZkdSearch s{"", root_ / "prefix/bin/zklab", "", ""};
  const auto found = find_zkd(s);
  EXPECT_EQ(found.path, "");
  EXPECT_EQ(found.error.find("build tree"), std::string::npos) << found.error;
  EXPECT_NE(found.error.find("on PATH (empty)"), std::string::npos) << found.error;
}

TEST_F(ZkdLookupTest, ThisProcessLooksBesideItsOwnExecutable) {
  const auto s = zk::lab::this_process_search("", "");
  EXPECT_EQ(s.own_executable, fs::read_symlink("/proc/self/exe"));
  EXPECT_EQ(s.named, "");
}

}  // namespace
