// SPDX-License-Identifier: Apache-2.0
// How the lock and elect verbs hold a lock (or leadership) for as long as a
// command runs, or until zkctl is signalled: the supervision loop shared by
// both verbs.
//
// While waiting to acquire, SIGINT/SIGTERM/SIGHUP close the session (the
// waiting node goes at once) and end zkctl with 128 + the signal. While
// holding:
//   * the command's exit releases the hold; zkctl exits with the command's
//     status (128 + signal when a signal ended it);
//   * SIGINT/SIGTERM/SIGHUP are forwarded to the command (which decides when
//     to exit); without a command they release the hold and end zkctl with 0;
//   * a loss (lock_hold.h), or a disconnection that lasts longer than the
//     negotiated session timeout (the server has expired the session by
//     then, and someone else may hold the lock), stops the command (SIGTERM,
//     SIGKILL after kStopGrace) and ends zkctl with exit code 8
//     (1 when the node was deleted by someone else) and a message on stderr.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "libzk/client/sync_client.h"
#include "recipes/lock_hold.h"
#include "zkctl/exit_code.h"
#include "zkctl/printer.h"
#include "zkctl/signal_pipe.h"

namespace zkctl {

inline constexpr std::chrono::milliseconds kStopGrace{2000};

// What the verb is about, for messages: "lock" and the lock path.
struct SupervisedVerb {
  std::string command;
  std::string path;
};

// Runs `acquire` on a worker thread, waiting for it or for a signal. On a
// signal the session is closed, the worker joined and `interrupted_by` set.
zk::client::Result<zk::recipes::LockHold> acquire_interruptibly(
    zk::client::SyncClient& zk, SignalPipe& pipe,
    const std::function<zk::client::Result<zk::recipes::LockHold>()>& acquire, int& interrupted_by);

// Runs `argv` with `env` added while `hold` is held; see above. `argv` empty:
// hold until signalled or lost.
int supervise(zk::client::SyncClient& zk, SignalPipe& pipe, zk::recipes::LockHold& hold,
              const std::vector<std::string>& argv,
              const std::vector<std::pair<std::string, std::string>>& env,
              const SupervisedVerb& verb, Printer& printer);

}  // namespace zkctl
