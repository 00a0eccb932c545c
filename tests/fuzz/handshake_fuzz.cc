// SPDX-License-Identifier: Apache-2.0
// Fuzz target for what a hostile party controls before it is trusted: the
// first byte picks the input.
//   0: the rest is a DER certificate, as a TLS client presents it: zkd names
//      the client by its subject (x509_subject) and checks whom it names
//      (certificate_names); both must cope with any certificate OpenSSL
//      parses.
//   1: the rest is what a client sends first on a TLS port: zkd's TLS server
//      context (tls_context.h) must refuse it or go on, never crash.
//   2: the rest is what a peer sends first on the quorum port: a hello, then
//      auth frames (peer_codec.h), decoded or refused.
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/ssl/context.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "zkd/net/tls_context.h"
#include "zkd/peer/peer_codec.h"
#include "zklab/process/certificates.h"

namespace {

// A TLS server context on a throw-away identity, made once.
SSL_CTX* server_context() {
  static const std::shared_ptr<zkd::net::TlsServer> server = [] {
    const auto dir = std::filesystem::temp_directory_path() / "zk-handshake-fuzz";
    std::filesystem::create_directories(dir);
    const zk::lab::Identity identity("server", "127.0.0.1");
    if (!identity.write_pem(dir / "key.pem") || !identity.write_pem(dir / "ca.pem", false)) {
      std::abort();
    }
    zkd::net::TlsSettings settings;
    settings.key_store.location = (dir / "key.pem").string();
    settings.trust_store.location = (dir / "ca.pem").string();
    settings.client_auth = zkd::net::TlsSettings::ClientAuth::kWant;
    auto opened = zkd::net::TlsServer::open(settings);
    if (!opened.ok()) std::abort();
    return *std::move(opened);
  }();
  return server->context()->native_handle();
}

void certificate(std::string_view der) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(der.data());
  X509* parsed = d2i_X509(nullptr, &bytes, static_cast<long>(der.size()));
  if (parsed == nullptr) return;
  (void)zkd::net::x509_subject(parsed);
  (void)zkd::net::certificate_names(parsed, "127.0.0.1");
  (void)zkd::net::certificate_names(parsed, "zk1.example.com");
  X509_free(parsed);
}

void client_hello(std::string_view bytes) {
  SSL* ssl = SSL_new(server_context());
  BIO* in = BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size()));
  BIO* out = BIO_new(BIO_s_mem());
  SSL_set_bio(ssl, in, out);  // the SSL owns both
  SSL_set_accept_state(ssl);
  (void)SSL_do_handshake(ssl);  // refused, or waiting for more: either is fine
  SSL_free(ssl);
}

void peer_handshake(std::string_view bytes) {
  zkd::zab::ServerId id = 0;
  bool sasl = false;
  if (bytes.size() < zkd::net::kPeerHelloSize) return;
  (void)zkd::net::decode_peer_hello(bytes.substr(0, zkd::net::kPeerHelloSize), id, sasl);
  zkd::net::PeerAuth auth;
  if (zkd::net::decode_peer_auth(bytes.substr(zkd::net::kPeerHelloSize), auth) && auth.token &&
      auth.token->size() > bytes.size()) {
    std::abort();  // a token longer than its input
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      certificate(rest);
      break;
    case 1:
      client_hello(rest);
      break;
    default:
      peer_handshake(rest);
  }
  return 0;
}
