// SPDX-License-Identifier: Apache-2.0
// zk::client::Client: an asynchronous Apache ZooKeeper 3.8 client on Boost.Asio
// C++20 coroutines. Works against Apache ZooKeeper servers and zkd.
//
// Threading contract
//   * A Client is bound to one executor, given at construction. That executor
//     must not run handlers concurrently: an io_context run by one thread, or
//     a strand. Every member function, and every awaitable it returns, must be
//     used from code running on that executor (e.g. a coroutine started with
//     boost::asio::co_spawn(executor, ...)). co_spawn itself may be called from
//     any thread; that is how SyncClient drives a Client.
//   * Watch callbacks and the session listener run on that executor's thread,
//     from inside the client's reader; they must not block. They may start new
//     operations with co_spawn but must not wait for them.
//   * Objects passed in are copied; nothing passed in must outlive the call.
//   * g++ 12 pitfall: inside a coroutine, do not pass a temporary that needs
//     a conversion (e.g. a lambda becoming a WatchCallback) straight into a
//     co_awaited call; it is destroyed twice. Name it first:
//       WatchCallback cb = [..](const WatchedEvent& e) {..};
//       auto r = co_await client.get_data(path, std::move(cb));
//   * Exception: state(), session_id(), credentials(), auth_failure(),
//     negotiated_timeout(), last_zxid_seen() and refused_reply_bytes() may be
//     called from any thread.
//
// Lifetime
//   Client is a move-only handle. Destroying it without close() abandons the
//   session (the server expires it after the session timeout), fails
//   outstanding operations with kConnectionLoss and runs pending watches with
//   a kClosed event. The executor's context must outlive the Client's
//   background work: keep running it until the Client is destroyed or closed.
//
// Semantics (those of the Java client, ClientCnxn)
//   * Many operations may be in flight; requests leave in the order the
//     operations were called, and replies are matched to them in FIFO order by
//     xid. A reply with an unexpected xid is a fatal connection error (as in
//     Java and kazoo): the connection is dropped and reopened.
//   * Ordering guarantee: watch callbacks run in the order the server sent the
//     notifications, and before the awaitable of any operation whose reply
//     arrived after the notification resumes.
//   * Connection loss: operations in flight fail with kConnectionLoss, the
//     listener gets kDisconnected, and the client reconnects across the host
//     list (round-robin from a shuffled or given order, with a short backoff
//     after each full round), resuming the session (id, password, last zxid
//     seen) and re-registering outstanding watches with setWatches
//     (setWatches2 when persistent watches exist, as Java does). Each
//     attempt (TCP connect and handshake) is abandoned after the session
//     timeout / number of hosts (Java's connectTimeout), but at most a third
//     of the session timeout and at least 1 s, so a server that accepts and
//     never answers cannot use up the whole session. Operations
//     called while disconnected are queued: they are sent if the next
//     connection attempt succeeds and fail with kConnectionLoss if it fails
//     (Java's behaviour).
//   * Expiry: if the server answers a resumption with timeout 0 the session is
//     expired. Every pending and later operation fails with kSessionExpired,
//     outstanding watches fire with a kExpired event, the listener gets
//     kExpired, and the client never reconnects.
//   * Chroot: a chroot in the connect string is prefixed to every outgoing
//     path and stripped from created paths and watch event paths.
//   * Paths are validated before sending (zk::wire::path_error; sequential
//     creates are checked with a "1" appended): invalid → kBadArguments.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "libzk/client/connect_string.h"
#include "libzk/client/events.h"
#include "libzk/client/result.h"
#include "libzk/client/sasl.h"
#include "libzk/wire/jute.h"
#include "libzk/wire/multi.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"

namespace boost::asio::ssl {
class context;
}

namespace zk::client {

template <typename T>
using Task = boost::asio::awaitable<T>;

// Id and password of an existing session, to resume it from another client.
struct SessionCredentials {
  int64_t session_id = 0;
  std::string password;  // 16 bytes, as issued by the server
};

// The longest reply a client reads unless told otherwise: twice Apache's
// jute.maxbuffer and a little, so that a znode of the largest size Apache
// stores reads with its header and Stat (Apache's Java client stops at
// 1 MiB - 1).
inline constexpr int32_t kDefaultMaxReplyBytes = zk::wire::kMaxFieldLength + 1024;

struct ClientOptions {
  // Requested session timeout; the server clamps it (see negotiated_timeout()).
  std::chrono::milliseconds session_timeout{30000};
  // Shuffle the host list once at connect (Java does); false keeps the order.
  bool shuffle_hosts = true;
  // Pause after every full round of failed connection attempts.
  std::chrono::milliseconds reconnect_backoff{200};
  // Accept read-only servers (sets the handshake's readOnly byte).
  bool can_be_read_only = false;
  // Resume this session instead of creating one.
  std::optional<SessionCredentials> resume;
  // Called on every session state change (see events.h). May be empty.
  SessionListener on_session_event;
  // TLS (tls.h: make_tls_context): every connection runs a TLS handshake
  // before the session's; null: plaintext. With tls_verify_host the
  // server's certificate must name the host dialed.
  std::shared_ptr<boost::asio::ssl::context> tls_context;
  bool tls_verify_host = true;
  // SASL (sasl.h) on every connection, right after its handshake; a server
  // that refuses it ends the session with kAuthFailed (see auth_failure()).
  std::optional<SaslOptions> sasl;
  // The client's jute.maxbuffer: a reply longer than this many bytes fails
  // its request with kReplyTooLarge (refused_reply_bytes() says how long it
  // was); the rest of it is skipped unread and the connection is kept.
  int32_t max_reply_bytes = kDefaultMaxReplyBytes;
};

struct Created {
  std::string path;  // the created path (with sequence suffix), chroot stripped
  zk::wire::Stat stat;
};

struct NodeData {
  zk::wire::Buffer data;  // null and empty are distinct
  zk::wire::Stat stat;
};

struct Children {
  std::vector<std::string> names;  // child names (not paths), server order
  zk::wire::Stat stat;
};

struct NodeAcl {
  zk::wire::ACLs acl;
  zk::wire::Stat stat;
};

class ClientSession;  // implementation, libzk/client/session.h

class Client {
 public:
  // A client bound to `executor` (see the threading contract). Does not connect.
  Client(boost::asio::any_io_executor executor, ClientOptions options = {});
  ~Client();
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Parses `connect_string` and connects (creating or resuming a session).
  // Completes when the first handshake succeeds. Fails with kBadArguments for
  // a bad connect string, kSessionExpired when a resumed session is expired,
  // kConnectionLoss when no server completed a handshake within `deadline`
  // (the client then stops trying and is unusable), kInvalidState when called
  // twice.
  Task<Status> connect(std::string connect_string, std::chrono::milliseconds deadline);

  // create (opcode 1). Returns the created path (chroot stripped). Errors:
  // kNoNode (no parent), kNodeExists, kNoChildrenForEphemerals, kInvalidACL,
  // kNoAuth, kBadArguments, kConnectionLoss, kSessionExpired.
  Task<Result<std::string>> create(std::string path, zk::wire::Buffer data,
                                   zk::wire::CreateMode mode = zk::wire::CreateMode::kPersistent,
                                   zk::wire::ACLs acl = zk::wire::open_acl_unsafe());

  // create2 (opcode 15): as create, also returns the new node's Stat.
  Task<Result<Created>> create2(std::string path, zk::wire::Buffer data,
                                zk::wire::CreateMode mode = zk::wire::CreateMode::kPersistent,
                                zk::wire::ACLs acl = zk::wire::open_acl_unsafe());

  // createTTL (opcode 21): a kPersistentWithTTL or kPersistentSequentialWithTTL
  // node that the server deletes once it has had no children for `ttl_ms`
  // after its last change. Errors: as create2, and kBadArguments for another
  // mode; kUnimplemented when the server has TTL nodes disabled
  // (extendedTypesEnabled=false on Apache).
  Task<Result<Created>> create_ttl(std::string path, zk::wire::Buffer data,
                                   zk::wire::CreateMode mode, int64_t ttl_ms,
                                   zk::wire::ACLs acl = zk::wire::open_acl_unsafe());

  // delete (opcode 2); version -1 matches any. Errors: kNoNode, kBadVersion, kNotEmpty.
  Task<Status> remove(std::string path, int32_t version = -1);

  // exists (opcode 3). An absent node is not an error: returns std::nullopt.
  // With a watch: set as a data watch if the node exists, as an exist watch
  // (fires on creation) if it does not.
  Task<Result<std::optional<zk::wire::Stat>>> exists(std::string path, WatchCallback watch = {});

  // getData (opcode 4). The watch is set only on success. Errors: kNoNode, kNoAuth.
  Task<Result<NodeData>> get_data(std::string path, WatchCallback watch = {});

  // setData (opcode 5); version -1 matches any. Returns the new Stat.
  // Errors: kNoNode, kBadVersion, kNoAuth.
  Task<Result<zk::wire::Stat>> set_data(std::string path, zk::wire::Buffer data,
                                        int32_t version = -1);

  // reconfig (opcode 16): Apache 3.5+'s dynamic reconfiguration, servers
  // joining ("server.N=host:quorumPort:electionPort[:role][;client]",
  // comma-separated) and leaving (ids), or the whole new membership;
  // `from_config` the version it applies to (-1: any). Returns the new
  // configuration as /zookeeper/config holds it. Errors: kReconfigDisabled,
  // kNoAuth (a superuser's), kBadArguments, kBadVersion,
  // kReconfigInProgress, kNewConfigNoQuorum, kUnimplemented (standalone).
  Task<Result<NodeData>> reconfig(zk::wire::ReconfigRequest request);

  // getChildren (opcode 8). The child watch is set only on success. Errors: kNoNode.
  Task<Result<std::vector<std::string>>> get_children(std::string path, WatchCallback watch = {});

  // getChildren2 (opcode 12): names and the parent's Stat.
  Task<Result<Children>> get_children2(std::string path, WatchCallback watch = {});

  // addWatch (opcode 106): a watch on `path` (which need not exist) that
  // calls `watch` for every event until removed: kPersistent for
  // NodeCreated, NodeDeleted, NodeDataChanged and NodeChildrenChanged of
  // `path`; kPersistentRecursive for NodeCreated, NodeDeleted and
  // NodeDataChanged of `path` and every descendant (never
  // NodeChildrenChanged). Registered when the server accepts it; re-sent with
  // setWatches2 after a reconnect (no catch-up events for changes missed
  // while disconnected). When the session ends it is called a last time with
  // a kNone event (see events.h). Errors: kBadArguments, kInvalidCallback
  // (empty callback), kConnectionLoss, kSessionExpired.
  Task<Status> add_watch(std::string path, zk::wire::AddWatchMode mode, WatchCallback watch);

  // removeWatches (opcode 18; Java's removeAllWatches): removes every watch
  // of `type` this session holds on `path`, on the server and here: kChildren
  // the child watches, kData the data and exists watches, kAny those and the
  // persistent ones. Each removed callback is called once more with
  // ChildWatchRemoved, DataWatchRemoved or PersistentWatchRemoved (state
  // SyncConnected). kNoWatcher, without a round trip, when this client holds
  // no such watch (persistent ones count for every type, as in Java), and
  // when the server had none to remove. With `local`, the watches are removed
  // here even when the server fails (e.g. kConnectionLoss), and the call
  // succeeds. Errors: kBadArguments, kNoWatcher, kConnectionLoss, kSessionExpired.
  Task<Status> remove_watches(std::string path, zk::wire::WatcherType type, bool local = false);

  // checkWatches (opcode 17): kOk when the server holds a watch of `type` for
  // this connection on `path`, kNoWatcher when not (zkd: kChildren / kData
  // name one-shot watches only, kAny also persistent ones).
  Task<Status> check_watches(std::string path, zk::wire::WatcherType type);

  // getACL (opcode 6). Errors: kNoNode.
  Task<Result<NodeAcl>> get_acl(std::string path);

  // setACL (opcode 7); version is the ACL version (aversion), -1 matches any.
  // Errors: kNoNode, kBadVersion, kInvalidACL, kNoAuth.
  Task<Result<zk::wire::Stat>> set_acl(std::string path, zk::wire::ACLs acl, int32_t version = -1);

  // multi (opcode 14): every operation of `ops` (create, create2, delete,
  // setData, check) or none, atomically, at one zxid. A failed transaction is
  // not an error of the request: the result then holds one entry per
  // operation, each of type kError, the failing one with its code (see
  // zk::wire::MultiResult). Paths get the chroot prefixed; created paths come
  // back with it stripped. Errors of the request itself: kBadArguments (an
  // invalid path, checked before sending), kMarshallingError,
  // kConnectionLoss, kSessionExpired.
  Task<Result<std::vector<zk::wire::MultiResult>>> multi(std::vector<zk::wire::MultiOp> ops);

  // multiRead (opcode 22): getData and getChildren operations, each answered
  // on its own (a failed one is a kError entry, the others still answer).
  // No watches are set.
  Task<Result<std::vector<zk::wire::MultiResult>>> multi_read(std::vector<zk::wire::MultiOp> ops);

  // getEphemerals (opcode 103): the paths of this session's ephemeral nodes
  // whose path starts with `prefix` ("" or "/" for all), chroot stripped.
  Task<Result<std::vector<std::string>>> get_ephemerals(std::string prefix);

  // getAllChildrenNumber (opcode 104): how many descendants `path` has, at
  // every depth. Errors: kNoNode.
  Task<Result<int32_t>> get_all_children_number(std::string path);

  // whoAmI (opcode 107): the ids this connection is authenticated as.
  Task<Result<std::vector<zk::wire::ClientInfo>>> who_am_i();

  // sync (opcode 9): completes once the server is up to date with the leader.
  Task<Status> sync(std::string path);

  // Adds an authentication credential (opcode 100, xid -4; e.g. scheme
  // "digest", auth "user:password"). Remembered and re-sent on reconnect.
  // A rejected credential fails with kAuthFailed and ends the session.
  Task<Status> add_auth(std::string scheme, zk::wire::Buffer auth);

  // Closes the session (closeSession, opcode -11) and waits for the reply;
  // ephemeral nodes are removed by the server. Pending watches fire with a
  // kClosed event and the listener gets kClosed. When not connected the
  // session is abandoned locally (the server expires it later). Later
  // operations fail with kClosing. Closing twice is harmless.
  Task<Status> close();

  // Current state (kDisconnected before the first handshake).
  SessionState state() const;
  // Session id; 0 before the first handshake.
  int64_t session_id() const;
  // Session id and password, e.g. to resume the session elsewhere.
  SessionCredentials credentials() const;
  // Why the session ended in kAuthFailed through SASL (ClientOptions::sasl):
  // the server refused the credentials, or no exchange could be made (a
  // mechanism not installed). Empty otherwise.
  std::string auth_failure() const;
  // Timeout granted by the server; 0 before the first handshake.
  std::chrono::milliseconds negotiated_timeout() const;
  // Largest zxid seen in any reply (the lastZxidSeen of the next handshake).
  int64_t last_zxid_seen() const;
  // The length of the last reply refused with kReplyTooLarge; 0 if none was.
  int64_t refused_reply_bytes() const;
  // The chroot of the connect string ("" when none).
  const std::string& chroot() const;

 private:
  std::shared_ptr<ClientSession> session_;
};

}  // namespace zk::client
