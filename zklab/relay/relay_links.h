// SPDX-License-Identifier: Apache-2.0
// The relay layout of a lab: <lab>/relay.links, written by write_lab
// (lab_state.h) and read by the relay daemon (relay_daemon.h).
//
// Format (text): lines starting with '#' are comments; every other line is one
// relay "A B LISTEN TARGET [HELLO]" (decimal, single spaces) of the link of
// nodes A < B (the pair a cut or delay names): it listens on
// 127.0.0.1:LISTEN, which one node's zoo.cfg names as a port of the other,
// and forwards to that port, TARGET. In a lab of zkd's own peer protocol there
// is one relay per pair: node B (the larger id) dials A at LISTEN, which B's
// zoo.cfg names as A's quorum port, TARGET A's real quorum port. In a lab of
// Apache's peer protocol (mixed kinds, lab_state.h) there are four per pair,
// since both ports carry traffic and either node may dial: B to A's quorum
// and election ports, A to B's quorum and election ports. HELLO (only on
// the relay into B's election port) makes the relay rewrite the port in the
// dialer's election hello to HELLO, the relay B names for A's election port
// (election_hello.h). Ordered by (A, B).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace zk::lab {

// One link as the relay (relay.h) serves it.
struct RelayLink {
  int a = 0;            // the pair's smaller id (in a zkd lab, the node that accepts)
  int b = 0;            // the pair's larger id (in a zkd lab, the node that dials)
  uint16_t listen = 0;  // the relay listens on 127.0.0.1:listen; 0: a free port (Relay::port)
  uint16_t target = 0;  // and forwards to 127.0.0.1:target
  // Non-zero: connections start with Apache's election hello, whose port the
  // relay sets to this one (election_hello.h).
  uint16_t hello_port = 0;
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
