// SPDX-License-Identifier: Apache-2.0
// The probes' endpoints on the admin server (docs/probes.md), Kubernetes
// style, beside admin.commandURL and, like ruok, without admin auth:
//
//   GET /livez   200 "ok": the server's state thread answers. The handler
//                runs on that thread (http_server.h), so a hung state thread
//                times the probe out instead of answering it.
//   GET /readyz  200 "ok" while the server serves clients: standalone (the
//                admin server starts once the client port is open), or an
//                ensemble replica synced with a leader in a quorum
//                (ServerView::serving()) whose tree has not diverged from
//                its leader's. Read-only mode is not ready. Otherwise 503
//                with one line saying why, e.g. "no quorum (looking)".
//
// Both answer text/plain bodies ending in a newline; HEAD is answered as GET
// (http_server.h); POST is refused with 405 as on any other path. The four-
// letter word ruok is unchanged: it answers imok whenever the process does,
// in a quorum or not, as Apache's does.
#pragma once

#include <string_view>

#include "zkd/admin/http_server.h"
#include "zkd/view/server_view.h"

namespace zkd::admin {

inline constexpr std::string_view kLivenessPath = "/livez";
inline constexpr std::string_view kReadinessPath = "/readyz";

// The answer to GET /livez.
HttpResponse liveness();
// The answer to GET /readyz, read from `view` now.
HttpResponse readiness(const ServerView& view);

}  // namespace zkd::admin
