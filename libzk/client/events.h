// SPDX-License-Identifier: Apache-2.0
// Events a zk::client session delivers: node events for watches, and session
// state changes for the session listener.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "libzk/wire/protocol.h"

namespace zk::client {

// Session state changes, as seen by the session listener. Connection loss and
// expiry are distinct: after kDisconnected the client keeps reconnecting and
// the session (ephemerals, watches) survives if it reconnects within the
// session timeout; kExpired, kClosed and kAuthFailed are terminal.
enum class SessionState {
  kConnected,     // handshake done (first connect or a resumption)
  kDisconnected,  // the connection was lost; the client is reconnecting
  kExpired,       // the server declared the session expired (terminal)
  kClosed,        // close() completed or the client was shut down (terminal)
  kAuthFailed,    // the server rejected an add_auth or SASL credential (terminal)
};

// "Connected", "Disconnected", "Expired", "Closed", "AuthFailed".
std::string_view session_state_name(SessionState s);

// What a watch callback receives. For node events `type` is one of
// kNodeCreated/kNodeDeleted/kNodeDataChanged/kNodeChildrenChanged, `state` is
// kSyncConnected and `path` is the client path (chroot stripped; the chroot
// itself reads as "/"). When the session ends before the watch triggered
// (expiry or close), the watch fires once with type kNone, state kExpired or
// kClosed and the path it was set on.
struct WatchedEvent {
  zk::wire::EventType type = zk::wire::EventType::kNone;
  zk::wire::KeeperState state = zk::wire::KeeperState::kSyncConnected;
  std::string path;
  // The zxid of the txn that fired a node event, from the notification's
  // header: servers of Apache 3.9 (ZOOKEEPER-4655) and zkd send it; 3.8 and
  // events made by the client itself (kNone) carry -1.
  int64_t zxid = -1;
  bool operator==(const WatchedEvent&) const = default;
};

// A watch: one-shot (getData, exists, getChildren) or persistent (addWatch,
// called for every event until removed). removeWatches calls it once more
// with kDataWatchRemoved, kChildWatchRemoved or kPersistentWatchRemoved.
// Runs on the client's executor thread; must not block.
using WatchCallback = std::function<void(const WatchedEvent&)>;

// Receives every session state change, in order, on the client's executor thread.
using SessionListener = std::function<void(SessionState)>;

}  // namespace zk::client
