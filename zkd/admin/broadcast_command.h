// SPDX-License-Identifier: Apache-2.0
// zkd's broadcast admin command, the ZooKeeper paper's Figure 7 (the atomic
// broadcast measured alone) over a BroadcastBench (zkd/view/broadcast_bench.h):
//
//   POST <commandURL>/broadcast, body
//     {"session": S, "path": P, "count": N, "bytes": B, "in_flight": K}
//
// S: an open session (a number, or a "0x..." string as zkctl prints it); P:
// an existing znode the txns set; 1 <= N <= 100,000,000; 0 <= B <= 1 MiB;
// 1 <= K <= 100,000. zkd only: Apache has no such command (its Figure 7 was
// measured with code inside the server), so it is off unless zoo.cfg says
// admin.broadcast.enabled=true.
//
// Checked in this order: the refusals of root_auth.h (serving, then ALL on
// "/"); off: 503; a body that is no JSON object or a field missing or out of
// range: 400; then the run, answered once it ends: 200 with {"count",
// "bytes", "in_flight", "elapsed_ms", "txns_per_second", "last_zxid",
// "command", "error": null}, or 500 with the run's error. GET:
// 405.
#pragma once

#include <optional>
#include <string_view>

#include "zkd/admin/http_server.h"
#include "zkd/view/broadcast_bench.h"
#include "zkd/view/root_access.h"
#include "zkd/view/server_view.h"

namespace zkd::admin {

class BroadcastCommand {
 public:
  BroadcastCommand(const ServerView& view, const RootAccess& access, BroadcastBench& bench,
                   bool enabled)
      : view_(view), access_(access), bench_(bench), enabled_(enabled) {}

  // Whether `name` is this command.
  static bool handles(std::string_view name);
  // For a POST's header: a refusal, or nullopt to read its body.
  std::optional<HttpResponse> admit(const HttpRequest& head) const;
  void run(const HttpRequest& request, HttpRespond respond);

 private:
  const ServerView& view_;
  const RootAccess& access_;
  BroadcastBench& bench_;
  const bool enabled_;
};

}  // namespace zkd::admin
