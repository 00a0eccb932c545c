// SPDX-License-Identifier: Apache-2.0
#include "zkctl/exit_code.h"

namespace zkctl {

using zk::wire::Error;

ExitCode exit_code_for(Error e) {
  switch (e) {
    case Error::kOk:
      return ExitCode::kOk;
    case Error::kNoNode:
      return ExitCode::kNoNode;
    case Error::kNodeExists:
      return ExitCode::kNodeExists;
    case Error::kBadVersion:
      return ExitCode::kBadVersion;
    case Error::kNotEmpty:
      return ExitCode::kNotEmpty;
    case Error::kConnectionLoss:
    case Error::kOperationTimeout:
    case Error::kRequestTimeout:
    case Error::kClosing:
      return ExitCode::kConnectionFailed;
    case Error::kSessionExpired:
    case Error::kSessionMoved:
      return ExitCode::kSessionExpired;
    case Error::kNoAuth:
    case Error::kAuthFailed:
    case Error::kSessionClosedRequireSaslAuth:
      return ExitCode::kNoAuth;
    default:
      return ExitCode::kError;
  }
}

std::string exit_code_help_text() {
  return "Exit codes:\n"
         "  0   success (`exists`: the node exists)\n"
         "  1   other error\n"
         "  2   usage error (bad command line or script line)\n"
         "  3   no such node (NONODE; `exists`: the node does not exist)\n"
         "  4   node already exists (NODEEXISTS)\n"
         "  5   version mismatch (BADVERSION)\n"
         "  6   node has children (NOTEMPTY)\n"
         "  7   connection failed (cannot connect, CONNECTIONLOSS, OPERATIONTIMEOUT)\n"
         "  8   session expired (SESSIONEXPIRED, SESSIONMOVED)\n"
         "  9   not authorized (NOAUTH, AUTHFAILED, SESSIONCLOSEDREQUIRESASLAUTH)\n"
         "  10  watch: no event before --timeout-watch; lock and the coordination\n"
         "      verbs: their --timeout ran out\n";
}

}  // namespace zkctl
