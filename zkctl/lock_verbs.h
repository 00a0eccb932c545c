// SPDX-License-Identifier: Apache-2.0
// zkctl's lock and election verbs. They own the process (they run a command
// while holding a lock, or block as an election candidate), so they are
// one-shot only: not available in scripts or the interactive shell.
//
//   lock PATH [--timeout MS] -- CMD [ARGS...]
//       Acquire the herd-free lock at PATH (zk::recipes::Lock, Curator's
//       InterProcessMutex layout), run CMD with ZK_FENCING_TOKEN (the
//       fencing token: the lock node's czxid) and ZK_LOCK_NODE in its
//       environment, release when CMD exits, exit with CMD's status.
//       --timeout MS: give up after MS ms waiting (exit 10).
//   elect PATH --id NAME [-- CMD [ARGS...]]
//       Join the election at PATH (zk::recipes::LeaderElection, Curator's
//       LeaderLatch layout) as NAME; when leader, print
//       "leader NAME NODE TOKEN" (or a JSON object) on stdout. Without CMD,
//       stay leader until SIGINT/SIGTERM (step down, exit 0); with CMD, run
//       it as leader (ZK_FENCING_TOKEN, ZK_LEADER_ID, ZK_LOCK_NODE) and exit
//       with its status.
// Signals, loss and exit codes: lock_supervisor.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "libzk/client/sync_client.h"
#include "zkctl/command_parser.h"
#include "zkctl/exit_code.h"
#include "zkctl/printer.h"

namespace zkctl {

struct LockVerb {
  std::string path;
  std::optional<int64_t> timeout_ms;
  std::vector<std::string> command;  // non-empty
};

struct ElectVerb {
  std::string path;
  std::string id;
  std::vector<std::string> command;  // may be empty
};

using LockVerbCommand = std::variant<LockVerb, ElectVerb>;

// True when `words` starts with "lock" or "elect".
bool is_lock_verb(const std::vector<std::string>& words);

// Parses `words` (the verb first). Never throws.
std::variant<LockVerbCommand, UsageError> parse_lock_verb(const std::vector<std::string>& words);

// Runs the verb on the connected `zk`; returns zkctl's exit code.
int run_lock_verb(const LockVerbCommand& verb, zk::client::SyncClient& zk, Printer& printer);

// The verbs' lines for `zkctl --help`.
std::string lock_verbs_help_text();

}  // namespace zkctl
