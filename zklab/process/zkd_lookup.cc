// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/zkd_lookup.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <vector>

namespace zk::lab {
namespace {

bool executable_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

ZkdFound find_zkd(const ZkdSearch& search) {
  if (!search.named.empty()) return {search.named, ""};
  std::vector<std::string> looked;
  const auto candidate = [&](const std::filesystem::path& p, const std::string& where) {
    looked.push_back(where + " (" + p.string() + ")");
    return executable_file(p);
  };
  if (!search.own_executable.empty()) {
    const auto beside = search.own_executable.parent_path() / "zkd";
    if (candidate(beside, "beside zklab")) return {beside.string(), ""};
  }
  if (!search.build_tree.empty() && candidate(search.build_tree, "in the build tree")) {
    return {search.build_tree, ""};
  }
  std::string path_dirs;
  for (size_t at = 0; !search.path_variable.empty() && at <= search.path_variable.size();) {
    const size_t colon = std::min(search.path_variable.find(':', at), search.path_variable.size());
    // An empty entry means the current directory, as for execvp.
    std::filesystem::path dir = search.path_variable.substr(at, colon - at);
    if (dir.empty()) dir = ".";
    if (executable_file(dir / "zkd")) return {(dir / "zkd").string(), ""};
    path_dirs += (path_dirs.empty() ? "" : ":") + dir.string();
    at = colon + 1;
  }
  looked.push_back("on PATH (" + (search.path_variable.empty() ? "empty" : path_dirs) + ")");
  std::string error = "no zkd executable found: looked ";
  for (size_t i = 0; i < looked.size(); ++i) {
    error += (i == 0 ? "" : i + 1 == looked.size() ? " and " : ", ") + looked[i];
  }
  return {"", error + "; name one with --zkd or $ZKLAB_ZKD"};
}

ZkdSearch this_process_search(std::string named, std::string build_tree) {
  ZkdSearch search{std::move(named), {}, std::move(build_tree), ""};
  std::error_code ec;
  search.own_executable = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (const char* path = std::getenv("PATH")) search.path_variable = path;
  return search;
}

}  // namespace zk::lab
