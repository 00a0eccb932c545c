// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/learner_payloads.h"

#include "libzk/wire/jute.h"

namespace zkd::apache {

std::string encode_learner_info(const LearnerInfo& info) {
  std::string out;
  zk::wire::Writer w(out);
  w.int64(info.server_id);
  w.int32(info.protocol_version);
  w.int64(info.config_version);
  return out;
}

std::optional<LearnerInfo> decode_learner_info(std::string_view data) {
  if (data.size() != 8 && data.size() != 12 && data.size() != 20) return std::nullopt;
  zk::wire::Reader r(data);
  LearnerInfo info;
  info.server_id = r.int64();
  if (data.size() >= 12) info.protocol_version = r.int32();
  if (data.size() >= 20) info.config_version = r.int64();
  return info;
}

std::string encode_int32(int32_t value) {
  std::string out;
  zk::wire::Writer(out).int32(value);
  return out;
}

std::optional<int32_t> decode_int32(std::string_view data) {
  if (data.size() != 4) return std::nullopt;
  zk::wire::Reader r(data);
  return r.int32();
}

std::string encode_touches(const std::vector<SessionTouch>& touches) {
  std::string out;
  zk::wire::Writer w(out);
  for (const auto& [session, timeout] : touches) {
    w.int64(session);
    w.int32(timeout);
  }
  return out;
}

std::optional<std::vector<SessionTouch>> decode_touches(std::string_view data) {
  if (data.size() % 12 != 0) return std::nullopt;
  zk::wire::Reader r(data);
  std::vector<SessionTouch> out;
  out.reserve(data.size() / 12);
  while (!r.at_end()) {
    const int64_t session = r.int64();
    out.emplace_back(session, r.int32());
  }
  return out;
}

std::string encode_revalidate_request(int64_t session, int32_t timeout_ms) {
  return encode_touches({{session, timeout_ms}});
}

std::optional<SessionTouch> decode_revalidate_request(std::string_view data) {
  if (data.size() != 12) return std::nullopt;
  return decode_touches(data)->front();
}

std::string encode_revalidate_reply(const RevalidateReply& reply) {
  std::string out;
  zk::wire::Writer w(out);
  w.int64(reply.session);
  w.boolean(reply.valid);
  return out;
}

std::optional<RevalidateReply> decode_revalidate_reply(std::string_view data) {
  if (data.size() != 9) return std::nullopt;
  zk::wire::Reader r(data);
  RevalidateReply reply;
  reply.session = r.int64();
  reply.valid = r.boolean();
  return reply;
}

std::string encode_forwarded_request(const ForwardedRequest& request) {
  std::string out;
  zk::wire::Writer w(out);
  w.int64(request.session);
  w.int32(request.cxid);
  w.int32(request.type);
  out += request.body;
  return out;
}

std::optional<ForwardedRequest> decode_forwarded_request(std::string_view data) {
  if (data.size() < 16) return std::nullopt;
  zk::wire::Reader r(data);
  ForwardedRequest request;
  request.session = r.int64();
  request.cxid = r.int32();
  request.type = r.int32();
  request.body.assign(r.rest());
  return request;
}

}  // namespace zkd::apache
