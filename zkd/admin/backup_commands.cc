// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/backup_commands.h"

#include <boost/json.hpp>
#include <cstdio>
#include <string>
#include <utility>

#include "zkd/admin/root_auth.h"
#include "zkd/log/log.h"

namespace zkd::admin {
namespace {

namespace json = boost::json;

constexpr std::string_view kSnapshot = "snapshot";
constexpr std::string_view kRestore = "restore";

// The primary name of `name`, or "" when it is neither command.
std::string_view primary(std::string_view name) {
  if (name == kSnapshot || name == "snap") return kSnapshot;
  if (name == kRestore || name == "rest") return kRestore;
  return {};
}

// "0x" and the zxid's 16 hex digits, as Apache's ZxidUtils.zxidToString.
std::string zxid_header(int64_t zxid) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(zxid));
  return text;
}

}  // namespace

bool BackupCommands::RateLimiter::allow(int64_t now_ms) {
  if (now_ms > last_refill_ms + interval_ms) {
    available = true;
    last_refill_ms = now_ms;
  }
  const bool allowed = available;
  available = false;
  return allowed;
}

BackupCommands::BackupCommands(ServerView& view, const RootAccess& access, BackupService& backup,
                               BackupOptions options)
    : view_(view),
      access_(access),
      backup_(backup),
      options_(std::move(options)),
      // Apache builds the snapshot limiter with MICROSECONDS, the restore
      // one with MILLISECONDS, from the same figure.
      snapshots_{options_.rate_limiter_interval / 1000, options_.steady_ms()},
      restores_{options_.rate_limiter_interval, options_.steady_ms()} {}

bool BackupCommands::handles(std::string_view name) { return !primary(name).empty(); }

std::optional<HttpResponse> BackupCommands::refuse(std::string_view command,
                                                   const HttpRequest& request) const {
  return refuse_unless_root_all(view_, access_, command, request);
}

std::optional<HttpResponse> BackupCommands::admit(std::string_view name, const HttpRequest& head) {
  const std::string_view command = primary(name);
  if (command != kRestore) {
    HttpResponse refused{405, "text/plain; charset=utf-8", "Method Not Allowed\n", {}};
    return refused;
  }
  return refuse(command, head);
}

void BackupCommands::run(std::string_view name, const HttpRequest& request, HttpRespond respond) {
  const std::string_view command = primary(name);
  const bool post = request.method == HttpRequest::Method::kPost;
  if ((command == kRestore) != post) {
    respond(HttpResponse{405, "text/plain; charset=utf-8", "Method Not Allowed\n", {}});
    return;
  }
  if (auto refused = refuse(command, request)) {
    respond(*std::move(refused));
    return;
  }
  if (command == kSnapshot) {
    snapshot(request, std::move(respond));
  } else {
    restore(request, std::move(respond));
  }
}

void BackupCommands::snapshot(const HttpRequest& request, HttpRespond respond) {
  if (!options_.snapshot_enabled) {
    net::log_warn("admin server: the snapshot command is disabled (admin.snapshot.enabled)");
    respond(command_failure(503, kSnapshot, "Snapshot command is disabled"));
    return;
  }
  if (!snapshots_.allow(options_.steady_ms())) {
    net::log_warn("admin server: snapshot request rate-limited (admin.rateLimiterIntervalInMS)");
    respond(command_failure(429, kSnapshot, "Snapshot request was rate limited"));
    return;
  }
  bool streaming = true;
  if (auto it = request.query.find("streaming"); it != request.query.end()) {
    streaming = it->second == "true" || it->second == "TRUE" || it->second == "True";
  }
  BackupService::Snapshot taken = backup_.snapshot();
  if (!taken.error.empty()) {
    net::log_warn("admin server: snapshot failed: ", taken.error);
    respond(command_failure(500, kSnapshot, taken.error));
    return;
  }
  net::log_info("admin server: snapshot at ", zxid_header(taken.zxid), " (", taken.bytes.size(),
                " bytes) for ", request.peer.to_string());
  HttpResponse response = command_response(200, {}, kSnapshot, std::nullopt);
  response.headers = {{"last_zxid", zxid_header(taken.zxid)},
                      {"snapshot_size", std::to_string(taken.bytes.size())}};
  if (streaming) {
    response.content_type = "application/octet-stream";
    response.body = std::move(taken.bytes);
  }
  respond(std::move(response));
}

void BackupCommands::restore(const HttpRequest& request, HttpRespond respond) {
  if (!options_.restore_enabled) {
    net::log_warn("admin server: the restore command is disabled (admin.restore.enabled)");
    respond(command_failure(503, kRestore, "Restore command is disabled"));
    return;
  }
  if (request.body.empty()) {
    respond(command_failure(400, kRestore, "the request carries no snapshot"));
    return;
  }
  if (restoring_ || !restores_.allow(options_.steady_ms())) {
    net::log_warn("admin server: restore request rate-limited (admin.rateLimiterIntervalInMS)");
    respond(command_failure(429, kRestore, "Restore request was rate limited"));
    return;
  }
  restoring_ = true;
  net::log_info("admin server: restoring ", request.body.size(), " bytes from ",
                request.peer.to_string());
  backup_.restore(request.body, [this, respond](BackupService::Restored restored) {
    restoring_ = false;
    if (!restored.error.empty()) {
      net::log_warn("admin server: restore failed: ", restored.error);
      respond(command_failure(500, kRestore, restored.error));
      return;
    }
    respond(
        command_response(200, json::object{{"last_zxid", restored.zxid}}, kRestore, std::nullopt));
  });
}

}  // namespace zkd::admin
