// SPDX-License-Identifier: Apache-2.0
// The zklab commands, one function each, as main.cc calls them once the
// command line is parsed. Each prints to `out` (results) and `err`
// (diagnostics) and returns the process exit code (LabExit).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "zklab/tool/lab_state.h"

namespace zk::lab {

// Exit codes of zklab; part of its interface (man/zklab.1).
enum class LabExit : int {
  kOk = 0,
  kError = 1,  // no lab, a node that did not come up or go away in time, ...
  kUsage = 2,  // bad arguments (printed by main.cc with the usage)
};

struct LabContext {
  std::filesystem::path dir;                  // the lab directory
  std::string zkd;                            // the zkd executable (up, start, restart)
  std::chrono::milliseconds deadline{30000};  // for every wait of the command
  std::ostream& out;
  std::ostream& err;
  // NAME=VALUE settings added to the environment of every zkd the command
  // starts (e.g. ZKD_FAILPOINTS=log.synced=crash@10).
  std::vector<std::string> zkd_environment = {};
};

// The nodes of the lab in ctx.dir; nothing, with "zklab: no lab in ..." on
// ctx.err, when there is none.
std::optional<std::vector<LabNode>> load_lab(const LabContext& ctx);

// Waits (ctx.deadline) until every node in `ids` serves and, with
// `need_leader`, exactly one node of the lab leads. Empty on success, else why
// not (each node's role, or the end of the log of a node that exited).
std::string wait_serving(const LabContext& ctx, const std::vector<LabNode>& nodes,
                         const std::vector<int>& ids, bool need_leader);

// The last `lines` lines of a text file (a node's zkd.log), each ending in '\n'.
std::string tail_lines(const std::filesystem::path& file, int lines);

// What a node command does to one node.
enum class NodeAction { kStart, kStop, kRestart, kKill, kPause, kResume };

// Writes the lab (unless DIR holds one that is down: then its layout and data
// are kept), starts every node and waits until all serve under one leader.
LabExit lab_up(const LabContext& ctx, const LabLayout& layout);
// Every node: id, pid, port, role, zxid, connections, alive; then the peer
// network: the relay daemon and the faults in force (lab_network.h). `watch`:
// again every second until interrupted (text: the screen redrawn when it is
// a terminal; JSON: one object per line).
LabExit lab_status_command(const LabContext& ctx, bool json, bool watch = false);
// SIGTERM every node, SIGKILL those still there at the deadline; `wipe`
// removes the directory once every node is gone.
LabExit lab_down(const LabContext& ctx, bool wipe);
// `node`: an id, "leader", "follower" or "random". kStart and kRestart wait
// until the node serves unless `wait` is false.
LabExit lab_node(const LabContext& ctx, NodeAction action, const std::string& node, bool wait);
// The last `lines` lines of the node's zkd.log; `follow`: then what is appended.
LabExit lab_logs(const LabContext& ctx, const std::string& node, int lines, bool follow);

}  // namespace zk::lab
