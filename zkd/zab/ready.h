// SPDX-License-Identifier: Apache-2.0
// What the core hands to its host in one batch. The host must carry out a
// Ready in the order of the fields below (docs/zab.md, "The Ready contract"),
// then call Zab::advance().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zkd/zab/message.h"
#include "zkd/zab/types.h"

namespace zkd::zab {

// Kept durably by the host and handed back at restart (Bootstrap).
struct HardState {
  Epoch accepted_epoch = 0;  // the last epoch this replica agreed to (LeaderInfo)
  Epoch current_epoch = 0;   // the last epoch whose history it took (NewLeader)
  friend bool operator==(const HardState&, const HardState&) = default;
};

// kObserving: an observer (Config::observers) that chose its leader. An
// observer is kLooking while it has none, and is never kFollowing or kLeading.
enum class Role : uint8_t { kLooking, kFollowing, kLeading, kObserving };
const char* to_string(Role role);

// Where the replica stands. `serving` is true once it may serve clients: a
// leader whose epoch is established (a quorum acked NewLeader), a follower or
// observer that received UpToDate.
// Why the core refused an input.
enum class Error : uint8_t {
  kOk,
  kNotLeader,           // propose() on a replica that is not leading
  kNotServing,          // leader not established / learner not up to date yet
  kCounterExhausted,    // the epoch's zxid counter ran out; the leader stepped down
  kNoSuchFollower,      // transfer(): no follower (voter) in sync to hand leadership to
  kReconfigInProgress,  // reconfigure(): a reconfiguration is not committed yet
  kNewConfigNoQuorum,   // reconfigure(): too few of the new voters are in sync
};
const char* to_string(Error error);

struct Proposed {
  Zxid zxid = 0;
  Error error = Error::kOk;
  bool ok() const { return error == Error::kOk; }
};

struct Status {
  Role role = Role::kLooking;
  ServerId leader = 0;  // 0 when unknown
  Epoch epoch = 0;      // the epoch being led / followed (accepted epoch)
  bool serving = false;
  friend bool operator==(const Status&, const Status&) = default;
};

// A write a learner forwarded to this leader: preprocess it into a txn and
// call propose().
struct Request {
  ServerId from = 0;
  std::string payload;
};

struct Ready {
  // 1. Persist durably before anything of this Ready leaves the host.
  std::optional<HardState> hard_state;
  // 2. Learner: the leader's Snap message (in the input that produced this
  //    Ready) carried a snapshot at this zxid. Install it and discard the
  //    whole log, durably, then call snapshot_installed(zxid).
  std::optional<Zxid> install_snapshot;
  // 3. Drop every log entry with a larger zxid, durably before this Ready's
  //    messages leave. If the host's state machine
  //    already applied entries after this zxid, it must rebuild it to exactly
  //    this zxid (snapshot + own log) before applying `committed`.
  std::optional<Zxid> truncate_after;
  // 4. Append to the log, in order. Report with persisted(zxid) once durable;
  //    may be asynchronous.
  std::vector<Entry> entries;
  // 5. Apply to the state machine, in order. They are committed.
  std::vector<Entry> committed;
  // 6. Send, in order per destination. For a Snap message, attach the
  //    state machine's state at message.zxid, which is the state right after
  //    applying `committed` above.
  std::vector<Message> messages;
  // 7. Leader: writes forwarded by learners, to preprocess and propose().
  std::vector<Request> requests;
  // 8. sync() calls that may now be answered (applied up to the leader's
  //    point), and those that can no longer be (the replica lost its leader).
  std::vector<uint64_t> syncs_done;
  std::vector<uint64_t> syncs_failed;
  // Set when role, leader, epoch or serving changed since the last Ready.
  std::optional<Status> status;
  // 10. Learner: the leader's tree digests (zxid, digest) as they arrived,
  //     to compare with the host's own at those zxids (applied already, or
  //     not yet: the host keeps both sides until they meet).
  std::vector<std::pair<Zxid, uint64_t>> digests;

  bool empty() const {
    return !hard_state && !install_snapshot && !truncate_after && entries.empty() &&
           committed.empty() && messages.empty() && requests.empty() && syncs_done.empty() &&
           syncs_failed.empty() && !status && digests.empty();
  }
};

}  // namespace zkd::zab
