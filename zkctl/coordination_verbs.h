// SPDX-License-Identifier: Apache-2.0
// zkctl's coordination verbs: counter, barrier, members, queue, settings, each
// a zk::recipes recipe. One-shot only (like lock and elect, they may block or
// own the session): not available in scripts or the interactive shell.
//
//   barrier enter PATH -n N [--id NAME] [--timeout MS]
//   barrier leave PATH [-n N] [--id NAME] [--timeout MS]
//       The double barrier (zk::recipes::DoubleBarrier, Curator's
//       DistributedDoubleBarrier layout). enter joins as PATH/NAME and blocks
//       until N members have joined; leave deletes PATH/NAME and blocks until
//       every member has left. enter and leave run in different processes, so
//       the member node is persistent and found again by NAME: by default
//       "<hostname>-<parent pid>", the same for the enter and the leave of one
//       shell script. leave ignores -n.
//   counter incr PATH [--by K]     add K (default 1), print the new value
//   counter get PATH               print the value (0 when missing)
//       zk::recipes counter: 8-byte (or Curator SharedCount's 4-byte)
//       big-endian value; each incr is applied exactly once.
//   members PATH [--join NAME [--data DATA]] [--watch]
//       Print the group's members, one name per line (--json: with data).
//       --join: join as NAME (ephemeral) and stay until SIGINT/SIGTERM.
//       --watch: print the list again after every change (blank line between
//       lists in human mode) until SIGINT/SIGTERM.
//   queue put PATH DATA            append DATA (@FILE reads FILE), print the node
//   queue take PATH [--timeout MS] take the head item (waiting while empty), print it
//   settings apply PATH FILE       FILE: key=value lines ('#' comments, blank lines
//                                  ignored); the paper's ready-znode update
//   settings wait PATH [--timeout MS]
//                                  wait for a complete configuration, print
//                                  key=value lines
// Waits without --timeout are unbounded; running out exits 10 (TIMEOUT).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "libzk/client/sync_client.h"
#include "zkctl/command.h"
#include "zkctl/command_parser.h"
#include "zkctl/printer.h"

namespace zkctl {

struct CoordinationVerb {
  enum class Kind {
    kBarrierEnter,
    kBarrierLeave,
    kCounterIncr,
    kCounterGet,
    kMembers,
    kQueuePut,
    kQueueTake,
    kConfigApply,
    kConfigWait,
  };
  Kind kind = Kind::kCounterGet;
  std::string path;
  int members = 0;                            // barrier enter: N
  std::string id;                             // barrier member name; members --join NAME
  int64_t by = 1;                             // counter incr
  bool watch = false;                         // members --watch
  DataArgument data;                          // members --data, queue put DATA
  std::map<std::string, std::string> config;  // config apply: FILE's keys
  std::optional<int64_t> timeout_ms;
};

// True when `words` starts with one of the verbs above.
bool is_coordination_verb(const std::vector<std::string>& words);

// Parses `words` (the verb first); settings apply reads FILE here. Never throws.
std::variant<CoordinationVerb, UsageError> parse_coordination_verb(
    const std::vector<std::string>& words);

// Runs the verb on the connected `zk`; returns zkctl's exit code.
int run_coordination_verb(const CoordinationVerb& verb, zk::client::SyncClient& zk,
                          Printer& printer);

// The verbs' lines for `zkctl --help`.
std::string coordination_verbs_help_text();

}  // namespace zkctl
