// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/events.h"

namespace zk::client {

std::string_view session_state_name(SessionState s) {
  switch (s) {
    case SessionState::kConnected:
      return "Connected";
    case SessionState::kDisconnected:
      return "Disconnected";
    case SessionState::kExpired:
      return "Expired";
    case SessionState::kClosed:
      return "Closed";
    case SessionState::kAuthFailed:
      return "AuthFailed";
  }
  return "Unknown";
}

}  // namespace zk::client
