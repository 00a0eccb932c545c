// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/admin_endpoints.h"

#include <boost/asio/ip/address.hpp>
#include <utility>

#include "zkd/admin/admin_commands.h"
#include "zkd/admin/health.h"
#include "zkd/admin/prometheus_text.h"
#include "zkd/log/log.h"

namespace zkd::admin {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

HttpResponse not_found(std::string_view path) {
  return HttpResponse{
      404, "text/plain; charset=utf-8", "Not Found: " + std::string(path) + "\n", {}};
}

}  // namespace

AdminEndpoints::AdminEndpoints(asio::io_context& io, ServerView& view, AdminServices services,
                               AdminOptions options)
    : io_(io), view_(view), options_(std::move(options)) {
  if (services.access != nullptr && services.backup != nullptr) {
    backup_ = std::make_unique<BackupCommands>(view_, *services.access, *services.backup,
                                               options_.backup);
  }
  if (services.access != nullptr && services.shedder != nullptr) {
    shed_ = std::make_unique<ShedCommand>(view_, *services.access, *services.shedder);
  }
  if (services.access != nullptr && services.broadcast != nullptr) {
    broadcast_ = std::make_unique<BroadcastCommand>(view_, *services.access, *services.broadcast,
                                                    options_.broadcast_enabled);
  }
}

std::optional<HttpResponse> AdminEndpoints::admit_post(const HttpRequest& head) {
  auto name = command_name(head.path);
  if (name && backup_ && BackupCommands::handles(*name)) return backup_->admit(*name, head);
  if (name && shed_ && ShedCommand::handles(*name)) return shed_->admit(head);
  if (name && broadcast_ && BroadcastCommand::handles(*name)) return broadcast_->admit(head);
  return HttpResponse{405, "text/plain; charset=utf-8", "Method Not Allowed\n", {}};
}

AdminEndpoints::~AdminEndpoints() { stop(); }

std::shared_ptr<HttpServer> AdminEndpoints::bind(const std::string& name, const std::string& host,
                                                 uint16_t port, HttpHandler handler,
                                                 HttpOptions options) {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (ec) {
    net::log_warn("not starting the ", name, ": '", host, "' is not an IP address");
    return nullptr;
  }
  options.idle_timeout = std::chrono::milliseconds(options_.idle_timeout_ms);
  auto server = std::make_shared<HttpServer>(io_, name, std::move(handler), options);
  if (auto listen_ec = server->listen(tcp::endpoint(address, port))) {
    net::log_warn("not starting the ", name, " on ", host, ":", port, ": ", listen_ec.message(),
                  " (zkd serves clients without it)");
    return nullptr;
  }
  server->start();
  net::log_info(name, " on ", server->local_endpoint(),
                !options.tls           ? ""
                : options.tls_optional ? " (HTTP and HTTPS)"
                                       : " (HTTPS only)");
  return server;
}

void AdminEndpoints::start() {
  if (options_.admin_enabled) {
    HttpOptions options;
    options.tls = options_.admin_tls;
    options.tls_optional = !options_.https_only;
    options.on_plaintext = options_.insecure_admin;
    if (takes_posts()) {
      options.admit_post = [this](const HttpRequest& head) { return admit_post(head); };
      options.max_post_body_bytes = options_.max_restore_bytes;
    }
    admin_ = bind(
        "admin server", options_.admin_address, options_.admin_port,
        [this](const HttpRequest& request, HttpRespond respond) {
          admin_request(request, std::move(respond));
        },
        std::move(options));
  }
  if (options_.prometheus) {
    metrics_ = bind(
        "metrics server", options_.metrics_host, options_.metrics_port,
        [this](const HttpRequest& request, HttpRespond respond) {
          respond(metrics_request(request.path));
        },
        HttpOptions{});
  } else if (!options_.metrics_provider_class.empty() &&
             options_.metrics_provider_class !=
                 "org.apache.zookeeper.metrics.impl.DefaultMetricsProvider") {
    net::log_warn("metricsProvider.className=", options_.metrics_provider_class,
                  " is not a provider zkd knows; no metrics endpoint");
  }
}

void AdminEndpoints::stop() {
  if (admin_) admin_->stop();
  if (metrics_) metrics_->stop();
  admin_.reset();
  metrics_.reset();
}

std::optional<tcp::endpoint> AdminEndpoints::admin_endpoint() const {
  if (!admin_) return std::nullopt;
  return admin_->local_endpoint();
}

std::optional<tcp::endpoint> AdminEndpoints::metrics_endpoint() const {
  if (!metrics_) return std::nullopt;
  return metrics_->local_endpoint();
}

std::optional<std::string_view> AdminEndpoints::command_name(std::string_view path) const {
  const std::string& url = options_.admin_command_url;
  if (path.size() <= url.size() + 1 || !path.starts_with(url) || path[url.size()] != '/') {
    return std::nullopt;
  }
  return path.substr(url.size() + 1);
}

void AdminEndpoints::admin_request(const HttpRequest& request, HttpRespond respond) {
  const std::string& url = options_.admin_command_url;
  const std::string_view path = request.path;
  if (path == kLivenessPath) {
    respond(liveness());
  } else if (path == kReadinessPath) {
    respond(readiness(view_));
  } else if (path == url || path == url + "/") {
    respond(HttpResponse{200,
                         "text/html; charset=utf-8",
                         command_links(url, backup_ != nullptr, shed_ != nullptr),
                         {}});
  } else if (auto name = command_name(path)) {
    if (backup_ && BackupCommands::handles(*name)) {
      backup_->run(*name, request, std::move(respond));
    } else if (shed_ && ShedCommand::handles(*name)) {
      respond(shed_->run(request));
    } else if (broadcast_ && BroadcastCommand::handles(*name)) {
      broadcast_->run(request, std::move(respond));
    } else if (request.method == HttpRequest::Method::kPost) {
      respond(HttpResponse{405, "text/plain; charset=utf-8", "Method Not Allowed\n", {}});
    } else {
      respond(HttpResponse{200, "application/json", run_command(view_, *name, request.query), {}});
    }
  } else if (path == "/metrics") {
    respond(metrics_request(path));
  } else {
    respond(not_found(path));
  }
}

HttpResponse AdminEndpoints::metrics_request(std::string_view path) {
  if (path != "/metrics") return not_found(path);
  return HttpResponse{200, kPrometheusContentType, prometheus_text(view_.monitor()), {}};
}

}  // namespace zkd::admin
