// SPDX-License-Identifier: Apache-2.0
// The server's side of zkd.peerProtocol=apache (docs/apache-peer-protocol.md):
// the ApacheTransport (zkd/apache_links) made for this server, with what it
// needs from the server: Apache's configuration text, zkd's forwarded
// writes in Apache's terms, and a leader's SNAP stream as zkd's snapshot.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/apache_links/apache_transport.h"
#include "zkd/server/config.h"
#include "zkd/storage/env.h"
#include "zkd/tree/database.h"

namespace zkd::server {

// What a zkd follower's Request payload (write_request.h) is in Apache's
// terms: a client's write as a REQUEST with its connection's ids, a session
// creation or close, or session touches (a ping's). Error txns and anything
// that does not decode become nothing.
apache::ForwardedWrite apache_forwarded_write(const std::string& payload);

// What an Apache learner forwarded, as a zkd core Request's payload
// (write_request.h): a client's write (with its connection's ids), a session
// creation or close, or the touches of a ping.
std::string zkd_forwarded_write(const apache::ForwardedWrite& write);

// zkd's snapshot payload (what a Snap streams) as the stream an Apache
// learner reads after SNAP.
apache::ConvertedSnapshot apache_snap_stream(std::string_view payload,
                                             const tree::DatabaseOptions& options);

// The database an Apache leader streamed after SNAP (with its signature), at
// `zxid`, as zkd's snapshot payload: what a Snap's attachment holds.
apache::ConvertedSnapshot convert_apache_snapshot(std::string_view stream, int64_t zxid,
                                                  const tree::DatabaseOptions& options);

// The links of `config`'s ensemble in Apache's protocol. `db` gives the
// configuration's text once a reconfiguration wrote it; it must outlive the
// links. `revalidate` answers an Apache learner's REVALIDATE while leading;
// `agreed_epoch` is the replica's (ApacheTransportOptions::agreed_epoch).
std::unique_ptr<net::PeerLinks> apache_peer_links(
    boost::asio::io_context& io, const ServerConfig& config, std::vector<net::PeerAddress> peers,
    net::PeerLinks::Receive receive, storage::Env& env, const tree::Database& db,
    apache::SessionCheck revalidate, std::function<int64_t()> agreed_epoch);

}  // namespace zkd::server
