// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/client_registry.h"

#include <boost/asio/ip/address.hpp>
#include <utility>

#include "zkd/server/authentication.h"
#include "zkd/server/client_frames.h"
#include "zkd/server/op_tags.h"
#include "zkd/server/request_metrics.h"
#include "zkd/tree/acl_check.h"

namespace zkd::server {

std::string peer_ip_id(const net::ClientConnection& connection) {
  const boost::asio::ip::address address = connection.remote().address();
  if (address.is_v6()) return ipv6_host_address(address.to_v6().to_bytes());
  return address.to_string();
}

ClientState& ClientRegistry::add(std::shared_ptr<net::ClientConnection> connection,
                                 int64_t wall_ms) {
  ClientState state;
  state.opened_wall_ms = wall_ms;
  state.auth.add({std::string(tree::kIpScheme), peer_ip_id(*connection)});
  const net::ConnectionId id = connection->id();
  state.connection = std::move(connection);
  return clients_.insert_or_assign(id, std::move(state)).first->second;
}

ClientRegistry::SessionId ClientRegistry::remove(net::ConnectionId connection) {
  auto it = clients_.find(connection);
  if (it == clients_.end()) return 0;
  SessionId owned = 0;
  const SessionId session = it->second.session_id;
  auto owner = owner_.find(session);
  if (session != 0 && owner != owner_.end() && owner->second == connection) {
    owner_.erase(owner);
    owned = session;
  }
  clients_.erase(it);
  return owned;
}

ClientState* ClientRegistry::find(net::ConnectionId connection) {
  auto it = clients_.find(connection);
  return it == clients_.end() ? nullptr : &it->second;
}

ClientState* ClientRegistry::owner(SessionId session) {
  auto it = owner_.find(session);
  return it == owner_.end() ? nullptr : find(it->second);
}

void ClientRegistry::send(ClientState& client, std::string frame) {
  if (!client.connection->accepting_sends()) return;
  ++stats_.packets_sent;
  client.connection->send(std::move(frame));
}

int64_t ClientRegistry::reply(ClientState& client, int32_t xid, int64_t zxid, zk::wire::Error err,
                              std::string_view body, zk::wire::OpCode op, int64_t started_ms) {
  std::string frame = reply_frame(xid, zxid, err, body);
  const auto size = static_cast<int64_t>(frame.size());
  if (client.connection->accepting_sends()) {
    stats_.metrics.response_bytes += static_cast<uint64_t>(size);
    stats_.metrics.client_response_size.record(size);
  }
  send(client, std::move(frame));
  const int64_t now_ms = clock_.steady_ms();
  const int64_t latency = now_ms - started_ms;
  stats_.latency.record(latency);
  (is_update(op) ? stats_.metrics.updatelatency : stats_.metrics.readlatency).record(latency);
  client.latency.record(latency);
  client.last_operation = std::string(op_tag(op));
  if (xid >= 0) client.last_cxid = xid;
  client.last_zxid = zxid;
  client.last_response_wall_ms = clock_.wall_ms();
  return now_ms;
}

void ClientRegistry::deliver(const std::vector<tree::Notification>& notifications, int64_t zxid) {
  for (const auto& n : notifications) {
    auto it = clients_.find(n.watcher);
    if (it == clients_.end()) continue;  // the watching connection is gone
    // Only to a connection that may read the node now (Notification::acl).
    if (!tree::permitted(n.acl, zk::wire::perms::kRead, it->second.auth)) continue;
    std::string frame = notification_frame(n.event, zxid);
    if (it->second.connection->accepting_sends()) {
      stats_.metrics.watch_bytes += frame.size();
    }
    send(it->second, std::move(frame));
  }
}

void ClientRegistry::deliver_fired(const std::vector<tree::Notification>& notifications,
                                   int64_t zxid) {
  record_fired_watches(stats_.metrics, notifications);
  deliver(notifications, zxid);
}

void ClientRegistry::close(ClientState& client) {
  client.phase = ClientState::Phase::kClosing;
  client.connection->close();
}

void ClientRegistry::close_after_flush(ClientState& client) {
  client.phase = ClientState::Phase::kClosing;
  client.connection->close_after_flush();
}

void ClientRegistry::close_all() {
  // Copy: close() does not call back synchronously, but keep iteration safe.
  std::vector<std::shared_ptr<net::ClientConnection>> open;
  for (auto& [id, client] : clients_) {
    client.phase = ClientState::Phase::kClosing;
    // One already closing finishes sending what it has (a four-letter
    // word's answer: ydld's comes just before its leader drops everyone).
    if (!client.connection->closing()) open.push_back(client.connection);
  }
  for (auto& c : open) c->close();
}

}  // namespace zkd::server
