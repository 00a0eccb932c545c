// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/quorum_sasl.h"

#include <memory>
#include <optional>
#include <set>
#include <variant>

#include "libzk/client/sasl.h"
#include "zkd/sasl/sasl_server.h"
#include "zkd/sasl/sasl_settings.h"
#include "zkd/server/config_keys.h"

namespace zkd::server {

namespace {

using Outcome = net::PeerAuthStep::Outcome;

// The learner's options for a link to `host`: with GSSAPI, the service and
// instance of `principal` (quorum.auth.kerberos.servicePrincipal), "_HOST"
// standing for `host` as Apache's SecurityUtils.getServerPrincipal has it.
zk::client::SaslOptions options_for(zk::client::SaslOptions options, std::string principal,
                                    const std::string& host) {
  if (options.mechanism != "GSSAPI") return options;
  if (const size_t at = principal.find("_HOST"); at != std::string::npos) {
    principal.replace(at, 5, lower_case(host));
  }
  principal = principal.substr(0, principal.find('@'));  // the realm is the KDC's business
  const size_t slash = principal.find('/');
  options.service = principal.substr(0, slash);
  options.server_name = slash == std::string::npos ? lower_case(host) : principal.substr(slash + 1);
  return options;
}

// The dialer's exchange with the server at `host`.
net::PeerAuthExchange learner_exchange(const zk::client::SaslOptions& options,
                                       const std::string& host) {
  auto started = zk::client::start_sasl(options, host);
  if (auto* why = std::get_if<std::string>(&started)) {
    return [why = *why](std::optional<std::string_view>) {
      return net::PeerAuthStep{Outcome::kFailed, std::nullopt, "", why};
    };
  }
  std::shared_ptr<zk::client::SaslClientExchange> exchange = std::move(std::get<0>(started));
  return [exchange](std::optional<std::string_view> token) {
    const auto step = token ? exchange->step(*token) : exchange->first();
    if (!step.error.empty())
      return net::PeerAuthStep{Outcome::kFailed, std::nullopt, "", step.error};
    return net::PeerAuthStep{step.token ? Outcome::kContinue : Outcome::kComplete, step.token, "",
                             ""};
  };
}

// Why the peer authenticated as `id` may not join; nullopt when it may: a
// Kerberos principal service/host@REALM must name the host of one of the
// server.N lines (Apache's SaslQuorumServerCallbackHandler).
std::optional<std::string> refusal(const std::string& id, const std::set<std::string>& hosts) {
  const size_t slash = id.find('/');
  const size_t at = id.find('@');
  if (slash == std::string::npos || at == std::string::npos || at < slash) return std::nullopt;
  const std::string host = id.substr(slash + 1, at - slash - 1);
  if (hosts.contains(host)) return std::nullopt;
  return id + " is not authorized to join: " + host + " is not the host of a server.N line";
}

// The acceptor's exchange: the server section's users or principals.
net::PeerAuthExchange server_exchange(const sasl::SaslServer& server,
                                      std::shared_ptr<const std::set<std::string>> hosts) {
  std::shared_ptr<sasl::SaslExchange> exchange = server.start();
  return [exchange, hosts](std::optional<std::string_view> token) {
    const auto step = exchange->step(token.value_or(""));
    switch (step.outcome) {
      case sasl::SaslExchange::Step::Outcome::kContinue:
        return net::PeerAuthStep{Outcome::kContinue, step.token, "", ""};
      case sasl::SaslExchange::Step::Outcome::kComplete:
        if (auto why = refusal(step.authenticated_id, *hosts)) {
          return net::PeerAuthStep{Outcome::kFailed, std::nullopt, "", *why};
        }
        return net::PeerAuthStep{Outcome::kComplete, step.token, step.authenticated_id, ""};
      case sasl::SaslExchange::Step::Outcome::kFailed:
        break;
    }
    return net::PeerAuthStep{Outcome::kFailed, std::nullopt, "", step.error};
  };
}

}  // namespace

void set_quorum_sasl(const ServerConfig& config, const Security& security,
                     net::PeerTransportOptions& options) {
  if (!config.quorum_sasl || !security.quorum_sasl_server) return;
  options.sasl_client = [learner = security.quorum_sasl_learner,
                         principal =
                             config.quorum_kerberos_service_principal](const std::string& host) {
    return learner_exchange(options_for(learner, principal, host), host);
  };
  auto hosts = std::make_shared<std::set<std::string>>();
  for (const auto& [id, server] : config.quorum_servers) hosts->insert(server.host);
  options.sasl_server = [server = security.quorum_sasl_server, hosts] {
    return server_exchange(*server, hosts);
  };
  options.sasl_required_by_dialer = config.quorum_sasl_learner_required;
  options.sasl_required_by_acceptor = config.quorum_sasl_server_required;
}

}  // namespace zkd::server
