// SPDX-License-Identifier: Apache-2.0
// The TLS of a lab started with `zklab up --tls`: a CA of the lab's own and
// identities it issues, kept in <lab>/tls/:
//   ca.pem        the CA's certificate: the trust store of nodes and clients
//   ca-key.pem    the CA's key and certificate (owner only), to issue more
//   node<id>.pem  node <id>'s key and certificate (CN=node<id>, IP SAN
//                 127.0.0.1): its key store towards clients and peers
//   client.pem    the lab's client identity (CN=zklab): zklab's own clients,
//                 and `zkctl --tls-ca ca.pem --tls-cert client.pem`
// Every certificate is valid for a year. A node of such a lab serves clients
// on its secureClientPort only (ssl.clientAuth=need: a client shows a
// certificate of the lab's CA, whose subject becomes its x509 id) and its
// peer links run over TLS (sslQuorum), host names verified.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <variant>

namespace boost::asio::ssl {
class context;
}

namespace zk::lab {

// Writes <dir>/tls/ for a lab of nodes 1..`nodes`. Empty, or why not.
std::string write_lab_tls(const std::filesystem::path& dir, int nodes);

// The zoo.cfg lines (each ending in '\n') that make node `id` of the lab in
// `dir` serve TLS clients on `client_port` and speak TLS to its peers.
std::string lab_tls_config(const std::filesystem::path& dir, int id, uint16_t client_port);

// The client context of the lab in `dir`: its CA trusted, client.pem shown;
// or why it cannot be made.
std::variant<std::shared_ptr<boost::asio::ssl::context>, std::string> lab_client_tls(
    const std::filesystem::path& dir);

}  // namespace zk::lab
