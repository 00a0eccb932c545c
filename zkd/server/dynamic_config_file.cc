// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/dynamic_config_file.h"

#include <algorithm>
#include <charconv>
#include <system_error>
#include <vector>

#include "zkd/server/membership.h"
#include "zkd/server/properties.h"
#include "zkd/storage/durable_file.h"

namespace zkd::server {
namespace {

// The directory to write a file of `path` into ("." for a bare name).
std::string dir_of(const std::filesystem::path& path) {
  const std::filesystem::path dir = path.parent_path();
  return dir.empty() ? std::string(".") : dir.string();
}

Status write_beside(storage::Env& env, const std::filesystem::path& path, std::string_view bytes) {
  Status s = storage::write_file_durably(env, dir_of(path), path.filename().string(), bytes);
  if (s.ok()) return s;
  return Status::error(path.string() + ": cannot write: " + s.message());
}

// Apache writes the canonical path (symbolic links and ".." resolved); a
// path that cannot be resolved (an Env that is not the file system) is
// written absolute.
std::string canonical_text(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
  if (ec) canonical = std::filesystem::absolute(path, ec);
  return (ec ? path : canonical).string();
}

}  // namespace

std::filesystem::path dynamic_file_path(const std::filesystem::path& zoo_cfg, int64_t version) {
  char hex[17];
  auto end = std::to_chars(hex, hex + sizeof hex, static_cast<uint64_t>(version), 16).ptr;
  return std::filesystem::path(zoo_cfg.string() + ".dynamic." + std::string(hex, end));
}

std::string dynamic_file_text(const QuorumServers& servers) {
  std::vector<std::string> lines;
  lines.reserve(servers.size());
  for (const auto& [id, server] : servers) {
    lines.push_back("server." + std::to_string(id) + "=" + quorum_server_text(server));
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& line : lines) {
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

bool erase_client_port(const QuorumServers& servers, int64_t my_id) {
  const auto me = servers.find(my_id);
  return me != servers.end() && me->second.client_port != 0;
}

std::string static_file_text(std::string_view zoo_cfg, std::string_view dynamic_file,
                             bool erase_client) {
  // java.util.Properties: one value per key, the last one read.
  std::vector<std::string> order;
  std::map<std::string, std::string> values;
  for (Property& p : parse_properties(zoo_cfg)) {
    if (values.find(p.key) == values.end()) order.push_back(p.key);
    values[p.key] = std::move(p.value);
  }
  std::string out;
  for (const std::string& key : order) {
    const bool dropped = key.starts_with("server.") || key.starts_with("group") ||
                         key.starts_with("weight") || key.starts_with("dynamicConfigFile") ||
                         key.starts_with("peerType") ||
                         (erase_client && key.starts_with("clientPort"));
    if (!dropped) out += key + "=" + values[key] + "\n";
  }
  return out + "dynamicConfigFile=" + std::string(dynamic_file) + "\n";
}

Status write_dynamic_config(storage::Env& env, const std::filesystem::path& zoo_cfg,
                            const QuorumServers& servers, int64_t version, int64_t my_id) {
  const std::filesystem::path dynamic = dynamic_file_path(zoo_cfg, version);
  if (Status s = write_beside(env, dynamic, dynamic_file_text(servers)); !s.ok()) return s;
  // zoo.cfg as it is now (a reconfiguration before may have rewritten it).
  auto current = env.read_file(zoo_cfg.string());
  if (!current.ok()) {
    return Status::error(zoo_cfg.string() + ": cannot read: " + current.status().message());
  }
  // zoo.cfg still holding this server's line: Apache would have rewritten it
  // at its first election already (with that line's membership), erasing
  // the client port if the line named one; the erasure outlives the line.
  bool erase = erase_client_port(servers, my_id);
  for (const Property& p : parse_properties(*current)) {
    if (p.key != "server." + std::to_string(my_id)) continue;
    const auto own = parse_server_line(p.value);
    erase = erase || (own.ok() && own->client_port != 0);
  }
  if (Status s =
          write_beside(env, zoo_cfg, static_file_text(*current, canonical_text(dynamic), erase));
      !s.ok()) {
    return s;
  }
  // Apache's proposed-but-uncommitted configuration (left by Apache before
  // zkd took the server over): older than the one committed now, and Apache
  // deletes it at this point too.
  const std::string next = zoo_cfg.string() + ".dynamic.next";
  if (!env.file_exists(next)) return Status();
  if (Status s = env.remove_file(next); !s.ok()) {
    return Status::error(next + ": cannot remove: " + s.message());
  }
  return env.sync_dir(dir_of(zoo_cfg));
}

Status back_up_static_config(storage::Env& env, const std::filesystem::path& zoo_cfg) {
  auto current = env.read_file(zoo_cfg.string());
  if (!current.ok()) {
    return Status::error(zoo_cfg.string() + ": cannot read: " + current.status().message());
  }
  return write_beside(env, std::filesystem::path(zoo_cfg.string() + ".bak"), *current);
}

}  // namespace zkd::server
