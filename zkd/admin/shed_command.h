// SPDX-License-Identifier: Apache-2.0
// Apache 3.10's shed_connections admin command (alias shed), over a
// ConnectionShedder (zkd/view/connection_shedder.h):
//
//   POST <commandURL>/shed_connections, body {"percentage": N}, N in 0..100
//
// It closes about N% of the client connections (each with probability
// N/100; all of them at 100) so that their clients move to other servers.
// Answered as Apache's servlet does: the refusals of root_auth.h (serving,
// then ALL on "/"); then 400 with an "error" for a missing body ("Request
// body is required"), a body that is not JSON ("Invalid JSON or failed to
// read request body: ..."), no percentage ("Missing required field:
// percentage") or one outside 0..100 ("Percentage must be between 0 and
// 100"); else 200 with {"connections_shed", "percentage_requested",
// "command", "error": null}. The percentage is read as Jackson's asInt
// reads it (a number truncated, a numeric string parsed, else 0). GET: 405.
#pragma once

#include <optional>
#include <string_view>

#include "zkd/admin/http_server.h"
#include "zkd/view/connection_shedder.h"
#include "zkd/view/root_access.h"
#include "zkd/view/server_view.h"

namespace zkd::admin {

class ShedCommand {
 public:
  ShedCommand(const ServerView& view, const RootAccess& access, ConnectionShedder& shedder)
      : view_(view), access_(access), shedder_(shedder) {}

  // Whether `name` is this command (or its alias).
  static bool handles(std::string_view name);
  // For a POST's header: a refusal, or nullopt to read its body.
  std::optional<HttpResponse> admit(const HttpRequest& head) const;
  HttpResponse run(const HttpRequest& request);

 private:
  const ServerView& view_;
  const RootAccess& access_;
  ConnectionShedder& shedder_;
};

}  // namespace zkd::admin
