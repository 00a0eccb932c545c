// SPDX-License-Identifier: Apache-2.0
#include "zkctl/config_text.h"

#include <charconv>
#include <map>

namespace zkctl {

std::string client_config_text(std::string_view config) {
  std::string version;
  std::map<long, std::string> clients;  // by server id
  while (!config.empty()) {
    const size_t end = config.find('\n');
    std::string_view line = config.substr(0, end);
    config = end == std::string_view::npos ? std::string_view() : config.substr(end + 1);
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, eq);
    const std::string_view value = line.substr(eq + 1);
    if (key == "version") {
      version = value;
      continue;
    }
    long id = 0;
    if (!key.starts_with("server.") ||
        std::from_chars(key.data() + 7, key.data() + key.size(), id).ec != std::errc()) {
      continue;
    }
    const size_t semi = value.find(';');
    if (semi == std::string_view::npos) continue;
    std::string client(value.substr(semi + 1));
    if (client.find(':') == std::string::npos) client = "0.0.0.0:" + client;
    clients[id] = client;
  }
  std::string out = version + " ";
  for (auto it = clients.begin(); it != clients.end(); ++it) {
    if (it != clients.begin()) out += ',';
    out += it->second;
  }
  return out;
}

}  // namespace zkctl
