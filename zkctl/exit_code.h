// SPDX-License-Identifier: Apache-2.0
// Process exit codes of zkctl, one per outcome a script may want to branch on.
// The numbers are part of the user interface: they are printed in the footer of
// `zkctl --help` (exit_code_help_text) and must never be renumbered.
#pragma once

#include <string>

#include "libzk/wire/protocol.h"

namespace zkctl {

enum class ExitCode : int {
  kOk = 0,
  kError = 1,             // anything not listed below
  kUsage = 2,             // bad arguments; usage goes to stderr
  kNoNode = 3,            // NONODE (also `exists` on a missing node)
  kNodeExists = 4,        // NODEEXISTS
  kBadVersion = 5,        // BADVERSION
  kNotEmpty = 6,          // NOTEMPTY
  kConnectionFailed = 7,  // no server answered, CONNECTIONLOSS, OPERATIONTIMEOUT
  kSessionExpired = 8,    // SESSIONEXPIRED, SESSIONMOVED
  kNoAuth = 9,            // NOAUTH, AUTHFAILED, SESSIONCLOSEDREQUIRESASLAUTH
  kWatchTimeout = 10,     // `watch --timeout-watch` passed without an event; `lock --timeout`
};

inline int to_int(ExitCode c) { return static_cast<int>(c); }

// The exit code a failed ZooKeeper operation maps to; kOk maps to kOk.
ExitCode exit_code_for(zk::wire::Error e);

// Multi-line table "Exit codes:\n  0  ok\n ..." for --help and `help`.
std::string exit_code_help_text();

}  // namespace zkctl
