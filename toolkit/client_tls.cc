// SPDX-License-Identifier: Apache-2.0
#include "toolkit/client_tls.h"

#include "libzk/client/tls.h"

namespace zk::toolkit {

void add_client_tls_options(CLI::App& command, ClientTlsFlags& flags) {
  const std::string group = "TLS";
  command.add_flag("--tls", flags.tls, "connect over TLS (implied by the options below)")
      ->group(group);
  command.add_option("--tls-ca", flags.ca, "PEM CAs the server certificate must chain to")
      ->type_name("FILE")
      ->check(CLI::ExistingFile)
      ->group(group);
  command.add_option("--tls-cert", flags.cert, "PEM client certificate (key in it or --tls-key)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile)
      ->group(group);
  command.add_option("--tls-key", flags.key, "PEM private key of --tls-cert")
      ->type_name("FILE")
      ->check(CLI::ExistingFile)
      ->group(group);
  command
      .add_flag("--tls-no-verify-host", flags.no_verify_host,
                "accept a server certificate that does not name the host dialed")
      ->group(group);
}

std::variant<std::shared_ptr<boost::asio::ssl::context>, std::string> client_tls_context(
    const ClientTlsFlags& flags) {
  if (!flags.wanted()) return std::shared_ptr<boost::asio::ssl::context>();
  if (!flags.key.empty() && flags.cert.empty()) return "--tls-key needs --tls-cert";
  zk::client::TlsOptions options;
  options.ca_file = flags.ca;
  options.cert_file = flags.cert;
  options.key_file = flags.key;
  return zk::client::make_tls_context(options);
}

}  // namespace zk::toolkit
