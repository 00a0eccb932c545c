// SPDX-License-Identifier: Apache-2.0
// Double barrier (the ZooKeeper recipes; Curator's DistributedDoubleBarrier
// layout): processes enter together once N have arrived, and leave together
// once all have finished.
//
// Layout under the barrier path B: one child per member, B/<member name>
// (by default a random UUID, ephemeral, as Curator), and B/ready, created by
// the member whose arrival makes the count reach N. N is a threshold: more
// than N may enter.
//
// enter: watch B/ready (exists), create the member node; if B/ready existed,
// done; otherwise count the members and, at N or more, create B/ready; else
// wait for B/ready's creation. One notification per waiting member; every
// waiter is released by the same create, so nobody passes before the N-th
// member's node exists.
// leave (the ZooKeeper recipe): while members remain, the lowest-named member
// waits for the highest to go; every other member deletes its node and waits
// for the lowest to go. When none remain, B/ready is deleted, so the path can
// be used for the next round. Curator members (which all delete their node
// and watch the highest) can share a barrier with these.
//
// Connection loss: steps are retried per the policy; a lost create of the
// member node is found again by name (and, for ephemeral members, by the
// session owning it). Session expiry removes an ephemeral member node and
// fails the call with kSessionExpired.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "recipes/retry.h"

namespace zk::recipes {

inline constexpr const char* kDoubleBarrierReadyNode = "ready";

struct DoubleBarrierOptions {
  // The member node's name; empty: a fresh random UUID (Curator's naming).
  std::string member_name;
  // Persistent member nodes outlive the session, for members that enter and
  // leave from different processes (zkctl); a member that never leaves then
  // blocks leave for everyone until its node is deleted.
  bool persistent = false;
  RetryPolicy retry;
};

class DoubleBarrier {
 public:
  // `members` (N) >= 1. The client is borrowed and must outlive the barrier.
  DoubleBarrier(SyncClient& zk, std::string path, int members, DoubleBarrierOptions options = {});

  // Joins and blocks until N members have joined, at most `timeout` (none:
  // forever). On timeout the member node is deleted again and
  // kOperationTimeout returned. Errors: kBadArguments (N < 1),
  // kNodeExists (the name is another session's ephemeral member),
  // kSessionExpired, kConnectionLoss.
  Status enter(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // Leaves and blocks until every member has left, at most `timeout` (none:
  // forever); the member node is deleted even on timeout. Errors:
  // kOperationTimeout, kSessionExpired, kConnectionLoss.
  Status leave(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // B/<member name>.
  const std::string& member_path() const { return member_path_; }

 private:
  SyncClient& zk_;
  std::string path_;
  int members_;
  DoubleBarrierOptions options_;
  std::string member_name_;
  std::string member_path_;
  std::string ready_path_;
};

}  // namespace zk::recipes
