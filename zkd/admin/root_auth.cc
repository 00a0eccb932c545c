// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/root_auth.h"

#include <utility>

#include "zkd/admin/jackson_json.h"

namespace zkd::admin {

HttpResponse command_response(unsigned status, boost::json::object fields, std::string_view command,
                              std::optional<std::string> error) {
  fields["command"] = command;
  if (error) {
    fields["error"] = *error;
  } else {
    fields["error"] = nullptr;
  }
  return HttpResponse{status, "application/json", jackson_pretty(fields), {}};
}

HttpResponse command_failure(unsigned status, std::string_view command, std::string error) {
  return command_response(status, {}, command, std::move(error));
}

std::optional<HttpResponse> refuse_unless_root_all(const ServerView& view, const RootAccess& access,
                                                   std::string_view command,
                                                   const HttpRequest& request) {
  if (!view.serving()) {
    return command_failure(200, command,
                           "This ZooKeeper instance is not currently serving requests");
  }
  if (request.authorization.empty()) {
    return command_failure(401, command, "Auth info is missing for the command");
  }
  AdminCaller caller;
  const std::string& header = request.authorization;
  const size_t space = header.find(' ');
  caller.scheme = header.substr(0, space);
  if (space != std::string::npos) caller.auth = header.substr(space + 1);
  // Apache splits on every space and takes one or two parts.
  if (caller.auth.find(' ') != std::string::npos) {
    return command_failure(401, command, "Not authenticated");
  }
  caller.peer_ip = request.peer.to_string();
  caller.x509_subject = request.x509_subject;
  switch (access.check_root_all(caller)) {
    case AdminAccess::kGranted:
      return std::nullopt;
    case AdminAccess::kNotAuthenticated:
      return command_failure(401, command, "Not authenticated");
    case AdminAccess::kNotAuthorized:
      return command_failure(403, command, "Not authorized");
  }
  return command_failure(500, command, "Error occurred during auth");
}

}  // namespace zkd::admin
