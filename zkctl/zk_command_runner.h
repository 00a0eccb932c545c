// SPDX-License-Identifier: Apache-2.0
// Runs zkctl commands on one connected zk::client::SyncClient session.
// The session is borrowed: it must outlive the runner and be connected.
//
// Semantics worth knowing:
//   - create -e: the node lives as long as the session, i.e. until zkctl
//     exits (one-shot) or the script / interactive session ends.
//   - ls: children sorted bytewise.
//   - deleteall: depth-first, children before parents; a node that vanishes
//     meanwhile is not an error, a child created meanwhile makes the parent's
//     delete fail with NOTEMPTY.
//   - watch: arms the watch, waits for one event, prints it, re-arms, until
//     `count` events; events between firing and re-arming are not seen (ZooKeeper
//     watches are one-shot). A data watch on a missing node fails with NONODE,
//     an exists watch does not. With timeout_ms, each wait is bounded and
//     running out fails with WATCH_TIMEOUT.
#pragma once

#include "libzk/client/sync_client.h"
#include "zkctl/command_runner.h"

namespace zkctl {

class ZkCommandRunner : public CommandRunner {
 public:
  explicit ZkCommandRunner(zk::client::SyncClient& client) : client_(client) {}

  std::optional<CommandFailure> run(const Command& command, const ResultSink& sink) override;

 private:
  zk::client::SyncClient& client_;
};

}  // namespace zkctl
