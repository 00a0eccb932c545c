// SPDX-License-Identifier: Apache-2.0
#include "zkctl/shell_session.h"

#include "zkctl/output_format.h"

namespace zkctl {

namespace {

CommandFailure connect_failure(const std::string& server, std::chrono::milliseconds timeout,
                               zk::wire::Error error, const std::string& auth_failure) {
  CommandFailure f;
  if (error == zk::wire::Error::kAuthFailed) {
    f.exit_code = ExitCode::kNoAuth;
    f.name = "AUTHFAILED";
    f.zk_error = error;
    f.message = "authentication failed at " + server + ": " + auth_failure;
  } else if (error == zk::wire::Error::kBadArguments) {
    f.exit_code = ExitCode::kUsage;
    f.name = "BAD_SERVER";
    f.message = "bad server address '" + server + "'";
  } else if (error == zk::wire::Error::kSessionExpired) {
    f.exit_code = ExitCode::kSessionExpired;
    f.name = "SESSIONEXPIRED";
    f.zk_error = error;
    f.message = "session expired while connecting to " + server;
  } else {
    f.exit_code = ExitCode::kConnectionFailed;
    f.name = "CONNECT_FAILED";
    f.message =
        "cannot connect to " + server + " within " + std::to_string(timeout.count()) + " ms";
  }
  return f;
}

}  // namespace

CommandFailure not_connected_failure() {
  CommandFailure f;
  f.exit_code = ExitCode::kConnectionFailed;
  f.name = "NOT_CONNECTED";
  f.message = "no session: use 'connect HOST:PORT'";
  return f;
}

ShellSession::ShellSession(zk::client::ClientOptions options,
                           std::chrono::milliseconds session_timeout,
                           std::chrono::milliseconds connect_timeout)
    : options_(std::move(options)),
      session_timeout_(session_timeout),
      connect_timeout_(connect_timeout) {}

// Close the session so that its ephemeral nodes go at once, not at expiry.
ShellSession::~ShellSession() { close(); }

std::optional<CommandFailure> ShellSession::connect(const std::string& server) {
  close();
  server_ = server;
  auto client = std::make_unique<zk::client::SyncClient>(options_);
  const zk::client::Status connected = client->connect(server, session_timeout_, connect_timeout_);
  if (!connected) {
    return connect_failure(server, connect_timeout_, connected.error(), client->auth_failure());
  }
  client_ = std::move(client);
  return std::nullopt;
}

void ShellSession::close() {
  if (client_) (void)client_->close();
  client_.reset();
}

std::string ShellSession::state_text() const {
  if (!client_) return "CLOSED";
  switch (client_->state()) {
    case zk::client::SessionState::kConnected:
      return "CONNECTED " +
             format_zxid(client_->session_id());  // zkCli's hex, as for ephemeralOwner
    case zk::client::SessionState::kDisconnected:
      return "CONNECTING";
    case zk::client::SessionState::kExpired:
      return "EXPIRED";
    case zk::client::SessionState::kClosed:
      return "CLOSED";
    case zk::client::SessionState::kAuthFailed:
      return "AUTH_FAILED";
  }
  return "CLOSED";
}

}  // namespace zkctl
