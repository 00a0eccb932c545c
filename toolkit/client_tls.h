// SPDX-License-Identifier: Apache-2.0
// The TLS options every tool takes for its client sessions:
//   --tls-ca FILE       PEM CAs the server's certificate must chain to
//                       (default: the system's)
//   --tls-cert FILE     PEM client certificate (its key in --tls-key, or in
//                       the same file as Apache's PEM key store has it)
//   --tls-key FILE      PEM private key of --tls-cert
//   --tls               TLS with none of the above (system CAs, no client
//                       certificate); any of them implies it
//   --tls-no-verify-host  accept a certificate that does not name the host
// They turn into zk::client's TLS context (libzk/client/tls.h).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <variant>

namespace boost::asio::ssl {
class context;
}

namespace zk::toolkit {

struct ClientTlsFlags {
  bool tls = false;
  std::string ca;
  std::string cert;
  std::string key;
  bool no_verify_host = false;

  bool wanted() const { return tls || !ca.empty() || !cert.empty() || !key.empty(); }
};

// Registers the options above on `command`, in the "TLS" group.
void add_client_tls_options(CLI::App& command, ClientTlsFlags& flags);

// The context the flags ask for, nullptr for plaintext, or why it cannot be
// made (a file that cannot be read, --tls-key without --tls-cert).
std::variant<std::shared_ptr<boost::asio::ssl::context>, std::string> client_tls_context(
    const ClientTlsFlags& flags);

}  // namespace zk::toolkit
