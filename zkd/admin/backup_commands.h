// SPDX-License-Identifier: Apache-2.0
// Apache 3.9's snapshot and restore admin commands (SnapshotCommand,
// RestoreCommand; the zookeeperSnapshotAndRestore guide) over a
// BackupService (zkd/view/backup_service.h):
//
//   GET  <commandURL>/snapshot[?streaming=true|false]  (alias snap)
//   POST <commandURL>/restore, the body an Apache snapshot file (alias rest)
//
// Checked in Apache's order, each answered as Apache's servlet does (a JSON
// {"command", "error"} body unless said otherwise):
//   1.-2. the server serves and the caller has ALL on "/" (root_auth.h);
//   3. admin.snapshot.enabled / admin.restore.enabled false: 503;
//   4. the rate limit: one snapshot per admin.rateLimiterIntervalInMS
//      microseconds and one restore per that many milliseconds (Apache's
//      two commands read the same key in different units; default 300000,
//      so 0.3 s and 5 min): 429;
//   5. snapshot: headers last_zxid ("0x" + 16 hex digits) and snapshot_size;
//      with streaming (the default) the file as application/octet-stream,
//      else the JSON body; restore: {"last_zxid": <zxid>, "command",
//      "error"}; a failure of either: 500.
// GET of restore or POST of anything else: 405.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "zkd/admin/http_server.h"
#include "zkd/view/backup_service.h"
#include "zkd/view/root_access.h"
#include "zkd/view/server_view.h"

namespace zkd::admin {

struct BackupOptions {
  bool snapshot_enabled = true;            // admin.snapshot.enabled
  bool restore_enabled = true;             // admin.restore.enabled
  int64_t rate_limiter_interval = 300000;  // admin.rateLimiterIntervalInMS
  std::function<int64_t()> steady_ms;      // the server's clock
};

class BackupCommands {
 public:
  BackupCommands(ServerView& view, const RootAccess& access, BackupService& backup,
                 BackupOptions options);

  // Whether `name` (primary or alias) is one of these commands.
  static bool handles(std::string_view name);
  // For a POST's header: a refusal (steps 1-2, wrong command), or nullopt
  // to read its body.
  std::optional<HttpResponse> admit(std::string_view name, const HttpRequest& head);
  // Runs the command `name` names.
  void run(std::string_view name, const HttpRequest& request, HttpRespond respond);

 private:
  // Steps 1 and 2.
  std::optional<HttpResponse> refuse(std::string_view primary, const HttpRequest& request) const;
  void snapshot(const HttpRequest& request, HttpRespond respond);
  void restore(const HttpRequest& request, HttpRespond respond);
  // Apache's RateLimiter with a rate of 1: one run, then another once the
  // interval has passed since the last refill (the first refill is due an
  // interval after the server started).
  struct RateLimiter {
    int64_t interval_ms;
    int64_t last_refill_ms;
    bool available = true;
    bool allow(int64_t now_ms);
  };

  ServerView& view_;
  const RootAccess& access_;
  BackupService& backup_;
  const BackupOptions options_;
  RateLimiter snapshots_;
  RateLimiter restores_;
  bool restoring_ = false;  // one restore at a time
};

}  // namespace zkd::admin
