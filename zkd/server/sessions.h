// SPDX-License-Identifier: Apache-2.0
// The sessions of a server (§2.4 of docs/wire-protocol.md): their deadlines
// (SessionTracker), new ids and passwords, and the two timers that end what
// nobody uses any more. Every tickTime the sessions past their deadline are
// closed; every container check interval the empty containers and expired
// TTL nodes are deleted (ContainerManager). Only the server that `decides`
// acts on them: a standalone server, or the serving leader of an ensemble.
// Their closeSession and deleteContainer txns take the way of every write
// (WritePath::submit).
//
// In an ensemble sessions are global: a follower keeps the sessions its
// clients used since its last report (take_used()) for its leader, which
// tracks them (track()).
//
// Time is the Env's (storage/clock.h): its clocks give the deadlines and its
// timers the ticks, so in simulation sessions expire in simulated time.
//
// Threading: the state thread. start() and stop() arm and cancel the timers.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zkd/server/client_registry.h"
#include "zkd/server/config.h"
#include "zkd/server/container_manager.h"
#include "zkd/server/session_credentials.h"
#include "zkd/server/session_tracker.h"
#include "zkd/server/write_path.h"
#include "zkd/storage/env.h"
#include "zkd/tree/database.h"

namespace zkd::server {

// What Sessions takes from zoo.cfg.
struct SessionsOptions {
  int32_t tick_time_ms = 0;            // the expiry check's period
  int32_t max_session_timeout_ms = 0;  // a session without a timeout in the tree
  // In an ensemble: session ids carry my_id, and sessions touched here are
  // reported to the leader; standalone, ids carry 1.
  bool replicated = false;
  int64_t my_id = 0;
  ContainerOptions containers;
};
SessionsOptions sessions_options(const ServerConfig& config);

class Sessions {
 public:
  using SessionId = int64_t;
  using Touches = std::vector<std::pair<SessionId, int32_t>>;  // session, timeout (ms)

  // Every reference outlives the sessions. `decides`: whether this server
  // expires sessions and deletes containers now. The password key is drawn
  // from `env` until set_password_key().
  Sessions(boost::asio::io_context& io, storage::Env& env, const SessionsOptions& options,
           tree::Database& db, ClientRegistry& clients, WritePath& writes,
           std::function<bool()> decides);
  Sessions(const Sessions&) = delete;
  Sessions& operator=(const Sessions&) = delete;

  // The key the session passwords derive from (session_credentials.h).
  void set_password_key(const SessionPasswords::Key& key,
                        std::optional<SessionPasswords::Key> also_accepted = std::nullopt) {
    passwords_ = SessionPasswords(key, also_accepted);
  }
  // Apache's passwords instead (SessionPasswords::apache(): a mixed ensemble).
  void use_apache_passwords() { passwords_ = SessionPasswords::apache(); }
  void start();
  void stop();

  // A fresh session id, unused in the tree.
  SessionId new_id();
  // The session is tracked and in the tree: it may be resumed.
  bool alive(SessionId session) const;
  std::string password(SessionId session) const { return passwords_.password(session); }
  bool password_matches(SessionId session, std::string_view password) const {
    return passwords_.matches(session, password);
  }

  // A client of this server used the session now (a request): its deadline
  // moves; in an ensemble it is reported to the leader with `timeout_ms`.
  void used(SessionId session, int32_t timeout_ms, int64_t now_ms);
  // A client resumed the session with the negotiated `timeout_ms`.
  void resumed(SessionId session, int32_t timeout_ms, int64_t now_ms);
  // The session gets `timeout_ms` from now (its createSession applied, or a
  // follower's report), tracked if it was not.
  void track(SessionId session, int32_t timeout_ms, int64_t now_ms);
  // Every session in the tree gets its whole timeout from now (after
  // recovery, and on a replica that starts to lead).
  void touch_all(int64_t now_ms);
  // The tree's sessions were replaced (an online restore): the sessions it
  // no longer has stop being tracked, and every one it has gets its whole
  // timeout from now.
  void state_replaced(int64_t now_ms);
  // The session is closed: no longer tracked or reported.
  void forget(SessionId session);
  // The sessions used since the last call (a follower's report).
  Touches take_used();
  void clear_used() { used_.clear(); }

  const SessionTracker& tracker() const { return tracker_; }

 private:
  // Calls `action` every `period` on `timer` until stop().
  void repeat(storage::Timer& timer, std::chrono::milliseconds period, void (Sessions::*action)());
  void expire_due();
  // Closes the session's connection and submits its closeSession.
  void end(SessionId session);
  void check_containers();

  storage::Clock& clock_;
  const SessionsOptions options_;
  tree::Database& db_;
  ClientRegistry& clients_;
  WritePath& writes_;
  std::function<bool()> decides_;
  SessionTracker tracker_;
  SessionIdGenerator ids_;
  SessionPasswords passwords_;
  std::unordered_map<SessionId, int32_t> used_;  // ensemble: to report
  ContainerManager containers_;
  std::unique_ptr<storage::Timer> tick_timer_;
  std::unique_ptr<storage::Timer> container_timer_;
  bool stopped_ = false;
};

}  // namespace zkd::server
