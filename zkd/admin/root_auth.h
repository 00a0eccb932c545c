// SPDX-License-Identifier: Apache-2.0
// The answers Apache's admin servlet gives its authenticated commands
// (snapshot, restore, shed_connections), shared by their implementations:
// a JSON body of the command's fields plus "command" and "error", and the
// refusals before a command runs.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "zkd/admin/http_server.h"
#include "zkd/view/root_access.h"
#include "zkd/view/server_view.h"

namespace zkd::admin {

// `fields` with "command" and "error" (null when `error` is nullopt), as
// Jackson prints them, with HTTP status `status`.
HttpResponse command_response(unsigned status, boost::json::object fields, std::string_view command,
                              std::optional<std::string> error);
// A command's failure: only "command" and "error".
HttpResponse command_failure(unsigned status, std::string_view command, std::string error);

// Apache's order before an authenticated command runs:
//   1. a server that does not serve: 200, "This ZooKeeper instance is not
//      currently serving requests";
//   2. no Authorization header: 401 "Auth info is missing for the command";
//      a scheme without a provider or an id: 401 "Not authenticated"; ids
//      without ALL on "/": 403 "Not authorized".
// nullopt: the command may run.
std::optional<HttpResponse> refuse_unless_root_all(const ServerView& view, const RootAccess& access,
                                                   std::string_view command,
                                                   const HttpRequest& request);

}  // namespace zkd::admin
