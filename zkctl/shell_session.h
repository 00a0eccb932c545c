// SPDX-License-Identifier: Apache-2.0
// ShellSession: the one session a zkctl run works on. Connected at start
// (a one-shot command or a script fails when it cannot be), replaced by
// `connect`, ended by `close` and at exit; the interactive shell may hold
// none (started with no server answering, or after `close`).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "libzk/client/sync_client.h"
#include "zkctl/session_control.h"

namespace zkctl {

class ShellSession : public SessionControl {
 public:
  // `options` are used for every connect.
  ShellSession(zk::client::ClientOptions options, std::chrono::milliseconds session_timeout,
               std::chrono::milliseconds connect_timeout);
  ~ShellSession() override;

  std::optional<CommandFailure> connect(const std::string& server) override;
  void close() override;
  std::string server() const override { return server_; }
  std::string state_text() const override;

  // The open session's client; nullptr when there is none.
  zk::client::SyncClient* client() { return client_.get(); }

 private:
  zk::client::ClientOptions options_;
  std::chrono::milliseconds session_timeout_;
  std::chrono::milliseconds connect_timeout_;
  std::string server_;
  std::unique_ptr<zk::client::SyncClient> client_;
};

// The failure a session of no server gives: NOT_CONNECTED (exit code 4).
CommandFailure not_connected_failure();

}  // namespace zkctl
