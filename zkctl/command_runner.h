// SPDX-License-Identifier: Apache-2.0
// The seam between "what to run" and "how it runs": the script runner and the
// interactive shell hand parsed commands to a CommandRunner. The real one
// (ZkCommandRunner, zk_command_runner.h) talks to a server; tests use fakes.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "zkctl/command.h"
#include "zkctl/command_result.h"

namespace zkctl {

// Receives each result as soon as it exists (a watch yields several).
using ResultSink = std::function<void(const CommandResult&)>;

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs `command`, passing every result to `sink`. Returns the failure that
  // ended it, or nullopt on success. Results already passed stay valid output
  // even when a failure follows (e.g. a watch that re-arms on a deleted node).
  virtual std::optional<CommandFailure> run(const Command& command, const ResultSink& sink) = 0;
  // The events of watches earlier commands left set (get -w, addWatch, ...)
  // that fired since the last call, in order; the shell prints them between
  // commands.
  virtual std::vector<FiredWatchResult> take_fired_watches() { return {}; }
  // From now on `wake` is called each time a watch fires, on whatever thread
  // delivers the event, so that the interactive shell can print it while it
  // waits for a line. It must be quick and must not call into the runner.
  virtual void on_watch_fired(std::function<void()> wake) { (void)wake; }
};

}  // namespace zkctl
