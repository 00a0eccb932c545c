// SPDX-License-Identifier: Apache-2.0
// LeaderElection: the ZooKeeper paper's leader election, in the node layout
// of Curator's LeaderLatch, so that Curator latches and these candidates
// elect one leader among them.
//
// Layout: each candidate creates an ephemeral sequential node (a protected
// create) holding its id as data:
//   PATH/_c_<uuid>-latch-<10-digit sequence>
// The candidate with the lowest sequence leads; every other candidate watches
// only its predecessor (getData with a watch) and looks again when it goes.
// When the leader's session ends (its process dies: after the session
// timeout; it closes: at once) the next candidate leads.
//
// Guarantees: at most one leader at a time among sessions that have not
// expired; leadership passes in creation order; each leadership has a fencing
// token (fencing.h: the czxid of the leader's node, increasing from one
// leader to the next). Connection loss, expiry, loss reports and threading:
// as Lock (lock.h); a leadership is a LockHold: release it (or destroy it) to
// step down, ask it lost() or give LockOptions::on_lost to learn that the
// session ended.
//
// Curator differences: a LeaderLatch deletes and recreates its node after a
// reconnection (it goes to the back of the queue), and considers itself no
// longer leader while disconnected; this recipe keeps its node and place
// across reconnections and reports a loss only when the session ends.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "recipes/lock_hold.h"
#include "recipes/lock_options.h"

namespace zk::recipes {

using Leadership = LockHold;

class LeaderElection : public LockRecipe {
 public:
  // The node name Curator's LeaderLatch uses.
  static constexpr const char* kNodeName = "latch-";

  // A candidate named `id` (stored as its node's data, replacing
  // options.data). `zk` must be connected and outlive the election and its
  // leaderships.
  LeaderElection(SyncClient& zk, std::string path, std::string id, LockOptions options = {});

  // Joins the election and blocks until this candidate leads, or `timeout`
  // passes (none: forever; zero: lead now or not at all). Errors: as
  // Lock::acquire.
  Result<Leadership> await_leadership(
      std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // wakeups() (LockRecipe): this candidate's waits, as Lock's.

  const std::string& id() const { return id_; }

  // The id of the current leader (the data of the lowest candidate node),
  // nothing when there is no candidate or PATH does not exist. Retries on
  // connection loss per `retry`.
  static Result<std::optional<std::string>> leader_id(SyncClient& zk, const std::string& path,
                                                      const RetryPolicy& retry = {});

 private:
  std::string id_;
};

}  // namespace zk::recipes
