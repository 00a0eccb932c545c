// SPDX-License-Identifier: Apache-2.0
// Group membership (the ZooKeeper paper, section 2.4): each member is an
// ephemeral child of the group node, named by the member and holding its data,
// so a member whose process dies leaves the group when its session expires.
//
// Layout: GROUP/<name> (ephemeral), data = the member's data. Names are
// chosen by the members and must be unique in the group.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "recipes/retry.h"

namespace zk::recipes {

struct GroupMember {
  std::string name;
  std::string data;  // null data reads as empty
  bool operator==(const GroupMember&) const = default;
};

// Joins `group` (created with its ancestors when missing) as `name`. Retries
// on connection loss; a node `name` owned by this session (a lost create) is
// success. The membership lasts until leave_group or the session's end.
// Errors: kNodeExists (another session's member has this name),
// kBadArguments (an invalid name), kSessionExpired, kConnectionLoss.
Status join_group(SyncClient& zk, const std::string& group, const std::string& name,
                  const std::string& data, const RetryPolicy& policy = {});

// Leaves: deletes GROUP/name; a missing node is success.
Status leave_group(SyncClient& zk, const std::string& group, const std::string& name,
                   const RetryPolicy& policy = {});

// The members, sorted by name; none for a missing group. A member that leaves
// while being read is left out. Retries on connection loss.
Result<std::vector<GroupMember>> list_members(SyncClient& zk, const std::string& group,
                                              const RetryPolicy& policy = {});

// Waits until the member names differ from `known` (sorted) and returns the
// new members. Blocks at most `timeout` (none: forever); a missing group is
// created. Errors: kOperationTimeout, kSessionExpired, kConnectionLoss.
Result<std::vector<GroupMember>> await_membership_change(
    SyncClient& zk, const std::string& group, const std::vector<std::string>& known,
    std::optional<std::chrono::milliseconds> timeout = std::nullopt,
    const RetryPolicy& policy = {});

}  // namespace zk::recipes
