// SPDX-License-Identifier: Apache-2.0
#include "recipes/rendezvous.h"

#include "recipes/protected_create.h"
#include "recipes/watch_wait.h"

namespace zk::recipes {

Status create_rendezvous(SyncClient& zk, const std::string& path, const RetryPolicy& policy) {
  Status created = ensure_path(zk, path, policy);
  if (!created.ok()) return created;
  auto stat =
      with_retries<std::optional<zk::wire::Stat>>(zk, policy, [&] { return zk.exists(path); });
  if (!stat.ok()) return stat.error();
  if (!stat->has_value()) return Error::kNoNode;  // deleted meanwhile
  return (*stat)->version == 0 ? Error::kOk : Error::kNodeExists;
}

Status fill_rendezvous(SyncClient& zk, const std::string& path, const std::string& data,
                       const RetryPolicy& policy) {
  bool in_doubt = false;
  return with_retries<std::monostate>(
             zk, policy,
             [&]() -> Result<std::monostate> {
               auto stat = zk.set_data(path, data, 0);
               if (stat.ok()) return std::monostate{};
               if (stat.error() == Error::kBadVersion && in_doubt) {
                 auto node = zk.get_data(path);
                 if (!node.ok()) return node.error();
                 if (node->stat.version == 1 && node->data == zk::wire::Buffer(data)) {
                   return std::monostate{};
                 }
               }
               in_doubt = in_doubt || stat.error() == Error::kConnectionLoss;
               return stat.error();
             })
      .error();
}

Result<std::string> await_rendezvous(SyncClient& zk, const std::string& path,
                                     std::optional<std::chrono::milliseconds> timeout,
                                     const RetryPolicy& policy) {
  const detail::Deadline deadline = detail::deadline_after(timeout);
  for (;;) {
    auto node = detail::watched_read<zk::client::NodeData>(
        zk, policy, [&](auto watch) { return zk.get_data(path, std::move(watch)); });
    if (!node.result.ok()) return node.result.error();
    if (node.result->stat.version > 0) return node.result->data.value_or(std::string());
    if (!node.wait(deadline)) return Error::kOperationTimeout;
  }
}

}  // namespace zk::recipes
