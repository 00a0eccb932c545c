// SPDX-License-Identifier: Apache-2.0
// Runs every testdata/*.txt transcript through a fresh Harness and compares
// the output of each command with the expected block below it:
//
//   # comment
//   command args
//   ----
//   expected output (no blank lines)
//
// ZAB_REWRITE=1 rewrites the files with the actual output: review the diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/zab/harness.h"

namespace zkd::zab::test {
namespace {

std::vector<std::string> transcripts() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(ZAB_TESTDATA_DIR)) {
    if (e.path().extension() == ".txt") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

class Transcript : public ::testing::TestWithParam<std::string> {};

TEST_P(Transcript, MatchesExpectedOutput) {
  const std::string path = std::string(ZAB_TESTDATA_DIR) + "/" + GetParam() + ".txt";
  const std::vector<std::string> lines = read_lines(path);
  const char* env = std::getenv("ZAB_REWRITE");
  const bool rewrite = env != nullptr && std::string(env) == "1";
  Harness h;
  std::string rewritten;
  size_t i = 0;
  while (i < lines.size()) {
    const std::string& line = lines[i];
    if (line.empty() || line[0] == '#') {
      rewritten += line + "\n";
      ++i;
      continue;
    }
    const std::string command = line;
    const size_t at = i + 1;
    ++i;
    std::string expected;
    if (i < lines.size() && lines[i] == "----") {
      ++i;
      while (i < lines.size() && !lines[i].empty()) expected += lines[i++] + "\n";
    }
    const std::string actual = h.run(command);
    rewritten += command + "\n----\n" + actual;
    if (!rewrite) {
      EXPECT_EQ(expected, actual) << path << ":" << at << ": " << command;
    }
  }
  for (const auto& v : h.violations()) ADD_FAILURE() << path << ": invariant violated: " << v;
  if (rewrite) {
    std::ofstream(path) << rewritten;
  }
}

INSTANTIATE_TEST_SUITE_P(Zab, Transcript, ::testing::ValuesIn(transcripts()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace zkd::zab::test
