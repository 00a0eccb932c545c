// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_tls.h"

#include <chrono>

#include "libzk/client/tls.h"
#include "zklab/process/certificates.h"

namespace zk::lab {

namespace {

constexpr std::chrono::seconds kValid = std::chrono::hours(24 * 365);

std::filesystem::path tls_dir(const std::filesystem::path& dir) {
  return std::filesystem::absolute(dir) / "tls";
}

std::filesystem::path node_pem(const std::filesystem::path& dir, int id) {
  return tls_dir(dir) / ("node" + std::to_string(id) + ".pem");
}

}  // namespace

std::string write_lab_tls(const std::filesystem::path& dir, int nodes) {
  const auto out = tls_dir(dir);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return "cannot create " + out.string() + ": " + ec.message();
  const Identity ca("zklab CA", "", kValid);
  bool ok = ca.write_pem(out / "ca.pem", false) && ca.write_pem(out / "ca-key.pem");
  for (int id = 1; ok && id <= nodes; ++id) {
    ok = ca.issue("node" + std::to_string(id), "127.0.0.1", kValid).write_pem(node_pem(dir, id));
  }
  ok = ok && ca.issue("zklab", "", kValid).write_pem(out / "client.pem");
  return ok ? std::string() : "cannot write the lab's certificates in " + out.string();
}

std::string lab_tls_config(const std::filesystem::path& dir, int id, uint16_t client_port) {
  const std::string key_store = node_pem(dir, id).string();
  const std::string trust_store = (tls_dir(dir) / "ca.pem").string();
  return "secureClientPort=" + std::to_string(client_port) +
         "\n"
         "secureClientPortAddress=127.0.0.1\n"
         "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n"
         "ssl.keyStore.location=" +
         key_store + "\nssl.trustStore.location=" + trust_store +
         "\n"
         "ssl.clientAuth=need\n"
         "authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider\n"
         "sslQuorum=true\n"
         "ssl.quorum.keyStore.location=" +
         key_store + "\nssl.quorum.trustStore.location=" + trust_store + "\n";
}

std::variant<std::shared_ptr<boost::asio::ssl::context>, std::string> lab_client_tls(
    const std::filesystem::path& dir) {
  zk::client::TlsOptions options;
  options.ca_file = (tls_dir(dir) / "ca.pem").string();
  options.cert_file = (tls_dir(dir) / "client.pem").string();
  return zk::client::make_tls_context(options);
}

}  // namespace zk::lab
