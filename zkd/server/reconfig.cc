// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/reconfig.h"

#include <charconv>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"

namespace zkd::server {
namespace {

using zk::wire::Error;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> items(std::string_view s, char separator) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const size_t at = s.find(separator);
    if (std::string_view item = trimmed(s.substr(0, at)); !item.empty()) out.push_back(item);
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

template <typename T>
std::optional<T> number(std::string_view s, int base = 10) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "server.N=<line>" into `servers`; kInvalidArgument saying what is wrong.
Status add_server(std::string_view item, QuorumServers& servers) {
  const size_t eq = item.find('=');
  const std::string_view key = trimmed(item.substr(0, eq));
  if (eq == std::string_view::npos || !key.starts_with("server.")) {
    return Status::invalid_argument("'" + std::string(item) +
                                    "' is not server.N=host:quorumPort:electionPort...");
  }
  const auto id = number<int64_t>(key.substr(7));
  if (!id || *id <= 0) {
    return Status::invalid_argument("'" + std::string(key) +
                                    "': the server id is not a number above 0");
  }
  StatusOr<QuorumServer> server = parse_server_line(trimmed(item.substr(eq + 1)));
  if (!server.ok()) return server.status();
  server->id = *id;
  servers[*id] = *std::move(server);
  return {};
}

ReconfigPlan refused(Error error, std::string why) {
  return ReconfigPlan{error, std::move(why), {}};
}

}  // namespace

std::optional<ReconfigRequest> decode_reconfig_request(std::string_view body) {
  zk::wire::ReconfigRequest wire;
  zk::wire::Reader r(body);
  wire.read(r);
  if (!r.ok() || !r.at_end()) return std::nullopt;
  // Null and empty mean the same (kazoo writes None as null).
  const auto given = [](std::string& s) -> std::optional<std::string> {
    if (s.empty()) return std::nullopt;
    return std::move(s);
  };
  return ReconfigRequest{given(wire.joining), given(wire.leaving), given(wire.new_members),
                         wire.from_config};
}

ReconfigPlan plan_reconfig(const QuorumServers& current, int64_t version,
                           const ReconfigRequest& request) {
  if (request.from_config != -1 && request.from_config != version) {
    return refused(Error::kBadVersion, "the configuration is at another version");
  }
  QuorumServers next;
  if (request.new_members) {
    if (request.joining || request.leaving) {
      return refused(Error::kBadArguments, "new members together with joining or leaving servers");
    }
    for (std::string_view item : items(*request.new_members, ',')) {
      if (Status added = add_server(item, next); !added.ok()) {
        return refused(Error::kBadArguments, added.message());
      }
    }
  } else {
    next = current;
    if (request.leaving) {
      for (std::string_view item : items(*request.leaving, ',')) {
        const auto id = number<int64_t>(item);
        if (!id)
          return refused(Error::kBadArguments, "'" + std::string(item) + "' is not a server id");
        next.erase(*id);
      }
    }
    if (request.joining) {
      for (std::string_view item : items(*request.joining, ',')) {
        if (Status added = add_server(item, next); !added.ok()) {
          return refused(Error::kBadArguments, added.message());
        }
      }
    }
  }
  bool voters = false;
  for (const auto& [id, server] : next) voters = voters || !server.observer;
  if (!voters) return refused(Error::kBadArguments, "the new configuration has no participant");
  return ReconfigPlan{Error::kOk, {}, std::move(next)};
}

std::optional<std::pair<QuorumServers, int64_t>> parse_membership_text(std::string_view text) {
  QuorumServers servers;
  int64_t version = 0;
  for (std::string_view line : items(text, '\n')) {
    if (line.starts_with("version=")) {
      const auto v = number<uint64_t>(line.substr(8), 16);
      if (!v) return std::nullopt;
      version = static_cast<int64_t>(*v);
    } else if (!add_server(line, servers).ok()) {
      return std::nullopt;
    }
  }
  return std::make_pair(std::move(servers), version);
}

}  // namespace zkd::server
