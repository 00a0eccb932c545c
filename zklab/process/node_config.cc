// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/node_config.h"

#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>

namespace zk::lab {
namespace {

std::optional<std::string> read_whole(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

uint16_t port(const std::ssub_match& m) { return static_cast<uint16_t>(std::stoi(m.str())); }

}  // namespace

std::optional<NodeConfig> read_node_config(const std::filesystem::path& config, int id) {
  // server.<id>=host:quorum:election[:observer][;[host:]client]
  static const std::regex kServerLine(
      R"(^server\.(\d+)=[^:;]+:(\d+):(\d+)(:observer|:participant)?(?:;(?:[^:]+:)?(\d+))?\s*$)");
  static const std::regex kSecurePort(R"(^secureClientPort=(\d+)\s*$)");
  static const std::regex kApacheProtocol(R"(^zkd\.peerProtocol\s*=\s*apache\s*$)");
  static const std::regex kAdminPort(R"(^admin\.serverPort=(\d+)\s*$)");
  static const std::regex kNoAdmin(R"(^admin\.enableServer=false\s*$)");
  static const std::regex kDynamicFile(R"((?:^|\n)dynamicConfigFile=([^\n]*))");

  std::optional<std::string> text = read_whole(config);
  if (!text) return std::nullopt;
  std::smatch m;
  if (std::regex_search(*text, m, kDynamicFile)) {
    const std::filesystem::path dynamic = m[1].str();
    for (const auto& file : {dynamic, std::filesystem::path(config.string() + ".bak")}) {
      if (auto more = read_whole(file)) *text += "\n" + *more;
    }
  }
  NodeConfig node;
  std::istringstream lines(*text);
  bool admin = true;
  bool own_line = false;
  for (std::string line; std::getline(lines, line);) {
    if (!own_line && std::regex_match(line, m, kServerLine) && std::stoi(m[1].str()) == id) {
      own_line = true;  // the first: zoo.cfg's, or the newest dynamic file's
      node.quorum_port = port(m[2]);
      node.election_port = port(m[3]);
      if (m[5].matched) node.client_port = port(m[5]);
      node.observer = m[4].str() == ":observer";
    } else if (std::regex_match(line, m, kSecurePort)) {
      node.client_port = port(m[1]);
      node.secure = true;
    } else if (std::regex_match(line, kApacheProtocol)) {
      node.apache_protocol = true;
    } else if (std::regex_match(line, m, kAdminPort)) {
      node.admin_port = port(m[1]);
    } else if (std::regex_match(line, kNoAdmin)) {
      admin = false;
    }
  }
  if (!admin) node.admin_port = 0;
  return node;
}

std::optional<pid_t> read_pid_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return std::nullopt;
  return static_cast<pid_t>(pid);
}

}  // namespace zk::lab
