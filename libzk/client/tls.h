// SPDX-License-Identifier: Apache-2.0
// TLS for zk::client, as Apache's Java client does it with
// zookeeper.client.secure=true and the zookeeper.ssl.* properties: the
// server's certificate is checked against the CAs given (or the system's),
// and, with verify_host, must name the host the client dialed (its IP
// subject alternative name for an address, as Java checks); a client
// certificate is presented when one is given (servers with
// ssl.clientAuth=need ask for it, and its subject becomes the session's
// x509 id). Put the context in ClientOptions::tls_context.
#pragma once

#include <memory>
#include <string>
#include <variant>

namespace boost::asio::ssl {
class context;
}

namespace zk::client {

struct TlsOptions {
  std::string ca_file;       // PEM CA certificates; "" = the system's (/etc/ssl/certs)
  std::string cert_file;     // PEM client certificate, with its chain; "" = none
  std::string key_file;      // PEM private key; "" = in cert_file
  std::string key_password;  // for an encrypted key
};

// The context for ClientOptions::tls_context, or a message naming the file
// that could not be used and why.
std::variant<std::shared_ptr<boost::asio::ssl::context>, std::string> make_tls_context(
    const TlsOptions& options);

}  // namespace zk::client
