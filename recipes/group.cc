// SPDX-License-Identifier: Apache-2.0
#include "recipes/group.h"

#include <algorithm>

#include "recipes/protected_create.h"
#include "recipes/watch_wait.h"
#include "recipes/znode_util.h"

namespace zk::recipes {

namespace {

// The data of each named member; members gone meanwhile are left out.
Result<std::vector<GroupMember>> read_members(SyncClient& zk, const std::string& group,
                                              std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::vector<GroupMember> members;
  for (const std::string& name : names) {
    auto node = zk.get_data(detail::child_path(group, name));
    if (node.ok()) {
      members.push_back({name, node->data.value_or(std::string())});
    } else if (node.error() != Error::kNoNode) {
      return node.error();
    }
  }
  return members;
}

}  // namespace

Status join_group(SyncClient& zk, const std::string& group, const std::string& name,
                  const std::string& data, const RetryPolicy& policy) {
  if (name.empty() || name.find('/') != std::string::npos) return Error::kBadArguments;
  Status parent = ensure_path(zk, group, policy);
  if (!parent.ok()) return parent;
  const std::string path = detail::child_path(group, name);
  return with_retries<std::monostate>(
             zk, policy,
             [&]() -> Result<std::monostate> {
               auto created = zk.create(path, data, zk::wire::CreateMode::kEphemeral);
               if (created.ok()) return std::monostate{};
               if (created.error() != Error::kNodeExists) return created.error();
               auto stat = zk.exists(path);
               if (!stat.ok()) return stat.error();
               if (stat->has_value() && (*stat)->ephemeral_owner == zk.session_id()) {
                 return std::monostate{};
               }
               return Error::kNodeExists;
             })
      .error();
}

Status leave_group(SyncClient& zk, const std::string& group, const std::string& name,
                   const RetryPolicy& policy) {
  return detail::remove_node(zk, detail::child_path(group, name), policy);
}

Result<std::vector<GroupMember>> list_members(SyncClient& zk, const std::string& group,
                                              const RetryPolicy& policy) {
  return with_retries<std::vector<GroupMember>>(zk, policy,
                                                [&]() -> Result<std::vector<GroupMember>> {
                                                  auto names = zk.get_children(group);
                                                  if (!names.ok()) {
                                                    if (names.error() == Error::kNoNode)
                                                      return std::vector<GroupMember>{};
                                                    return names.error();
                                                  }
                                                  return read_members(zk, group, std::move(*names));
                                                });
}

Result<std::vector<GroupMember>> await_membership_change(
    SyncClient& zk, const std::string& group, const std::vector<std::string>& known,
    std::optional<std::chrono::milliseconds> timeout, const RetryPolicy& policy) {
  const detail::Deadline deadline = detail::deadline_after(timeout);
  Status exists = ensure_path(zk, group, policy);
  if (!exists.ok()) return exists.error();
  for (;;) {
    auto watched = detail::watched_read<std::vector<std::string>>(
        zk, policy, [&](auto watch) { return zk.get_children(group, std::move(watch)); });
    if (!watched.result.ok()) return watched.result.error();
    std::vector<std::string>& names = *watched.result;
    std::sort(names.begin(), names.end());
    if (names != known) {
      return with_retries<std::vector<GroupMember>>(zk, policy,
                                                    [&] { return read_members(zk, group, names); });
    }
    if (!watched.wait(deadline)) return Error::kOperationTimeout;
  }
}

}  // namespace zk::recipes
