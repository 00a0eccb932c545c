// SPDX-License-Identifier: Apache-2.0
#include "zkctl/command_result.h"

namespace zkctl {

namespace {
std::string friendly_message(zk::wire::Error e) {
  using zk::wire::Error;
  switch (e) {
    case Error::kNoNode:
      return "node does not exist";
    case Error::kNodeExists:
      return "node already exists";
    case Error::kBadVersion:
      return "version does not match";
    case Error::kNotEmpty:
      return "node has children";
    case Error::kNoChildrenForEphemerals:
      return "ephemeral nodes cannot have children";
    case Error::kBadArguments:
      return "bad arguments (invalid path?)";
    case Error::kConnectionLoss:
      return "connection lost";
    case Error::kSessionExpired:
      return "session expired";
    case Error::kNoAuth:
      return "not authorized";
    case Error::kReplyTooLarge:
      return "the reply is longer than the client's jute.maxbuffer (raise it with "
             "-Djute.maxbuffer=BYTES in CLIENT_JVMFLAGS)";
    default:
      return std::string(zk::wire::error_message(e));
  }
}
}  // namespace

CommandFailure failure_from_zk(zk::wire::Error e, std::string path) {
  CommandFailure f;
  f.exit_code = exit_code_for(e);
  f.zk_error = e;
  f.name = std::string(zk::wire::error_name(e));
  f.path = std::move(path);
  f.message = friendly_message(e);
  return f;
}

}  // namespace zkctl
