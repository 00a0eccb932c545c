// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>

namespace zk::client {
namespace {

namespace ssl = boost::asio::ssl;

std::string openssl_errors() {
  std::string out;
  while (unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    if (!out.empty()) out += "; ";
    out += text;
  }
  return out.empty() ? "no reason given" : out;
}

}  // namespace

std::variant<std::shared_ptr<ssl::context>, std::string> make_tls_context(
    const TlsOptions& options) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX* ctx = context->native_handle();
  ERR_clear_error();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (options.ca_file.empty()) {
    SSL_CTX_set_default_verify_paths(ctx);
  } else if (SSL_CTX_load_verify_locations(ctx, options.ca_file.c_str(), nullptr) != 1) {
    return "cannot read the CA certificates in " + options.ca_file + ": " + openssl_errors();
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  if (!options.cert_file.empty()) {
    context->set_password_callback(
        [password = options.key_password](size_t, ssl::context::password_purpose) {
          return password;
        });
    if (SSL_CTX_use_certificate_chain_file(ctx, options.cert_file.c_str()) != 1) {
      return "cannot read a certificate from " + options.cert_file + ": " + openssl_errors();
    }
    const std::string& key = options.key_file.empty() ? options.cert_file : options.key_file;
    if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1) {
      return "cannot read the private key in " + key + ": " + openssl_errors();
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
      return "the private key in " + key + " does not match the certificate in " +
             options.cert_file;
    }
  }
  return context;
}

}  // namespace zk::client
