// SPDX-License-Identifier: Apache-2.0
#include "recipes/znode_util.h"

#include <variant>

namespace zk::recipes::detail {

std::string child_path(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

Status remove_node(SyncClient& zk, const std::string& path, const RetryPolicy& retry) {
  auto removed = with_retries<std::monostate>(zk, retry, [&]() -> Result<std::monostate> {
    Status s = zk.remove(path);
    if (s.ok() || s.error() == Error::kNoNode) return std::monostate{};
    return s.error();
  });
  return removed.error();
}

}  // namespace zk::recipes::detail
