// SPDX-License-Identifier: Apache-2.0
// The client connections a server has open: what it keeps about each
// (ClientState), which connection owns each session, and the frames sent to
// them (replies, notifications), counted in ServerStats and cons.
//
// It knows no request and no session rule: ClientService decides what to
// send and when to close, Sessions when a session ends. The connections are
// the network layer's (net::ClientConnection); closing one here asks that
// layer to close it, which later reports closed() to the ClientService,
// which then remove()s it. State thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libzk/wire/protocol.h"
#include "zkd/net/client_connection.h"
#include "zkd/server/client_state.h"
#include "zkd/server/server_stats.h"
#include "zkd/storage/clock.h"
#include "zkd/tree/results.h"

namespace zkd::server {

class ClientRegistry {
 public:
  using SessionId = int64_t;
  using Clients = std::unordered_map<net::ConnectionId, ClientState>;

  // `stats` outlives the registry.
  // `clock` times the replies (latency, last response).
  ClientRegistry(ServerStats& stats, storage::Clock& clock) : stats_(stats), clock_(clock) {}
  ClientRegistry(const ClientRegistry&) = delete;
  ClientRegistry& operator=(const ClientRegistry&) = delete;

  // A connection was accepted: it starts in the handshake, with its ip id.
  ClientState& add(std::shared_ptr<net::ClientConnection> connection, int64_t wall_ms);
  // The connection is gone. Returns the session it owned (0: none); the
  // session itself lives on until it times out.
  SessionId remove(net::ConnectionId connection);
  // Null when the connection is gone.
  ClientState* find(net::ConnectionId connection);
  // Apache's metrics, for the parts that count what they do to clients.
  Metrics& metrics() { return stats_.metrics; }
  // Every open connection (mutable for crst, which resets their statistics).
  Clients& all() { return clients_; }

  // `connection` answers for `session` from now on.
  void bind(SessionId session, net::ConnectionId connection) { owner_[session] = connection; }
  // The connection that answers for `session`, or null.
  ClientState* owner(SessionId session);
  void unbind(SessionId session) { owner_.erase(session); }

  // Sends a frame, unless the connection no longer accepts any.
  void send(ClientState& client, std::string frame);
  // Sends ReplyHeader + body and records the cons statistics, the latency
  // (readlatency or updatelatency by `op`) and the reply's size. Returns the
  // steady time it took for the latency.
  int64_t reply(ClientState& client, int32_t xid, int64_t zxid, zk::wire::Error err,
                std::string_view body, zk::wire::OpCode op, int64_t started_ms);
  // Sends each notification whose watcher may read the node now; `zxid`
  // goes into their headers (client_frames.h: the firing txn's, or kNoZxid).
  void deliver(const std::vector<tree::Notification>& notifications, int64_t zxid);
  // deliver() for the notifications an applied txn fired, counted in the
  // node_*_watch_count summaries.
  void deliver_fired(const std::vector<tree::Notification>& notifications, int64_t zxid);

  // The client gets nothing more: later frames are ignored, the connection closes now.
  static void close(ClientState& client);
  // As close(), after what was already sent has left.
  static void close_after_flush(ClientState& client);
  // Closes every connection (shutdown, or a replica leaving its quorum).
  void close_all();

 private:
  ServerStats& stats_;
  storage::Clock& clock_;
  Clients clients_;
  std::unordered_map<SessionId, net::ConnectionId> owner_;
};

// A connection's ip id (authentication.h): its peer's address as Java's
// getHostAddress writes it.
std::string peer_ip_id(const net::ClientConnection& connection);

}  // namespace zkd::server
