// SPDX-License-Identifier: Apache-2.0
// The replica host: one replica's Zab core (zkd/zab) and the code that carries
// out its Ready batches on zkd's own storage, in the order docs/zab.md ("The
// Ready contract") requires: the epoch files, installing a leader's snapshot,
// truncating the log and rebuilding the tree past the cut, appending, applying
// committed txns, the tree digest exchange, and preparing the writes it
// proposes as leader (docs/replication.md).
//
// It knows no socket, timer, thread or client: zkd's Server drives it from
// its io_context and the peer transport, and the simulator (tests/sim) drives
// N of them from one seed on MemoryEnv disks and a simulated network. What it
// needs from outside comes through three seams:
//  - storage::Env and the StorageLayout: the epoch files, snapshots, and the
//    recovery that rebuilds the tree after a truncation;
//  - ReplicaLog: the txn log (zkd: the LogThread; durability comes back
//    later through persisted());
//  - ReplicaEvents: what it hands back (messages to send, applied txns for
//    the client side, status changes, failures, the snapshot schedule).
//
// Threading: not thread-safe; one thread calls everything, and every event
// is called on that thread from within one of the input calls below. An
// input never nests inside another's events (events may call inputs: the
// host queues nothing, but process() does not re-enter; the nested input's
// Ready is carried out by the outer loop).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zkd/server/digest_check.h"
#include "zkd/server/recovery.h"
#include "zkd/server/replica_log.h"
#include "zkd/server/replica_metrics.h"
#include "zkd/server/snapshot_stream.h"
#include "zkd/server/write_request.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"
#include "zkd/storage/txn_log.h"
#include "zkd/tree/database.h"
#include "zkd/tree/txn.h"
#include "zkd/zab/zab.h"

namespace zkd::server {

// What the host hands back. Each is called on the host's thread, from within
// an input call.
class ReplicaEvents {
 public:
  virtual ~ReplicaEvents() = default;
  // Sends `message` to message.to with `attachment` (a SnapChunk's bytes of
  // the state; snapshot_stream.h).
  virtual void send(zab::Message message, std::string attachment) = 0;
  // The bytes sent to `peer` that have not left yet (0 when its link is
  // down): a streamed snapshot waits while there are many.
  virtual uint64_t queued_bytes(zab::ServerId peer) = 0;
  // A txn up to `zxid` was handed to the log (the snapshot schedule counts).
  virtual void logged(int64_t zxid) = 0;
  // The log is about to be cut or replaced: a snapshot in progress must go.
  virtual void abandon_snapshot() = 0;
  // Committed `txn` is about to be applied (a closeSession closes its
  // connection before the txn fires watches).
  virtual void applying(const tree::Txn& txn) = 0;
  // Committed `txn` was applied with `result`: notifications to deliver, and
  // this server's own forwarded write to answer.
  virtual void applied(tree::Txn txn, tree::ApplyResult result) = 0;
  // The tree was replaced: `installed`, by a leader's snapshot (the log is
  // empty then); otherwise rebuilt from the disk after a truncation. It is
  // at Database::last_zxid().
  virtual void state_replaced(bool installed) = 0;
  // Leader: sessions a learner's clients kept alive (session, timeout_ms).
  virtual void touched(const std::vector<std::pair<int64_t, int32_t>>& touches) = 0;
  // The sync() with this ticket may be answered now.
  virtual void sync_done(uint64_t ticket) = 0;
  virtual void status_changed(const zab::Status& old, const zab::Status& now) = 0;
  // This replica's tree differs from its leader's: it must serve no client
  // (called once; it never leads afterwards).
  virtual void diverged() = 0;
  // The host cannot carry out what the core asked (a storage error, a
  // snapshot that does not load). It has stopped; the replica must stop.
  virtual void failed(const std::string& why) = 0;
  // Every Ready of the current input is carried out.
  virtual void settled() = 0;
};

// The core's Bootstrap from what recovery found: the epoch files in
// `snap_dir`, the log `records` after the snapshot at `snapshot_zxid`, and the
// tree applied up to `applied`. Keeps up to `commit_window` records before
// `applied` for DIFFs, and every record from the last reconfig txn on. A missing currentEpoch is
// taken from the last zxid and written, as Apache does. An unreadable or unwritable epoch file is
// an error.
StatusOr<zab::Bootstrap> replica_bootstrap(storage::Env& env, const std::string& snap_dir,
                                           std::vector<storage::LogRecord> records,
                                           int64_t snapshot_zxid, int64_t applied,
                                           size_t commit_window, uint32_t incarnation);

// srvr's Mode for a replica: "leader", "follower", "observer" ("looking"
// is never shown: a looking replica does not serve).
const char* replica_mode(zab::Role role);

// The membership functions (reconfig_membership, take_*_membership) are in
// replica_membership.h.

class ReplicaHost {
 public:
  // A leader sends its tree digest once per this many applied txns.
  static constexpr uint64_t kDigestInterval = 64;

  struct Storage {
    storage::Env& env;
    StorageLayout layout;
    tree::DatabaseOptions db_options;  // for the trees it builds (snapshot, rebuild)
    SnapshotStreamLimits stream_limits = {};
  };
  // Precondition: zab::validate(config) is empty; `db` is the recovered tree
  // at boot.applied. `db`, `log` and `events` outlive the host.
  ReplicaHost(zab::Config config, zab::Bootstrap boot, Storage storage, tree::Database& db,
              ReplicaLog& log, ReplicaEvents& events);
  ReplicaHost(const ReplicaHost&) = delete;
  ReplicaHost& operator=(const ReplicaHost&) = delete;

  // --- inputs: each carries out every Ready it leads to, then settled() ---
  // The first Ready (the replica's first vote).
  void start();
  // One period of the core's timer.
  void tick();
  // A peer's message; a SnapChunk's bytes (or an unstreamed Snap's tree,
  // from a zkd 0.1 leader) are its `attachment`.
  void receive(zab::Message message, std::string attachment);
  // The link to `peer` has room again: a snapshot streamed to it goes on.
  void pump();
  // The link to `peer` broke.
  void link_down(zab::ServerId peer);
  // The log is durable up to `zxid`.
  void persisted(int64_t zxid);
  // A write: a leader that serves prepares and proposes it (kTouch: the
  // touches go to events.touched()); a serving learner forwards it. Not
  // serving, it is dropped (the client side closes its connection).
  void write(const WriteRequest& request);
  // Answered with sync_done(ticket) once this replica applied what the
  // leader had when it saw the sync.
  void sync(uint64_t ticket);
  // Leader, serving: leadership to follower `to` (0: the most up to date),
  // zab::Zab::transfer. Writes that arrive meanwhile wait here: proposed if
  // the transfer is abandoned, dropped with the clients if it succeeds.
  zab::Error transfer(zab::ServerId to);
  // rqld: a serving follower asks its leader to hand leadership over to it
  // (zab::MsgType::kLeadershipRequest); the leader does as for transfer(this
  // server). False when this replica is not a serving follower.
  bool request_leadership();
  // Takes no input any more (the server stops).
  void stop() { stopped_ = true; }

  // --- what the view (4lw, admin, metrics) reads ---
  const zab::Status& status() const { return status_; }
  const zab::Zab& core() const { return core_; }
  // A learner whose tree digest differed from its leader's.
  bool diverged() const { return diverged_; }
  uint64_t digest_mismatches() const { return digest_mismatches_; }
  uint64_t digests_compared() const { return digests_.compared(); }
  // Apache's metrics of elections, syncs, proposals and commits go to `m`
  // (which outlives the host) from now on; `local` tells whether a
  // session's client is on this server. Call before start().
  void record_metrics_in(Metrics& m, std::function<bool(int64_t session)> local) {
    metrics_.use(m, std::move(local));
  }

 private:
  int64_t steady_ms() const { return storage_.env.clock().steady_ms(); }
  // The wall clock: the time of the txns this replica proposes.
  int64_t wall_ms() const { return storage_.env.clock().wall_ms(); }
  // Carries out every pending Ready, then proposes what learners forwarded.
  void process();
  void carry_out(zab::Ready& ready);
  bool install_snapshot(zab::Zxid zxid);
  bool truncate(zab::Zxid after);
  bool apply(const zab::Entry& entry);
  // Leader: moves the txn it proposed at `zxid` into `txn`, when it still
  // holds it (see proposed_); false otherwise.
  bool take_proposed(zab::Zxid zxid, tree::Txn& txn);
  void send(zab::Message message);
  // After applying `zxid`: a leader sends its digest every kDigestInterval
  // txns; a learner compares its own with the leader's.
  void exchange_digest(zab::Zxid zxid);
  void mismatch(const DigestCheck::Mismatch& m);
  void set_status(const zab::Status& status);
  void propose(const WriteRequest& request);
  // The reconfig txn of `request` at `zxid`, or an error txn saying why not
  // (Apache's leader's checks, in its order: docs/replication.md).
  tree::Txn prepare_reconfig(const WriteRequest& request, zab::Zxid zxid);
  // The membership the tree holds and its version, when a reconfiguration
  // made it.
  std::optional<std::pair<zab::Membership, zab::Zxid>> tree_membership() const;
  void fail(const std::string& why);

  zab::Zab core_;
  Storage storage_;
  tree::Database& db_;
  ReplicaLog& log_;
  ReplicaEvents& events_;
  zab::Status status_;
  bool stopped_ = false;
  bool in_process_ = false;                // process() is running (it must not nest)
  std::vector<WriteRequest> held_writes_;  // while a transfer is under way
  // Leader: the txns it proposed and has not applied yet, in zxid order.
  // apply() takes its own txn from here rather than decoding the payload it
  // was encoded into (a copy of the value and its allocations fewer per
  // write). Emptied when the replica stops leading.
  std::deque<tree::Txn> proposed_;
  // The trees unstreamed Snap messages carried, by zxid, until installed.
  std::map<zab::Zxid, std::string> incoming_snapshots_;
  OutgoingSnapshots outgoing_;  // leader: snapshots streamed to learners
  IncomingSnapshot incoming_;   // learner: the one streamed to it
  // Tree digests (docs/replication.md, "Tree digest").
  uint64_t applied_since_digest_ = 0;  // leader: since it last sent one
  DigestCheck digests_;
  bool diverged_ = false;
  uint64_t digest_mismatches_ = 0;
  ReplicaMetrics metrics_;
};

}  // namespace zkd::server
