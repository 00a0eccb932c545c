// SPDX-License-Identifier: Apache-2.0
// The relay layout of a lab: <lab>/relay.links, written by write_lab
// (lab_state.h) and read by the relay daemon (relay_daemon.h).
//
// Format (text): lines starting with '#' are comments; every other line is one
// link "A B LISTEN TARGET" (decimal, single spaces): node B (the larger id)
// dials node A at 127.0.0.1:LISTEN, which B's zoo.cfg names as A's quorum
// port, and the relay forwards to A's real quorum port TARGET. One line per
// pair of nodes, ordered by (A, B).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace zk::lab {

// One link as the relay (relay.h) serves it.
struct RelayLink {
  int a = 0;            // the node that accepts (the smaller id)
  int b = 0;            // the node that dials (the larger id)
  uint16_t listen = 0;  // the relay listens on 127.0.0.1:listen; 0: a free port (Relay::port)
  uint16_t target = 0;  // and forwards to 127.0.0.1:target
  bool operator==(const RelayLink&) const = default;
};

std::filesystem::path relay_links_path(const std::filesystem::path& lab_dir);

// Empty on success, else why not.
std::string write_relay_links(const std::filesystem::path& lab_dir,
                              const std::vector<RelayLink>& links);

// The links of the lab; nothing when the file is missing (`error` left empty:
// a lab written before zklab had relays) or malformed (`error` says where).
std::optional<std::vector<RelayLink>> read_relay_links(const std::filesystem::path& lab_dir,
                                                       std::string& error);

}  // namespace zk::lab
