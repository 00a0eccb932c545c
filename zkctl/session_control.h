// SPDX-License-Identifier: Apache-2.0
// The shell's hold on its session, as the line interpreter sees it: zkCli's
// `connect HOST` and `close`, and what the interactive prompt shows. The real
// one (ShellSession, shell_session.h) owns a zk::client::SyncClient; tests
// use fakes.
#pragma once

#include <optional>
#include <string>

#include "zkctl/command_result.h"

namespace zkctl {

class SessionControl {
 public:
  virtual ~SessionControl() = default;
  // Ends the current session, if any, and connects to `server` (a connect
  // string); the failure when no server answers (the shell then has none).
  virtual std::optional<CommandFailure> connect(const std::string& server) = 0;
  // Ends the current session (closeSession: its ephemerals go at once).
  virtual void close() = 0;
  // The connect string last given, for the prompt.
  virtual std::string server() const = 0;
  // "CONNECTED 0x1000002a0b40000", "DISCONNECTED", "CLOSED", ...: the state
  // and, while one is open, the session id.
  virtual std::string state_text() const = 0;
};

}  // namespace zkctl
