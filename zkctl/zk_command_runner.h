// SPDX-License-Identifier: Apache-2.0
// Runs zkctl commands on the shell's session (shell_session.h); with no
// session open, every command fails with NOT_CONNECTED.
//
// Semantics worth knowing:
//   - create -e: the node lives as long as the session, i.e. until zkctl
//     exits (one-shot) or the script / interactive session ends.
//   - ls: children sorted bytewise; ls -R lists PATH and its subtree breadth
//     first, as zkCli.
//   - deleteall: depth-first, children before parents; a node that vanishes
//     meanwhile is not an error, a child created meanwhile makes the parent's
//     delete fail with NOTEMPTY. With a batch size, the deletes go in multis
//     of that many (each all or nothing).
//   - setAcl -R: PATH first, then its subtree breadth first, one setACL each.
//   - watch: arms the watch, waits for one event, prints it, re-arms, until
//     `count` events; events between firing and re-arming are not seen (ZooKeeper
//     watches are one-shot). A data watch on a missing node fails with NONODE,
//     an exists watch does not. With timeout_ms, each wait is bounded and
//     running out fails with WATCH_TIMEOUT.
//   - get/ls/stat/config -w and addWatch leave the watch set and return; its
//     events are collected for take_fired_watches().
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "zkctl/command_runner.h"
#include "zkctl/shell_session.h"

namespace zkctl {

// The events of the watches left set, collected on the client's thread.
class FiredWatches {
 public:
  void add(FiredWatchResult event);  // then calls the wake function, if any
  std::vector<FiredWatchResult> take();
  void set_wake(std::function<void()> wake);

 private:
  std::mutex mu_;
  std::vector<FiredWatchResult> events_;
  std::function<void()> wake_;
};

class ZkCommandRunner : public CommandRunner {
 public:
  // `session` is borrowed and must outlive the runner.
  explicit ZkCommandRunner(ShellSession& session) : session_(session) {}

  std::optional<CommandFailure> run(const Command& command, const ResultSink& sink) override;
  std::vector<FiredWatchResult> take_fired_watches() override { return fired_->take(); }
  void on_watch_fired(std::function<void()> wake) override { fired_->set_wake(std::move(wake)); }

 private:
  ShellSession& session_;
  std::shared_ptr<FiredWatches> fired_ = std::make_shared<FiredWatches>();
};

}  // namespace zkctl
