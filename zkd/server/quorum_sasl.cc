// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/quorum_sasl.h"

#include <memory>
#include <variant>

#include "libzk/client/sasl.h"
#include "zkd/sasl/sasl_server.h"
#include "zkd/sasl/sasl_settings.h"

namespace zkd::server {

namespace {

using Outcome = net::PeerAuthStep::Outcome;

// The dialer's exchange: the learner section's user, by DIGEST-MD5.
net::PeerAuthExchange learner_exchange(const std::string& user, const std::string& password) {
  zk::client::SaslOptions options;
  options.username = user;
  options.password = password;
  options.service = std::string(sasl::kQuorumServiceName);
  options.server_name = std::string(sasl::kQuorumDigestRealm);
  auto started = zk::client::start_sasl(options, "");
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

// The acceptor's exchange: the server section's users.
net::PeerAuthExchange server_exchange(const sasl::SaslServer& server) {
  std::shared_ptr<sasl::SaslExchange> exchange = server.start();
  return [exchange](std::optional<std::string_view> token) {
    const auto step = exchange->step(token.value_or(""));
    switch (step.outcome) {
      case sasl::SaslExchange::Step::Outcome::kContinue:
        return net::PeerAuthStep{Outcome::kContinue, step.token, "", ""};
      case sasl::SaslExchange::Step::Outcome::kComplete:
        return net::PeerAuthStep{Outcome::kComplete, step.token, step.authenticated_id, ""};
      case sasl::SaslExchange::Step::Outcome::kFailed:
        break;
    }
    return net::PeerAuthStep{Outcome::kFailed, std::nullopt, "", step.error};
  };
}

}  // namespace

void set_quorum_sasl(const ServerConfig& config, net::PeerTransportOptions& options) {
  if (!config.quorum_sasl || !config.quorum_sasl_server) return;
  options.sasl_client = [user = config.quorum_sasl_user, password = config.quorum_sasl_password] {
    return learner_exchange(user, password);
  };
  options.sasl_server = [server = config.quorum_sasl_server] { return server_exchange(*server); };
  options.sasl_required_by_dialer = config.quorum_sasl_learner_required;
  options.sasl_required_by_acceptor = config.quorum_sasl_server_required;
}

}  // namespace zkd::server
