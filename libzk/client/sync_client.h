// SPDX-License-Identifier: Apache-2.0
// zk::client::SyncClient: a blocking facade over Client for tools and tests.
//
// Owns an io_context and the one thread that runs it; every call blocks the
// calling thread until the operation on that thread completes. Calls may come
// from any thread except the SyncClient's own (i.e. never from inside a watch
// callback or session listener of the underlying Client); concurrent calls
// from several threads are allowed and are pipelined on one session.
//
// Watches: operations take `bool watch`. Triggered watches are queued in the
// order they fired; next_watch_event() pops the next one with a deadline.
// add_watch() without a callback queues every event of its persistent watch.
// The overloads taking a WatchCallback set a watch that calls it instead (on
// the io thread, in the order the server sent the events; the callback must
// not block or call back into this SyncClient), for code that owns its
// watches, such as the recipes.
// Session state changes are queued the same way for next_session_event().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libzk/client/client.h"

namespace zk::client {

class SyncClient {
 public:
  // Starts the io thread; does not connect. `options.on_session_event`, if
  // set, is called (on the io thread) in addition to queueing the event.
  explicit SyncClient(ClientOptions options = {});
  // Abandons the session if still open (no closeSession; call close() for
  // that), stops and joins the io thread.
  ~SyncClient();
  SyncClient(const SyncClient&) = delete;
  SyncClient& operator=(const SyncClient&) = delete;

  // Connects with the requested session timeout. Fails with kConnectionLoss
  // when no server completes a handshake within `deadline`, kBadArguments for
  // a bad connect string, kSessionExpired when resuming an expired session.
  Status connect(const std::string& connect_string, std::chrono::milliseconds session_timeout,
                 std::chrono::milliseconds deadline);

  // The operations of Client, blocking. See client.h for errors.
  Result<std::string> create(const std::string& path, const zk::wire::Buffer& data,
                             zk::wire::CreateMode mode = zk::wire::CreateMode::kPersistent,
                             const zk::wire::ACLs& acl = zk::wire::open_acl_unsafe());
  Result<Created> create2(const std::string& path, const zk::wire::Buffer& data,
                          zk::wire::CreateMode mode = zk::wire::CreateMode::kPersistent,
                          const zk::wire::ACLs& acl = zk::wire::open_acl_unsafe());
  Result<Created> create_ttl(const std::string& path, const zk::wire::Buffer& data,
                             zk::wire::CreateMode mode, int64_t ttl_ms,
                             const zk::wire::ACLs& acl = zk::wire::open_acl_unsafe());
  Status remove(const std::string& path, int32_t version = -1);
  Result<std::optional<zk::wire::Stat>> exists(const std::string& path, bool watch = false);
  Result<NodeData> get_data(const std::string& path, bool watch = false);
  Result<zk::wire::Stat> set_data(const std::string& path, const zk::wire::Buffer& data,
                                  int32_t version = -1);
  Result<std::vector<std::string>> get_children(const std::string& path, bool watch = false);
  Result<Children> get_children2(const std::string& path, bool watch = false);
  // Client::reconfig.
  Result<NodeData> reconfig(const zk::wire::ReconfigRequest& request);
  Result<std::optional<zk::wire::Stat>> exists(const std::string& path, WatchCallback watch);
  Result<NodeData> get_data(const std::string& path, WatchCallback watch);
  Result<std::vector<std::string>> get_children(const std::string& path, WatchCallback watch);
  Result<Children> get_children2(const std::string& path, WatchCallback watch);
  // addWatch: events go to next_watch_event() (or to `watch`) until removed.
  Status add_watch(const std::string& path, zk::wire::AddWatchMode mode);
  Status add_watch(const std::string& path, zk::wire::AddWatchMode mode, WatchCallback watch);
  // removeWatches; the removal events of queued watches are queued too.
  Status remove_watches(const std::string& path, zk::wire::WatcherType type, bool local = false);
  Status check_watches(const std::string& path, zk::wire::WatcherType type);
  Result<NodeAcl> get_acl(const std::string& path);
  Result<zk::wire::Stat> set_acl(const std::string& path, const zk::wire::ACLs& acl,
                                 int32_t version = -1);
  Status sync(const std::string& path);
  Result<std::vector<std::string>> get_ephemerals(const std::string& prefix);
  Result<int32_t> get_all_children_number(const std::string& path);
  Result<std::vector<zk::wire::ClientInfo>> who_am_i();
  Result<std::vector<zk::wire::MultiResult>> multi(const std::vector<zk::wire::MultiOp>& ops);
  Result<std::vector<zk::wire::MultiResult>> multi_read(const std::vector<zk::wire::MultiOp>& ops);
  Status add_auth(const std::string& scheme, const zk::wire::Buffer& auth);
  // closeSession and wait for the reply (see Client::close).
  Status close();

  // The next triggered watch, waiting at most `timeout`; nullopt on timeout.
  std::optional<WatchedEvent> next_watch_event(std::chrono::milliseconds timeout);
  // The next session state change, waiting at most `timeout`; nullopt on timeout.
  std::optional<SessionState> next_session_event(std::chrono::milliseconds timeout);

  SessionState state() const;
  int64_t session_id() const;
  SessionCredentials credentials() const;
  std::string auth_failure() const;
  std::chrono::milliseconds negotiated_timeout() const;
  int64_t refused_reply_bytes() const;

  // The underlying async client and its executor, for mixing in coroutines
  // (only from code running on executor()).
  Client& async_client();
  boost::asio::any_io_executor executor();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zk::client
