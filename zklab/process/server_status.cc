// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/server_status.h"

#include "zklab/process/four_letter_word.h"

namespace zk::lab {

namespace {

// Apache's text (and zkd's) for a quorum member outside a serving quorum.
constexpr std::string_view kNotServingText =
    "This ZooKeeper instance is not currently serving requests";

// Calls fn(line) for every line of `text` (without its '\n').
template <typename Fn>
void for_each_line(std::string_view text, Fn fn) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

}  // namespace

std::string_view server_mode_name(ServerMode mode) {
  switch (mode) {
    case ServerMode::kUnreachable:
      return "unreachable";
    case ServerMode::kNotServing:
      return "not serving";
    case ServerMode::kLeader:
      return "leader";
    case ServerMode::kFollower:
      return "follower";
    case ServerMode::kObserver:
      return "observer";
    case ServerMode::kStandalone:
      return "standalone";
    case ServerMode::kReadOnly:
      return "read-only";
    case ServerMode::kUnknown:
      break;
  }
  return "unknown";
}

bool is_serving(ServerMode mode) {
  return mode == ServerMode::kLeader || mode == ServerMode::kFollower ||
         mode == ServerMode::kObserver || mode == ServerMode::kStandalone;
}

ServerMode parse_server_mode(std::string_view srvr_answer) {
  ServerMode mode = ServerMode::kUnknown;
  for_each_line(srvr_answer, [&mode](std::string_view line) {
    if (line.rfind(kNotServingText, 0) == 0) mode = ServerMode::kNotServing;
    if (line.rfind("Mode: ", 0) != 0) return;
    std::string_view name = line.substr(6);
    if (name == "leader") mode = ServerMode::kLeader;
    if (name == "follower") mode = ServerMode::kFollower;
    if (name == "observer") mode = ServerMode::kObserver;
    if (name == "standalone") mode = ServerMode::kStandalone;
    if (name == "read-only") mode = ServerMode::kReadOnly;
  });
  return mode;
}

ServerMode server_mode(const std::string& host, uint16_t port, std::chrono::milliseconds deadline) {
  auto answer = four_letter_word(host, port, "srvr", deadline);
  // A server that closes the connection without a word is not serving either
  // (it accepted the connection, so it runs).
  if (!answer) return ServerMode::kUnreachable;
  if (answer->empty()) return ServerMode::kNotServing;
  return parse_server_mode(*answer);
}

std::map<std::string, std::string> parse_mntr(std::string_view mntr_answer) {
  std::map<std::string, std::string> values;
  for_each_line(mntr_answer, [&values](std::string_view line) {
    size_t tab = line.find('\t');
    if (tab != std::string_view::npos) {
      values.emplace(std::string(line.substr(0, tab)), std::string(line.substr(tab + 1)));
    }
  });
  return values;
}

std::map<std::string, std::string> mntr(const std::string& host, uint16_t port,
                                        std::chrono::milliseconds deadline,
                                        const std::shared_ptr<boost::asio::ssl::context>& tls) {
  auto answer = four_letter_word(host, port, "mntr", deadline, tls);
  return answer ? parse_mntr(*answer) : std::map<std::string, std::string>{};
}

}  // namespace zk::lab
