// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/election_wire.h"

#include <cstring>

#include "libzk/wire/jute.h"

namespace zkd::apache {
namespace {

// The big-endian integers at `bytes`, which holds at least 4 (8) of them.
int32_t peek_int32(std::string_view bytes) {
  zk::wire::Reader r(bytes.substr(0, 4));
  return r.int32();
}
int64_t peek_int64(std::string_view bytes) {
  zk::wire::Reader r(bytes.substr(0, 8));
  return r.int64();
}

std::string join_addresses(const std::vector<std::string>& addresses) {
  std::string joined;
  for (const auto& a : addresses) {
    if (!joined.empty()) joined += '|';
    joined += a;
  }
  return joined;
}

std::vector<std::string> split_addresses(std::string_view joined) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= joined.size()) {
    size_t bar = joined.find('|', start);
    if (bar == std::string_view::npos) bar = joined.size();
    out.emplace_back(joined.substr(start, bar - start));
    start = bar + 1;
  }
  return out;
}

}  // namespace

std::string encode_election_hello(const ElectionHello& hello) {
  std::string out;
  zk::wire::Writer w(out);
  w.int64(hello.protocol_version);
  if (hello.protocol_version >= 0) return out;  // a pre-3.5 server: its id alone
  w.int64(hello.server_id);
  const std::string joined = join_addresses(hello.addresses);
  w.int32(static_cast<int32_t>(joined.size()));
  out += joined;
  return out;
}

Decode decode_election_hello(std::string_view bytes, ElectionHello& hello, size_t& consumed,
                             std::string& error) {
  if (bytes.size() < 8) return Decode::kNeedMore;
  const int64_t version = peek_int64(bytes);
  if (version >= 0) {
    hello = ElectionHello{version, version, {}};
    consumed = 8;
    return Decode::kOk;
  }
  if (version != kElectionProtocolV1 && version != kElectionProtocolV2) {
    error = "unknown election protocol version " + std::to_string(version);
    return Decode::kBad;
  }
  if (bytes.size() < 20) return Decode::kNeedMore;
  const int32_t n = peek_int32(bytes.substr(16));
  if (n <= 0 || static_cast<size_t>(n) > kMaxElectionHelloAddressBytes) {
    error = "election hello address length " + std::to_string(n) + " out of bounds";
    return Decode::kBad;
  }
  if (bytes.size() < 20 + static_cast<size_t>(n)) return Decode::kNeedMore;
  hello.protocol_version = version;
  hello.server_id = peek_int64(bytes.substr(8));
  const std::string_view joined = bytes.substr(20, n);
  hello.addresses = version == kElectionProtocolV1 ? std::vector<std::string>{std::string(joined)}
                                                   : split_addresses(joined);
  consumed = 20 + n;
  return Decode::kOk;
}

const char* to_string(ServerState state) {
  switch (state) {
    case ServerState::kLooking:
      return "LOOKING";
    case ServerState::kFollowing:
      return "FOLLOWING";
    case ServerState::kLeading:
      return "LEADING";
    case ServerState::kObserving:
      return "OBSERVING";
  }
  return "?";
}

std::string encode_notification_frame(const Notification& n) {
  std::string out;
  zk::wire::Writer w(out);
  const size_t start = w.begin_frame();
  w.int32(static_cast<int32_t>(n.state));
  w.int64(n.leader);
  w.int64(n.zxid);
  w.int64(n.election_epoch);
  w.int64(n.peer_epoch);
  w.int32(n.version);
  if (n.version > 1) {
    w.int32(static_cast<int32_t>(n.config.size()));
    out += n.config;
  }
  w.end_frame(start);
  return out;
}

bool decode_notification(std::string_view body, Notification& n, std::string& error) {
  if (body.size() < 28) {
    error = "notification of " + std::to_string(body.size()) + " bytes, at least 28 expected";
    return false;
  }
  zk::wire::Reader r(body);
  const int32_t state = r.int32();
  if (state < 0 || state > static_cast<int32_t>(ServerState::kObserving)) {
    error = "notification state " + std::to_string(state) + " unknown";
    return false;
  }
  Notification out;
  out.state = static_cast<ServerState>(state);
  out.leader = r.int64();
  out.zxid = r.int64();
  out.election_epoch = r.int64();
  if (body.size() == 28) {  // before peer epochs: the zxid's epoch
    out.peer_epoch = static_cast<int64_t>(static_cast<uint64_t>(out.zxid) >> 32);
    out.version = 0;
  } else {
    out.peer_epoch = r.int64();
    out.version = body.size() == 40 ? 0 : r.int32();
  }
  if (out.version > 1) {
    const int32_t length = r.int32();
    if (length < 0 || static_cast<size_t>(length) > body.size()) {
      error = "notification config length " + std::to_string(length) + " out of bounds";
      return false;
    }
    const std::string_view rest = r.rest();
    if (rest.size() < static_cast<size_t>(length)) {
      error = "notification config cut short";
      return false;
    }
    out.config.assign(rest.substr(0, length));
  }
  if (!r.ok()) {
    error = "notification cut short";
    return false;
  }
  n = std::move(out);
  return true;
}

Decode next_election_frame(std::string_view bytes, std::string_view& body, size_t& consumed) {
  if (bytes.size() < 4) return Decode::kNeedMore;
  const int32_t n = peek_int32(bytes);
  if (n <= 0 || static_cast<size_t>(n) > kMaxElectionFrameBytes) return Decode::kBad;
  if (bytes.size() < 4 + static_cast<size_t>(n)) return Decode::kNeedMore;
  body = bytes.substr(4, n);
  consumed = 4 + n;
  return Decode::kOk;
}

}  // namespace zkd::apache
