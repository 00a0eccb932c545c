// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/client_frames.h"

#include "libzk/wire/jute.h"

namespace zkd::server {

std::string reply_frame(int32_t xid, int64_t zxid, zk::wire::Error err, std::string_view body) {
  std::string out;
  // Length, ReplyHeader (xid, zxid, err), body: one allocation per reply.
  out.reserve(4 + 16 + body.size());
  zk::wire::Writer w(out);
  size_t start = w.begin_frame();
  zk::wire::ReplyHeader{xid, zxid, err}.write(w);
  out.append(body);
  w.end_frame(start);
  return out;
}

std::string notification_frame(const zk::wire::WatcherEvent& event, int64_t zxid) {
  std::string out;
  zk::wire::Writer w(out);
  size_t start = w.begin_frame();
  zk::wire::ReplyHeader{zk::wire::kNotificationXid, zxid, zk::wire::Error::kOk}.write(w);
  event.write(w);
  w.end_frame(start);
  return out;
}

std::string connect_response_frame(zk::wire::ConnectResponse response, bool request_had_read_only) {
  response.has_read_only = request_had_read_only;
  std::string out;
  zk::wire::Writer w(out);
  size_t start = w.begin_frame();
  response.write(w);
  w.end_frame(start);
  return out;
}

}  // namespace zkd::server
