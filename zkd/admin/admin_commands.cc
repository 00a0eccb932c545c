// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/admin_commands.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <optional>
#include <variant>

#include "zkd/admin/jackson_json.h"

namespace zkd::admin {
namespace {

namespace json = boost::json;

// What a command hands back: its fields, or an error of its own.
struct Outcome {
  json::object fields;
  std::optional<std::string> error;
};

using Run = Outcome (*)(ServerView&, const std::map<std::string, std::string>&);

struct Command {
  std::vector<std::string_view> names;  // primary first
  bool needs_server = true;             // Apache's isServerRequired
  Run run;
};

json::object client_response_stats() {
  // zkd does not track reply sizes; Apache prints -1 before the first reply.
  return json::object{{"last_buffer_size", -1}, {"min_buffer_size", -1}, {"max_buffer_size", -1}};
}

// "/127.0.0.1:54321" -> "127.0.0.1:54321" (Apache's remote_socket_address).
std::string socket_address(const std::string& remote) {
  return remote.starts_with('/') ? remote.substr(1) : remote;
}

json::array connection_infos(const std::vector<server::ConnectionSnapshot>& list, bool brief) {
  json::array out;
  for (const auto& c : list) {
    json::object info{{"remote_socket_address", socket_address(c.remote)},
                      {"interest_ops", c.interest_ops},
                      {"outstanding_requests", c.queued},
                      {"packets_received", c.received},
                      {"packets_sent", c.sent}};
    if (!brief && c.session_id != 0) {
      info["session_id"] = c.session_id;
      info["last_operation"] = c.last_operation;
      info["established"] = c.established_ms;
      info["session_timeout"] = c.timeout_ms;
      info["last_cxid"] = c.last_cxid;
      info["last_zxid"] = c.last_zxid;
      info["last_response_time"] = c.last_response_ms;
      info["last_latency"] = c.latency.last();
      info["min_latency"] = c.latency.min();
      info["avg_latency"] = c.latency.integer_average();
      info["max_latency"] = c.latency.max();
    }
    out.push_back(std::move(info));
  }
  return out;
}

Outcome server_stats(ServerView& view, const std::map<std::string, std::string>&) {
  const auto s = view.summary();
  const auto dirs = view.dirs();
  json::object stats{{"packets_sent", s.packets_sent},
                     {"packets_received", s.packets_received},
                     {"fsync_threshold_exceed_count", 0},
                     {"client_response_stats", client_response_stats()},
                     {"provider_null", false},
                     {"data_dir_size", dirs.data_dir_size},
                     {"log_dir_size", dirs.log_dir_size},
                     {"server_state", s.mode},
                     {"last_processed_zxid", s.last_zxid},
                     {"outstanding_requests", s.outstanding},
                     {"avg_latency", s.latency.average()},
                     {"max_latency", s.latency.max()},
                     {"min_latency", s.latency.min()},
                     {"num_alive_client_connections", s.connections},
                     {"uptime", s.uptime_ms},
                     {"auth_failed_count", s.auth_failures},
                     {"non_mtlsremote_conn_count", 0},
                     {"non_mtlslocal_conn_count", 0}};
  return {json::object{{"version", s.version},
                       {"read_only", view.read_only()},
                       {"server_stats", std::move(stats)},
                       {"client_response", client_response_stats()},
                       {"node_count", s.node_count}},
          std::nullopt};
}

Outcome stats(ServerView& view, const std::map<std::string, std::string>& args) {
  Outcome out = server_stats(view, args);
  out.fields["connections"] = connection_infos(view.connections(), /*brief=*/true);
  out.fields["secure_connections"] = json::array{};
  return out;
}

Outcome connections(ServerView& view, const std::map<std::string, std::string>&) {
  return {json::object{{"connections", connection_infos(view.connections(), /*brief=*/false)},
                       {"secure_connections", json::array{}}},
          std::nullopt};
}

Outcome monitor(ServerView& view, const std::map<std::string, std::string>&) {
  json::object fields;
  for (auto& [name, value] : server::monitor_fields(view.monitor())) {
    std::visit([&fields, &name](const auto& v) { fields[name] = v; }, value);
  }
  return {std::move(fields), std::nullopt};
}

Outcome configuration(ServerView& view, const std::map<std::string, std::string>&) {
  const auto c = view.conf();
  return {json::object{{"client_port", c.client_port},
                       {"data_dir", c.data_dir + "/version-2"},
                       {"data_log_dir", c.data_log_dir + "/version-2"},
                       {"tick_time", c.tick_time_ms},
                       {"max_client_cnxns", c.max_client_cnxns},
                       {"min_session_timeout", c.min_session_timeout_ms},
                       {"max_session_timeout", c.max_session_timeout_ms},
                       {"server_id", c.server_id},
                       {"client_port_listen_backlog", c.client_port_listen_backlog}},
          std::nullopt};
}

Outcome environment(ServerView& view, const std::map<std::string, std::string>&) {
  json::object fields;
  for (const auto& [key, value] : view.environment()) fields[key] = value;
  return {std::move(fields), std::nullopt};
}

Outcome dump(ServerView& view, const std::map<std::string, std::string>&) {
  const auto d = view.dump();
  json::object expiry;
  for (const auto& bucket : d.session_buckets) {
    json::array ids;
    for (int64_t id : bucket.sessions) ids.push_back(id);
    expiry[std::to_string(bucket.expire_at_ms)] = std::move(ids);
  }
  json::object ephemerals;
  for (const auto& [session, paths] : d.ephemerals) {
    json::array list;
    for (const auto& p : paths) list.push_back(json::string(p));
    ephemerals[std::to_string(session)] = std::move(list);
  }
  return {json::object{{"expiry_time_to_session_ids", std::move(expiry)},
                       {"session_id_to_ephemeral_paths", std::move(ephemerals)}},
          std::nullopt};
}

Outcome watch_summary(ServerView& view, const std::map<std::string, std::string>&) {
  const auto w = view.watch_counts();
  return {json::object{{"num_connections", w.connections},
                       {"num_paths", w.paths},
                       {"num_total_watches", w.total}},
          std::nullopt};
}

Outcome watches(ServerView& view, const std::map<std::string, std::string>&) {
  json::object by_session;
  for (const auto& [session, paths] : view.watches_by_session()) {
    json::array list;
    for (const auto& p : paths) list.push_back(json::string(p));
    by_session[std::to_string(session)] = std::move(list);
  }
  return {json::object{{"session_id_to_watched_paths", std::move(by_session)}}, std::nullopt};
}

Outcome watches_by_path(ServerView& view, const std::map<std::string, std::string>&) {
  json::object by_path;
  for (const auto& [path, sessions] : view.watches_by_path()) {
    json::array list;
    for (int64_t s : sessions) list.push_back(s);
    by_path[path] = std::move(list);
  }
  return {json::object{{"path_to_session_ids", std::move(by_path)}}, std::nullopt};
}

Outcome dirs(ServerView& view, const std::map<std::string, std::string>&) {
  const auto d = view.dirs();
  return {json::object{{"datadir_size", d.data_dir_size}, {"logdir_size", d.log_dir_size}},
          std::nullopt};
}

Outcome is_read_only(ServerView& view, const std::map<std::string, std::string>&) {
  return {json::object{{"read_only", view.read_only()}}, std::nullopt};
}

Outcome leader(ServerView& view, const std::map<std::string, std::string>&) {
  auto l = view.leader();
  if (!l) return {{}, "server is not initialized"};
  return {
      json::object{
          {"is_leader", l->is_leader}, {"leader_id", l->leader_id}, {"leader_ip", l->leader_ip}},
      std::nullopt};
}

Outcome voting_view(ServerView& view, const std::map<std::string, std::string>&) {
  json::object config;
  for (const auto& [id, text] : view.voting_view()) config[std::to_string(id)] = text;
  return {json::object{{"current_config", std::move(config)}}, std::nullopt};
}

Outcome last_snapshot(ServerView& view, const std::map<std::string, std::string>&) {
  auto info = view.last_snapshot();
  return {json::object{{"zxid", server::java_hex(info.zxid)}, {"timestamp", info.timestamp}},
          std::nullopt};
}

Outcome initial_configuration(ServerView& view, const std::map<std::string, std::string>&) {
  return {json::object{{"initial_configuration", view.initial_configuration()}}, std::nullopt};
}

Outcome get_trace_mask(ServerView& view, const std::map<std::string, std::string>&) {
  return {json::object{{"tracemask", view.trace_mask()}}, std::nullopt};
}

Outcome set_trace_mask(ServerView& view, const std::map<std::string, std::string>& args) {
  auto it = args.find("traceMask");
  if (it == args.end()) return {{}, "setTraceMask requires long traceMask argument"};
  int64_t mask = 0;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mask);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    return {{}, "setTraceMask requires long traceMask argument, got " + text};
  }
  view.set_trace_mask(mask);
  return {json::object{{"tracemask", mask}}, std::nullopt};
}

Outcome stat_reset(ServerView& view, const std::map<std::string, std::string>&) {
  view.reset_server_stats();
  return {};
}

Outcome connection_stat_reset(ServerView& view, const std::map<std::string, std::string>&) {
  view.reset_connection_stats();
  return {};
}

Outcome nothing(ServerView&, const std::map<std::string, std::string>&) { return {}; }

Outcome hash(ServerView& view, const std::map<std::string, std::string>&) {
  // Apache's ZxidDigest as Jackson prints it; version 0: zkd's own digest
  // function (zkd/tree/digest.h), which Apache's version numbers do not name.
  json::array digests;
  for (const auto& [zxid, digest] : view.digests()) {
    digests.push_back(json::object{{"zxid", zxid}, {"digest", digest}, {"digestVersion", 0}});
  }
  return {json::object{{"digests", std::move(digests)}}, std::nullopt};
}

Outcome observers(ServerView&, const std::map<std::string, std::string>&) {
  return {json::object{{"synced_observers", 0}, {"observers", json::array{}}}, std::nullopt};
}

// zkd's: ydld through the admin server; `yielded` says whether the leader
// took it, `message` is the four-letter word's answer.
Outcome yield_leadership(ServerView& view, const std::map<std::string, std::string>&) {
  std::string message = view.yield_leadership();
  while (!message.empty() && message.back() == '\n') message.pop_back();
  const bool yielded = message.starts_with("Sent ");
  return {json::object{{"yielded", yielded}, {"message", message}}, std::nullopt};
}

Outcome zab_state(ServerView& view, const std::map<std::string, std::string>&) {
  auto l = view.leader();
  if (!l) return {json::object{{"voting", false}, {"zabstate", ""}}, std::nullopt};
  return {json::object{{"voting", true}, {"zabstate", view.serving() ? "broadcast" : "election"}},
          std::nullopt};
}

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {{"connection_stat_reset", "crst"}, true, connection_stat_reset},
      {{"configuration", "conf", "config"}, true, configuration},
      {{"connections", "cons"}, true, connections},
      {{"hash"}, true, hash},
      {{"dirs"}, true, dirs},
      {{"dump"}, true, dump},
      {{"environment", "env", "envi"}, false, environment},
      {{"get_trace_mask", "gtmk"}, false, get_trace_mask},
      {{"initial_configuration", "icfg"}, true, initial_configuration},
      {{"is_read_only", "isro"}, true, is_read_only},
      {{"last_snapshot", "lsnp"}, true, last_snapshot},
      {{"leader", "lead"}, true, leader},
      {{"monitor", "mntr"}, false, monitor},
      {{"observer_connection_stat_reset", "orst"}, true, nothing},
      {{"observers", "obsr"}, true, observers},
      {{"ruok"}, true, nothing},
      {{"set_trace_mask", "stmk"}, false, set_trace_mask},
      {{"server_stats", "srvr"}, true, server_stats},
      {{"stats", "stat"}, true, stats},
      {{"stat_reset", "srst"}, true, stat_reset},
      {{"system_properties", "sysp"}, false, nothing},  // zkd has no JVM properties
      {{"voting_view"}, true, voting_view},
      {{"yield_leadership", "ydld"}, true, yield_leadership},
      {{"watch_summary", "wchs"}, true, watch_summary},
      {{"watches", "wchc"}, true, watches},
      {{"watches_by_path", "wchp"}, true, watches_by_path},
      {{"zabstate"}, false, zab_state},
  };
  return table;
}

const Command* find(std::string_view name) {
  for (const auto& c : commands()) {
    if (std::find(c.names.begin(), c.names.end(), name) != c.names.end()) return &c;
  }
  return nullptr;
}

std::string failure(std::string_view name, const std::string& error) {
  return jackson_pretty(json::object{{"command", name}, {"error", error}});
}

}  // namespace

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const auto& c : commands()) names.emplace_back(c.names.front());
  std::sort(names.begin(), names.end());
  return names;
}

std::string run_command(ServerView& view, std::string_view name,
                        const std::map<std::string, std::string>& args) {
  const Command* command = find(name);
  if (command == nullptr) return failure(name, "Unknown command: " + std::string(name));
  if (command->needs_server && !view.serving() && !view.read_only()) {
    return failure(name, "This ZooKeeper instance is not currently serving requests");
  }
  Outcome outcome = command->run(view, args);
  json::object response;
  if (outcome.error) response["error"] = *outcome.error;  // Apache: the command's own error leads
  for (auto& member : outcome.fields) response[member.key()] = std::move(member.value());
  response["command"] = command->names.front();
  if (!outcome.error) response["error"] = nullptr;
  return jackson_pretty(response);
}

std::string command_links(std::string_view command_url, bool backup, bool shed) {
  std::vector<std::string> names = command_names();
  if (backup) names.insert(names.end(), {"restore", "snapshot"});
  if (shed) names.emplace_back("shed_connections");
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& name : names) {
    std::string href = std::string(command_url) + "/" + name;
    out += "<a href=\"" + href + "\">" + name + "</a>\n<br/>\n";
  }
  return out;
}

}  // namespace zkd::admin
