// SPDX-License-Identifier: Apache-2.0
// What a ZooKeeper server says about itself through the four-letter words
// `srvr` (its mode in the ensemble) and `mntr` (key/value figures). The
// shapes are Apache ZooKeeper 3.8's, which zkd reproduces:
//   srvr: "Mode: leader" / "Mode: follower" / "Mode: observer" /
//         "Mode: standalone" among its lines, or the single line
//         "This ZooKeeper instance is not currently serving requests";
//   mntr: one "key<TAB>value" per line (zk_server_state, zk_zxid, ...).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace boost::asio::ssl {
class context;
}

namespace zk::lab {

enum class ServerMode {
  kUnreachable,  // no answer to srvr (not running, not listening, or too slow)
  kNotServing,   // answered, but is not in a serving quorum
  kLeader,
  kFollower,
  kObserver,
  kStandalone,
  kReadOnly,  // without a quorum, serving reads in read-only mode (not serving)
  kUnknown,   // answered something else
};

// "unreachable", "not serving", "leader", "follower", "observer", "standalone",
// "read-only", "unknown".
std::string_view server_mode_name(ServerMode mode);

// True for kLeader, kFollower, kObserver and kStandalone: the server takes clients.
bool is_serving(ServerMode mode);

// The mode a `srvr` answer states.
ServerMode parse_server_mode(std::string_view srvr_answer);

// Asks host:port `srvr` on a fresh connection (the deadline covers it all).
ServerMode server_mode(const std::string& host, uint16_t port,
                       std::chrono::milliseconds deadline = std::chrono::seconds(2));

// The key/value lines of a `mntr` answer.
std::map<std::string, std::string> parse_mntr(std::string_view mntr_answer);

// Asks host:port `mntr` (over TLS with `tls`: four_letter_word.h); empty
// when it does not answer in time.
std::map<std::string, std::string> mntr(
    const std::string& host, uint16_t port,
    std::chrono::milliseconds deadline = std::chrono::seconds(2),
    const std::shared_ptr<boost::asio::ssl::context>& tls = nullptr);

}  // namespace zk::lab
