// SPDX-License-Identifier: Apache-2.0
// The replicated state machine of one zkd replica: data tree, session table,
// watch tables. Pure: no sockets, no clock, no threads; zxids and times are
// passed in. Not thread-safe: the server calls it from one thread (the state
// thread) in request order, which is what makes replies FIFO per session.
//
// A write request becomes a Txn in prepare() (Apache's PrepRequestProcessor:
// validation, version checks, sequential names, error txns) and changes state
// only in apply() (Apache's FinalRequestProcessor + DataTree.processTxn). In
// standalone mode the server applies each txn right after preparing it; under
// Zab, prepare() runs on the leader and apply() on every replica at commit.
// Reads are answered by read() from the current state.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkd/status/status.h"
#include "zkd/tree/auth_ids.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/results.h"
#include "zkd/tree/txn.h"

namespace zkd::tree {

class DataTree;
class SessionTable;
struct LoadedSnapshot;  // snapshot.h

// SessionId and WatcherId are in ids.h; Response, Notification and
// ApplyResult in results.h (shared with the parts this facade is built from).

// Figures the four-letter words and metrics report (§12).
struct Counts {
  int64_t znodes = 0;  // zk_znode_count (Apache counts the root twice)
  int64_t approximate_data_size = 0;
  int64_t ephemerals = 0;
  int64_t data_watches = 0;          // entries in the data-watch table
  int64_t child_watches = 0;         // entries in the child-watch table
  int64_t watched_paths = 0;         // distinct paths in the data-watch table (wchs)
  int64_t watching_connections = 0;  // distinct watchers in the data-watch table (wchs)
  int64_t sessions = 0;
};

// How a Database reads and accepts node kinds (container_kind.h).
struct DatabaseOptions {
  bool extended_types = false;  // zoo.cfg extendedTypesEnabled: TTL nodes
  // zoo.cfg enforceQuota: prepare() fails creates and setData beyond a hard
  // quota limit with QUOTAEXCEEDED, and reports any limit exceeded through
  // `quota_warning` (may be empty). quota_check.h.
  bool enforce_quota = false;
  std::function<void(const std::string&)> quota_warning = nullptr;
  // /zookeeper/config as this server's configuration gives it, set on every
  // tree the Database holds (at construction and by load_snapshot()) the way
  // Apache's initConfigInZKDatabase sets it: data, stored version -1, mzxid
  // the configuration's version, mtime `time_ms`. Local, never a txn. Not
  // over a newer one (a reconfig txn's, mzxid above `version`), which a
  // snapshot carries. Absent: the node keeps what the tree has (empty in a
  // fresh one).
  struct ConfigNode {
    std::string data;
    int64_t version = 0;
    int64_t time_ms = 0;
  };
  std::optional<ConfigNode> config_node = std::nullopt;
};

class Database {
 public:
  Database();
  explicit Database(DatabaseOptions options);
  ~Database();
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;

  // zxid of the last applied txn.
  int64_t last_zxid() const;
  // The `walked` zxid of the snapshot last loaded (0 if none, snapshot.h):
  // a fuzzy walk may have caught txns after the snapshot's zxid, so until
  // last_zxid() reaches this one the tree need not equal the history's at
  // last_zxid() (replaying the txns in between repairs it).
  int64_t fuzzy_until() const;

  // --- reads: exists, getData, getChildren, getChildren2, getACL, sync,
  // getAllChildrenNumber, multiRead ---
  // `body` is the request record after the RequestHeader. Registers a watch
  // for `watcher` when the request asks for one and Apache would set it.
  // A body that does not decode gives kMarshallingError. `caller`: the ids of
  // the connection the read came on (read_processor.h: which reads check
  // what); omitted, a caller with no ids.
  Response read(WatcherId watcher, zk::wire::OpCode op, std::string_view body,
                const AuthIds& caller = AuthIds());

  // --- writes: create, create2, delete, setData, setACL, check, multi,
  // closeSession ---
  // Validates the request against the current state and returns the txn to
  // apply: the real change, or an error txn (which still consumes `zxid`).
  // `time_ms` is the leader's wall clock. `caller`: the ids of the connection
  // the write came on, which the ACL checks and create/setACL's `auth`
  // entries use (preprocessor.h); omitted, a caller with no ids.
  Txn prepare(SessionId session, int32_t xid, zk::wire::OpCode op, std::string_view body,
              int64_t zxid, int64_t time_ms, const AuthIds& caller = AuthIds());
  // A createSession txn for a new session (the connect handshake).
  Txn prepare_create_session(SessionId session, int32_t timeout_ms, int64_t zxid, int64_t time_ms);
  // A closeSession txn: the client's closeSession request `xid`, or expiry
  // (xid 0). The txn carries the xid, as Apache's does: an Apache follower
  // answers its client's close by matching the committed txn's cxid.
  Txn prepare_close_session(SessionId session, int32_t xid, int64_t zxid, int64_t time_ms);
  // A reconfig txn making `config` the data of /zookeeper/config
  // (Preprocessor::reconfig).
  Txn prepare_reconfig(SessionId session, int32_t xid, std::string config, int64_t zxid,
                       int64_t time_ms, const AuthIds& caller);
  // /zookeeper/config as the tree holds it: its data and mzxid (the version
  // of the configuration: a reconfig txn's zxid, or the one
  // DatabaseOptions::config_node gave).
  std::pair<std::string, int64_t> config_node() const;
  // /zookeeper/config set again as DatabaseOptions::config_node sets it
  // (local, never a txn; not over a newer one): a version-0 configuration
  // given its version by the first established leader, as Apache's
  // processReconfig sets it at UPTODATE.
  void set_config_node(DatabaseOptions::ConfigNode node);

  // Applies a txn (idempotent, as Apache's replay is); must come in zxid order.
  ApplyResult apply(const Txn& txn);

  // The tree's digest right after each applied zxid that is a multiple of
  // kDigestLogInterval, the newest kDigestLogLimit of them, oldest first
  // (Apache's DataTree digest log, which its `hash` word prints). Emptied by
  // a snapshot load.
  static constexpr int64_t kDigestLogInterval = 128;
  static constexpr size_t kDigestLogLimit = 1024;
  struct ZxidDigest {
    int64_t zxid = 0;
    uint64_t digest = 0;
  };
  const std::deque<ZxidDigest>& digest_log() const;

  // --- sessions ---
  bool session_exists(SessionId session) const;
  std::optional<int32_t> session_timeout(SessionId session) const;
  std::vector<SessionId> sessions() const;
  // Absolute paths of the session's ephemeral nodes, sorted.
  std::vector<std::string> ephemerals(SessionId session) const;

  // --- watches ---
  // Re-registers watches after a reconnect (setWatches 101); fires the
  // catch-up events of §9.5, returned in the order to send them.
  std::vector<Notification> set_watches(WatcherId watcher, const zk::wire::SetWatches& w);
  // Forgets every watch of a connection that closed.
  void remove_watcher(WatcherId watcher);
  // Paths the connection watches in the data table (wchc), sorted.
  std::vector<std::string> watched_paths(WatcherId watcher) const;
  // Watchers per watched path in the data table (wchp), sorted by path.
  std::vector<std::pair<std::string, std::vector<WatcherId>>> watchers_by_path() const;

  Counts counts() const;
  // Room for `more` znodes beyond those held (DataTree::reserve): a hint
  // before a replay of that many txns.
  void reserve_more_nodes(size_t more);
  // The tree's digest (digest.h) after the last applied txn, and the same
  // computed afresh from every node (for checks: the two must be equal).
  uint64_t digest() const;
  uint64_t compute_digest() const;

  // --- the container manager ---
  // Containers and TTL nodes to delete now (container_sweep.h), judged with
  // the pending txns' effects: each becomes a deleteContainer (20) request
  // from session 0 whose body is the path.
  std::vector<std::string> sweep_candidates(int64_t now_ms, int64_t max_never_used_ms) const;

  // --- durability (see docs/storage-format.md for where the bytes go) ---
  //
  // Pending txns: prepare() may be called again before earlier prepared txns
  // are applied (they wait for fsync, or for a Zab quorum). Each prepare()
  // validates against the applied state plus the effects of every txn
  // prepared but not yet applied (Apache's outstandingChanges), so two
  // creates of one path both prepared before either is applied give one
  // success and one NODEEXISTS, and sequential names never repeat. apply()
  // must then be called for those txns in the order they were prepared.
  // Reads (read()) see only applied state.
  //
  // Pending effects are retired as apply() reaches their zxid. A prepared txn
  // that will never be applied must be followed by discard_pending().
  //
  // Dropping pending txns (a leader that lost its quorum): forgets every
  // prepared-but-unapplied effect.
  void discard_pending();

  // Fuzzy snapshot: a cursor that walks the tree depth-first in chunks. The
  // server calls next_chunk() on the state thread between applies; each call
  // encodes up to `max_nodes` nodes and returns the bytes, and an empty string
  // when the walk is done. The first chunk holds the session table and the
  // zxid the snapshot is named by (last_zxid() when begin_snapshot() ran).
  // Nodes changed after begin_snapshot() may appear in either state; replaying
  // the log from that zxid on repairs them (txns are idempotent). A cursor
  // holds no pointer into the tree between calls, but refers to this
  // Database: it must not outlive it. max_nodes 0 counts as 1. Format:
  // zkd/tree/snapshot.h.
  class SnapshotCursor {
   public:
    virtual ~SnapshotCursor() = default;
    virtual int64_t zxid() const = 0;
    virtual std::string next_chunk(size_t max_nodes) = 0;
  };
  std::unique_ptr<SnapshotCursor> begin_snapshot() const;

  // Replaces the whole state (tree, sessions; no watches, nothing pending)
  // with a snapshot's payload: the concatenated chunks of one walk. A
  // damaged payload is a corruption, and leaves the state unchanged.
  Status load_snapshot(std::string_view payload);
  // The same with a state already decoded (zkd import builds one from
  // Apache's snapshot). Its tree must have this Database's extended_types.
  void load(LoadedSnapshot&& state);
  // The tree and the session table, read-only, for walking every node and
  // session at once (zkd export); valid until the next apply or load.
  const DataTree& tree() const;
  const SessionTable& session_table() const;

  // Calls `visit` for each node in a snapshot payload, for `zkd dump-snapshot`
  // (path, data, ACL, Stat as clients see it) and each session (id, timeout).
  struct SnapshotVisitor {
    virtual ~SnapshotVisitor() = default;
    virtual void session(SessionId id, int32_t timeout_ms) = 0;
    virtual void node(const std::string& path, const zk::wire::Buffer& data,
                      const zk::wire::ACLs& acl, const zk::wire::Stat& stat) = 0;
  };
  static Status visit_snapshot(std::string_view payload, SnapshotVisitor& visitor);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zkd::tree
