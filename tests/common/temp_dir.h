// SPDX-License-Identifier: Apache-2.0
// A directory of a test's own under /tmp (mkdtemp), removed with it (unless
// kept), and files written into it: for tests that hand paths to the code
// under test.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace zk::test {

class TempDir {
 public:
  // /tmp/<prefix>-XXXXXX; throws when it cannot be made (the test fails).
  explicit TempDir(const std::string& prefix) {
    std::string name = "/tmp/" + prefix + "-XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp " + name);
    path_ = name;
  }
  ~TempDir() {
    if (kept_) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Leaves the directory in place when destroyed (to look at it after a run).
  void keep() { kept_ = true; }
  // <dir>/<name> as text, for code that takes paths as strings.
  std::string at(const std::string& name) const { return (path_ / name).string(); }
  // Writes `text` to <dir>/<name> (replacing it); returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const auto file = path_ / name;
    std::ofstream(file, std::ios::trunc | std::ios::binary) << text;
    return file.string();
  }

 private:
  std::filesystem::path path_;
  bool kept_ = false;
};

}  // namespace zk::test
