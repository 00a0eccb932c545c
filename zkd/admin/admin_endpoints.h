// SPDX-License-Identifier: Apache-2.0
// zkd's HTTP endpoints, as configured in zoo.cfg:
//   - the admin server (Apache's AdminServer; admin.enableServer, default
//     on): GET <admin.commandURL> lists the commands, GET
//     <admin.commandURL>/<name> runs one (admin_commands.h), snapshot and
//     restore (POST) included when a BackupService is given
//     (backup_commands.h), shed_connections (POST) when a ConnectionShedder
//     is (shed_command.h), broadcast (POST, zkd's) when a BroadcastBench
//     is (broadcast_command.h), and, a zkd convenience, GET /metrics answers as
//     the Prometheus endpoint does, and GET /livez and /readyz answer the
//     probes (health.h); other paths get 404;
//   - the Prometheus endpoint (only when metricsProvider.className names
//     Apache's PrometheusMetricsProvider): GET /metrics on
//     metricsProvider.httpHost:metricsProvider.httpPort (prometheus_text.h).
// A port that cannot be bound (in use, bad address) is logged and that
// endpoint stays off: zkd serves its clients regardless. (Apache's
// standalone server exits instead; an ensemble peer logs and continues.)
//
// Threading and lifetime: construct, start() and stop() on the io_context's
// thread; `view` and the services must outlive the endpoints (stop()
// before destroying them).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "zkd/admin/backup_commands.h"
#include "zkd/admin/broadcast_command.h"
#include "zkd/admin/http_server.h"
#include "zkd/admin/shed_command.h"
#include "zkd/net/tls_context.h"
#include "zkd/view/server_view.h"

namespace zkd::admin {

// What zoo.cfg says of the endpoints (the server builds it from its
// ServerConfig: admin.*, metricsProvider.*), with the admin server's TLS
// context when it speaks HTTPS.
struct AdminOptions {
  bool admin_enabled = true;                    // admin.enableServer
  std::string admin_address = "0.0.0.0";        // admin.serverAddress
  uint16_t admin_port = 8080;                   // admin.serverPort
  std::string admin_command_url = "/commands";  // admin.commandURL
  int32_t idle_timeout_ms = 30000;              // admin.idleTimeout
  // admin.forceHttps / admin.portUnification: HTTPS with this context; null:
  // HTTP only. https_only: no plain HTTP beside it.
  std::shared_ptr<net::TlsServer> admin_tls;
  bool https_only = false;
  // metricsProvider.className names Apache's Prometheus provider: /metrics
  // on metricsProvider.httpHost:httpPort.
  bool prometheus = false;
  std::string metrics_host = "0.0.0.0";
  uint16_t metrics_port = 7000;
  // metricsProvider.className as given, for the warning when it names a
  // provider zkd does not know ("" and Apache's default are silent).
  std::string metrics_provider_class;
  BackupOptions backup;
  // The largest restore body taken (a snapshot file).
  uint64_t max_restore_bytes = 4ull << 30;
  // admin.broadcast.enabled (zkd's): the broadcast command runs.
  bool broadcast_enabled = false;
  // Counts a plain-HTTP connection to an admin port that also takes HTTPS
  // (Apache's insecure_admin_count); may be null.
  std::function<void()> insecure_admin = nullptr;
};

// What the authenticated commands work on; each may be null, and without
// `access` there are none of them.
struct AdminServices {
  const RootAccess* access = nullptr;    // ALL on "/" (root_auth.h)
  BackupService* backup = nullptr;       // snapshot and restore
  ConnectionShedder* shedder = nullptr;  // shed_connections
  BroadcastBench* broadcast = nullptr;   // broadcast (zkd's)
};

class AdminEndpoints {
 public:
  AdminEndpoints(boost::asio::io_context& io, ServerView& view, AdminServices services,
                 AdminOptions options);
  ~AdminEndpoints();
  AdminEndpoints(const AdminEndpoints&) = delete;
  AdminEndpoints& operator=(const AdminEndpoints&) = delete;

  // Binds and starts what the configuration enables; failures are logged.
  void start();
  void stop();

  // The bound addresses; nullopt when that endpoint is off.
  std::optional<boost::asio::ip::tcp::endpoint> admin_endpoint() const;
  std::optional<boost::asio::ip::tcp::endpoint> metrics_endpoint() const;

 private:
  void admin_request(const HttpRequest& request, HttpRespond respond);
  // The command a path under admin.commandURL names; nullopt for other paths.
  std::optional<std::string_view> command_name(std::string_view path) const;
  HttpResponse metrics_request(std::string_view path);
  std::shared_ptr<HttpServer> bind(const std::string& name, const std::string& host, uint16_t port,
                                   HttpHandler handler, HttpOptions options);

  boost::asio::io_context& io_;
  ServerView& view_;
  const AdminOptions options_;
  // Whether a POST to `name` may send its body (AdminOptions' admit_post).
  std::optional<HttpResponse> admit_post(const HttpRequest& head);
  // Whether any authenticated POST command exists.
  bool takes_posts() const { return backup_ || shed_ || broadcast_; }

  std::unique_ptr<BackupCommands> backup_;       // null without a BackupService
  std::unique_ptr<ShedCommand> shed_;            // null without a ConnectionShedder
  std::unique_ptr<BroadcastCommand> broadcast_;  // null without a BroadcastBench
  std::shared_ptr<HttpServer> admin_;
  std::shared_ptr<HttpServer> metrics_;
};

}  // namespace zkd::admin
