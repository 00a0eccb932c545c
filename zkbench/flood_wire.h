// SPDX-License-Identifier: Apache-2.0
// The frames `zkbench flood`'s misbehaving clients (flood_clients.h) send
// over raw sockets, encoded with zk::wire's records, and the little they read
// of the answers.
//
// A request frame is built once as a template and sent many times with a
// fresh xid written into it (set_xid): the 4-byte length, then the
// RequestHeader (xid, type), then the record.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "libzk/wire/protocol.h"

namespace zk::bench::flood {

// The handshake of a new session (ConnectRequest, protocol 0, no session id,
// read-only byte false) asking for `timeout_ms`, framed.
std::string connect_frame(int32_t timeout_ms);

// Framed requests, xid 0 (set_xid gives each its own).
std::string get_data_frame(const std::string& path);
std::string set_data_frame(const std::string& path, const std::string& data);
// create of an ephemeral-sequential znode under `prefix` (ending the path
// prefix, e.g. "/r/e/c"), no data, world:anyone.
std::string create_ephemeral_frame(const std::string& prefix);
std::string close_session_frame();

// Writes `xid` into a frame built by the functions above.
void set_xid(std::string& frame, int32_t xid);

// The session the server granted in the payload of the first frame it sent
// (a ConnectResponse): its id, or nothing when the payload does not decode
// or the timeout is 0 (the server refused the session).
std::optional<int64_t> granted_session(std::string_view payload);

// The error code of a reply's payload (ReplyHeader); kOk for a notification
// or ping; nothing when it does not decode.
std::optional<zk::wire::Error> reply_error(std::string_view payload);

}  // namespace zk::bench::flood
