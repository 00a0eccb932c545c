// SPDX-License-Identifier: Apache-2.0
// zkd's HTTP endpoints, as configured in zoo.cfg:
//   - the admin server (Apache's AdminServer; admin.enableServer, default
//     on): GET <admin.commandURL> lists the commands, GET
//     <admin.commandURL>/<name> runs one (admin_commands.h), and, a zkd
//     convenience, GET /metrics answers as the Prometheus endpoint does;
//     other paths get 404;
//   - the Prometheus endpoint (only when metricsProvider.className names
//     Apache's PrometheusMetricsProvider): GET /metrics on
//     metricsProvider.httpHost:metricsProvider.httpPort (prometheus_text.h).
// A port that cannot be bound (in use, bad address) is logged and that
// endpoint stays off: zkd serves its clients regardless. (Apache's
// standalone server exits instead; an ensemble peer logs and continues.)
//
// Threading and lifetime: construct, start() and stop() on the io_context's
// thread; `view` must outlive the endpoints (stop() before destroying it).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <memory>
#include <optional>
#include <string>

#include "zkd/admin/http_server.h"
#include "zkd/server/config.h"
#include "zkd/view/server_view.h"

namespace zkd::admin {

class AdminEndpoints {
 public:
  AdminEndpoints(boost::asio::io_context& io, ServerView& view, const server::ServerConfig& config);
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
  HttpResponse admin_request(std::string_view path,
                             const std::map<std::string, std::string>& query);
  HttpResponse metrics_request(std::string_view path);
  std::shared_ptr<HttpServer> bind(const std::string& name, const std::string& host, uint16_t port,
                                   HttpHandler handler,
                                   std::shared_ptr<net::TlsServer> tls = nullptr,
                                   bool tls_optional = false);

  boost::asio::io_context& io_;
  ServerView& view_;
  const server::ServerConfig& config_;
  std::shared_ptr<HttpServer> admin_;
  std::shared_ptr<HttpServer> metrics_;
};

}  // namespace zkd::admin
