// SPDX-License-Identifier: Apache-2.0
// Network faults on a lab's peer links, without root: every peer link of a
// lab goes through a TCP relay (relay.h) run by the lab's relay daemon
// (relay_daemon.h), so zklab can cut links and delay them. Client ports stay
// direct.
//
// A cut link forwards nothing: bytes sent either way are dropped, and new
// connections over it are accepted and dropped likewise (as a partition looks
// to TCP: silence, detected only by timeouts). When a cut is healed, the
// connections that were cut are closed, so that both ends reconnect and
// resume with a clean stream. A delayed node's links deliver every chunk of
// bytes, in both directions, `delay` after the relay read it (order kept); a
// link between two delayed nodes adds both delays.
//
// Faults live in the relay daemon: they last until changed, or until the
// daemon stops (`zklab down`); a lab starts with none.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "zklab/relay/network_faults.h"
#include "zklab/tool/lab_commands.h"

namespace zk::lab {

// NetworkFaults (the cut links, the delayed nodes) is in network_faults.h.

// The links to cut so that nodes 1..`nodes` fall into `groups` (nodes named
// in no group form one more group together): every link between two nodes of
// different groups. Nothing (and `error` set) when a group names a node
// outside 1..nodes or a node twice.
std::optional<std::set<std::pair<int, int>>> partition_links(
    const std::vector<std::vector<int>>& groups, int nodes, std::string& error);

// Replaces the lab's faults with `faults` through its relay daemon and returns
// once the daemon applied them; empty on success, else why not (no lab, no
// relay daemon, no answer within `deadline`).
std::string set_network(const std::filesystem::path& lab_dir, const NetworkFaults& faults,
                        std::chrono::milliseconds deadline);
// The faults in force now; nothing (and `error` set) when the daemon cannot
// be asked.
std::optional<NetworkFaults> get_network(const std::filesystem::path& lab_dir,
                                         std::chrono::milliseconds deadline, std::string& error);

// The commands. `groups`: one argument per group, node ids separated by
// commas ("1,2" "3"). `node`: as for lab_node. `delay`: "50ms", "1s" or a
// number of milliseconds; 0 removes the node's delay. heal removes every cut
// and every delay. partition and isolate replace the cuts (delays stay); slow
// keeps the cuts and the other nodes' delays. Each prints the faults now in
// force. Groups or a delay that do not parse, or a group naming a node the
// lab does not have (or one twice), are bad arguments (kUsage, with the
// command's usage on `err`); a lab without a running relay daemon is kError.
LabExit lab_partition(const LabContext& ctx, const std::vector<std::string>& groups);
LabExit lab_isolate(const LabContext& ctx, const std::string& node);
LabExit lab_slow(const LabContext& ctx, const std::string& node, const std::string& delay);
LabExit lab_heal(const LabContext& ctx);

// The hidden `zklab relay-daemon` command: runs the relays of the lab in
// `lab_dir` until SIGTERM (started by lab_up, stopped by lab_down).
LabExit run_relay_daemon(const std::filesystem::path& lab_dir);

}  // namespace zk::lab
