// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/health.h"

#include <string>
#include <utility>

namespace zkd::admin {

namespace {

HttpResponse plain(unsigned status, std::string line) {
  return HttpResponse{status, "text/plain; charset=utf-8", std::move(line) + "\n", {}};
}

// Why a server that does not serve is not ready, in one line. The mode is
// the one srvr and mntr print (looking, follower, observer, leader).
std::string not_ready_reason(const ServerView& view) {
  if (view.read_only()) return "read-only mode (no quorum)";
  const server::ServerSummary summary = view.summary();
  const bool learner = summary.mode == "follower" || summary.mode == "observer";
  std::string reason = learner ? "not synced with a leader (" : "no quorum (";
  reason += summary.mode;
  reason += ')';
  return reason;
}

}  // namespace

HttpResponse liveness() { return plain(200, "ok"); }

HttpResponse readiness(const ServerView& view) {
  // A diverged learner may still count as serving in its core, but serves
  // no client (ClientService refuses it): check it first.
  if (view.diverged()) return plain(503, "tree diverged from the leader's");
  if (!view.serving()) return plain(503, not_ready_reason(view));
  return plain(200, "ok");
}

}  // namespace zkd::admin
