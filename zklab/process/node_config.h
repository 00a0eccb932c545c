// SPDX-License-Identifier: Apache-2.0
// What a lab node's zoo.cfg says of it, read back from the files a lab
// writes and its server rewrites (zklab's lab_state.h, and the benchmarks
// that drive a `zklab up` lab from outside): its ports, its role, and whether
// it speaks TLS or Apache's peer protocol. Also the pid file beside it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace zk::lab {

struct NodeConfig {
  uint16_t client_port = 0;  // a TLS node's secureClientPort
  uint16_t quorum_port = 0;  // as its own server line names it
  uint16_t election_port = 0;
  uint16_t admin_port = 0;  // 0: admin.enableServer=false, or none named
  bool observer = false;
  bool secure = false;           // secureClientPort is its client port
  bool apache_protocol = false;  // zkd.peerProtocol=apache
};

// Node `id`'s configuration from `config` (its zoo.cfg). A server with
// reconfigEnabled moves the server lines to the dynamic file zoo.cfg names,
// which leaves out a removed node: its line is then in zoo.cfg.bak beside
// `config` (the zoo.cfg the lab wrote). The first server.<id> line found, in
// that order, is the node's own. Nothing when `config` cannot be read.
std::optional<NodeConfig> read_node_config(const std::filesystem::path& config, int id);

// The pid a pid file holds; nothing when it is missing or holds none.
std::optional<pid_t> read_pid_file(const std::filesystem::path& file);

}  // namespace zk::lab
