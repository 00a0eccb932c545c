// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/apache_peer_links.h"

#include <utility>

#include "libzk/wire/jute.h"
#include "zkd/apache_files/apache_snapshot.h"
#include "zkd/server/database_options.h"
#include "zkd/server/membership.h"
#include "zkd/server/write_request.h"
#include "zkd/tree/snapshot.h"

namespace zkd::server {

apache::ForwardedWrite apache_forwarded_write(const std::string& payload) {
  apache::ForwardedWrite out;
  std::optional<WriteRequest> request = decode_write_request(payload);
  if (!request) return out;
  switch (request->kind) {
    case WriteRequest::Kind::kOp:
      out.request = apache::ForwardedRequest{request->session, request->xid,
                                             static_cast<int32_t>(request->op), request->body};
      for (const zk::wire::Id& id : request->auth.added()) out.auth.push_back({id.scheme, id.id});
      break;
    case WriteRequest::Kind::kCreateSession: {
      // Apache's follower forwards the timeout it gave the session as the body.
      std::string body;
      zk::wire::Writer(body).int32(request->timeout_ms);
      out.request = apache::ForwardedRequest{
          request->session, 0, static_cast<int32_t>(zk::wire::OpCode::kCreateSession), body};
      break;
    }
    case WriteRequest::Kind::kCloseSession:
      out.request = apache::ForwardedRequest{request->session,
                                             request->xid,
                                             static_cast<int32_t>(zk::wire::OpCode::kCloseSession),
                                             {}};
      break;
    case WriteRequest::Kind::kTouch:
      out.touches = std::move(request->touches);
      break;
    case WriteRequest::Kind::kRevalidate:
      out.revalidate = apache::SessionTouch{request->session, request->timeout_ms};
      break;
    case WriteRequest::Kind::kError:
      break;  // refused here; Apache's leader orders no such txn
  }
  return out;
}

std::string zkd_forwarded_write(const apache::ForwardedWrite& write) {
  WriteRequest request;
  if (!write.request) {
    request.kind = WriteRequest::Kind::kTouch;
    request.touches = write.touches;
    return encode_write_request(request);
  }
  const apache::ForwardedRequest& r = *write.request;
  request.session = r.session;
  request.xid = r.cxid;
  switch (static_cast<zk::wire::OpCode>(r.type)) {
    case zk::wire::OpCode::kCreateSession: {
      // The body is the timeout the learner gave the session.
      zk::wire::Reader body(r.body);
      request.kind = WriteRequest::Kind::kCreateSession;
      request.timeout_ms = body.int32();
      break;
    }
    case zk::wire::OpCode::kCloseSession:
      request.kind = WriteRequest::Kind::kCloseSession;
      break;
    default:
      request.kind = WriteRequest::Kind::kOp;
      request.op = static_cast<zk::wire::OpCode>(r.type);
      request.body = r.body;
      for (const apache::AuthId& id : write.auth) request.auth.add({id.scheme, id.id});
      break;
  }
  return encode_write_request(request);
}

apache::ConvertedSnapshot apache_snap_stream(std::string_view payload,
                                             const tree::DatabaseOptions& options) {
  StatusOr<tree::LoadedSnapshot> state = tree::read_snapshot(payload, options.extended_types);
  if (!state.ok()) return {{}, state.status().message()};
  apache::ConvertedSnapshot out;
  Status written = apache::write_apache_snap_stream(state->tree, state->sessions,
                                                    [&out](std::string_view bytes) {
                                                      out.payload += bytes;
                                                      return Status();
                                                    });
  if (!written.ok()) return {{}, written.message()};
  return out;
}

apache::ConvertedSnapshot convert_apache_snapshot(std::string_view stream, int64_t zxid,
                                                  const tree::DatabaseOptions& options) {
  StatusOr<tree::LoadedSnapshot> loaded =
      apache::read_apache_snap_stream(stream, options.extended_types);
  if (!loaded.ok()) return {{}, loaded.status().message()};
  loaded->zxid = zxid;
  loaded->walked = zxid;
  tree::Database db(options);
  db.load(std::move(*loaded));
  auto cursor = db.begin_snapshot();
  apache::ConvertedSnapshot out;
  for (;;) {
    std::string chunk = cursor->next_chunk(4096);
    if (chunk.empty()) break;
    out.payload += chunk;
  }
  return out;
}

std::unique_ptr<net::PeerLinks> apache_peer_links(
    boost::asio::io_context& io, const ServerConfig& config, std::vector<net::PeerAddress> peers,
    net::PeerLinks::Receive receive, storage::Env& env, const tree::Database& db,
    apache::SessionCheck revalidate, std::function<int64_t()> agreed_epoch) {
  apache::ApacheTransportOptions options;
  const auto self = config.quorum_servers.find(config.my_id);
  options.observer = self != config.quorum_servers.end() && self->second.observer;
  options.config_text = [&config, &db] {
    auto [text, version] = db.config_node();
    return text.empty() ? membership_text(config, kStaticConfigVersion) : text;
  };
  options.config_version = db.config_node().second;
  options.read_forwarded = apache_forwarded_write;
  options.convert_snapshot = [&config, &env](std::string_view stream, int64_t zxid) {
    return convert_apache_snapshot(stream, zxid, database_options(config, env.clock().wall_ms()));
  };
  options.agreed_epoch = std::move(agreed_epoch);
  options.write_forwarded = zkd_forwarded_write;
  options.revalidate = std::move(revalidate);
  options.snapshot_to_apache = [&config, &env](std::string_view payload) {
    return apache_snap_stream(payload, database_options(config, env.clock().wall_ms()));
  };
  options.new_timer = [&env, &io] { return env.new_timer(io); };
  options.listen_on_all_ips = config.quorum_listen_on_all_ips;
  return std::make_unique<apache::ApacheTransport>(io, config.my_id, std::move(peers),
                                                   std::move(receive), std::move(options));
}

}  // namespace zkd::server
