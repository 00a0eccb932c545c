// SPDX-License-Identifier: Apache-2.0
#include "zkbench/flood_wire.h"

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"

namespace zk::bench::flood {

namespace {

using zk::wire::OpCode;
using zk::wire::Writer;

constexpr size_t kXidOffset = 4;  // after the frame's length

template <typename Record>
std::string request_frame(OpCode type, const Record* record) {
  std::string out;
  Writer w(out);
  const size_t start = w.begin_frame();
  zk::wire::RequestHeader header;
  header.type = type;
  header.write(w);
  if (record != nullptr) record->write(w);
  w.end_frame(start);
  return out;
}

}  // namespace

std::string connect_frame(int32_t timeout_ms) {
  zk::wire::ConnectRequest request;
  request.timeout_ms = timeout_ms;
  std::string out;
  Writer w(out);
  const size_t start = w.begin_frame();
  request.write(w);
  w.end_frame(start);
  return out;
}

std::string get_data_frame(const std::string& path) {
  const zk::wire::PathWatchRequest r{path, false};
  return request_frame(OpCode::kGetData, &r);
}

std::string set_data_frame(const std::string& path, const std::string& data) {
  zk::wire::SetDataRequest r;
  r.path = path;
  r.data = data;
  return request_frame(OpCode::kSetData, &r);
}

std::string create_ephemeral_frame(const std::string& prefix) {
  zk::wire::CreateRequest r;
  r.path = prefix;
  r.data = std::string();
  r.acl = zk::wire::open_acl_unsafe();
  r.flags = static_cast<int32_t>(zk::wire::CreateMode::kEphemeralSequential);
  return request_frame(OpCode::kCreate, &r);
}

std::string close_session_frame() {
  return request_frame<zk::wire::PathRecord>(OpCode::kCloseSession, nullptr);
}

void set_xid(std::string& frame, int32_t xid) {
  const auto u = static_cast<uint32_t>(xid);
  for (int i = 0; i < 4; ++i) {
    frame[kXidOffset + i] = static_cast<char>((u >> (8 * (3 - i))) & 0xff);
  }
}

std::optional<int64_t> granted_session(std::string_view payload) {
  zk::wire::ConnectResponse r;
  if (!zk::wire::decode(payload, r) || r.timeout_ms == 0) return std::nullopt;
  return r.session_id;
}

std::optional<zk::wire::Error> reply_error(std::string_view payload) {
  zk::wire::ReplyHeader h;
  if (!zk::wire::decode(payload, h)) return std::nullopt;
  return h.err;
}

}  // namespace zk::bench::flood
