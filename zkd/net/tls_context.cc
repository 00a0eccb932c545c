// SPDX-License-Identifier: Apache-2.0
#include "zkd/net/tls_context.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>
#include <cctype>
#include <fstream>
#include <sstream>

#include "zkd/clock/real_time.h"
#include "zkd/log/log.h"

namespace zkd::net {
namespace {

namespace ssl = boost::asio::ssl;

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::filesystem::file_time_type modified(const std::string& path) {
  std::error_code ec;
  auto time = std::filesystem::last_write_time(path, ec);
  return ec ? std::filesystem::file_time_type{} : time;
}

// Ok when `type` can be read, else why not and what to do. `key` is the
// zoo.cfg key prefix ("ssl.keyStore") for the message.
Status check_readable_type(const TlsStore& store, std::string_view key) {
  const std::string type = store_type(store);
  if (type == "PEM" || type == "PKCS12") return {};
  const std::string where = std::string(key) + ".location " + store.location;
  if (type == "JKS" || type == "BCFKS") {
    return Status::config(
        where + " is a " + type +
        " store, which zkd cannot read: convert it with `keytool -importkeystore -srckeystore " +
        store.location + " -destkeystore " + store.location +
        ".p12 -deststoretype PKCS12` and point " + std::string(key) +
        ".location at the .p12 file (" + std::string(key) + ".type=PKCS12)");
  }
  if (type.empty()) {
    return Status::config("cannot tell the type of " + where + ": name it .pem or .p12, or set " +
                          std::string(key) + ".type (PEM or PKCS12)");
  }
  return Status::config(std::string(key) + ".type " + type +
                        " is not a store type zkd reads (PEM or PKCS12)");
}

struct Pkcs12 {
  EVP_PKEY* key = nullptr;
  X509* certificate = nullptr;
  STACK_OF(X509) * chain = nullptr;
  ~Pkcs12() {
    EVP_PKEY_free(key);
    X509_free(certificate);
    sk_X509_pop_free(chain, X509_free);
  }
};

// Reads a PKCS12 file.
Status read_pkcs12(const TlsStore& store, Pkcs12& out) {
  BIO* bio = BIO_new_file(store.location.c_str(), "rb");
  if (bio == nullptr)
    return Status::config("cannot read " + store.location + ": " + openssl_errors());
  PKCS12* p12 = d2i_PKCS12_bio(bio, nullptr);
  BIO_free(bio);
  if (p12 == nullptr)
    return Status::config(store.location + " is not a PKCS12 file: " + openssl_errors());
  const int ok = PKCS12_parse(p12, store.password.c_str(), &out.key, &out.certificate, &out.chain);
  PKCS12_free(p12);
  if (ok != 1)
    return Status::config("cannot open " + store.location +
                          " (wrong password?): " + openssl_errors());
  return {};
}

Status load_key_store(ssl::context& context, const TlsStore& store) {
  SSL_CTX* ctx = context.native_handle();
  if (store_type(store) == "PKCS12") {
    Pkcs12 p12;
    if (Status read = read_pkcs12(store, p12); !read.ok()) return read;
    if (p12.key == nullptr || p12.certificate == nullptr) {
      return Status::config(store.location + " holds no private key with its certificate");
    }
    if (SSL_CTX_use_cert_and_key(ctx, p12.certificate, p12.key, p12.chain, 1) != 1) {
      return Status::config("cannot use the key and certificate of " + store.location + ": " +
                            openssl_errors());
    }
    return {};
  }
  // PEM: the key, this server's certificate and its chain in one file.
  context.set_password_callback(
      [password = store.password](size_t, ssl::context::password_purpose) { return password; });
  if (SSL_CTX_use_certificate_chain_file(ctx, store.location.c_str()) != 1) {
    return Status::config("cannot read a certificate from " + store.location + ": " +
                          openssl_errors());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, store.location.c_str(), SSL_FILETYPE_PEM) != 1) {
    return Status::config("cannot read the private key in " + store.location +
                          " (an encrypted key needs ssl.keyStore.password): " + openssl_errors());
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return Status::config("the private key in " + store.location +
                          " does not match its certificate");
  }
  return {};
}

Status load_trust_store(SSL_CTX* ctx, const TlsStore& store) {
  if (store.location.empty()) {
    SSL_CTX_set_default_verify_paths(ctx);
    return {};
  }
  if (store_type(store) == "PKCS12") {
    Pkcs12 p12;
    if (Status read = read_pkcs12(store, p12); !read.ok()) return read;
    X509_STORE* trusted = SSL_CTX_get_cert_store(ctx);
    int added = 0;
    if (p12.certificate != nullptr) added += X509_STORE_add_cert(trusted, p12.certificate);
    for (int i = 0; p12.chain != nullptr && i < sk_X509_num(p12.chain); ++i) {
      added += X509_STORE_add_cert(trusted, sk_X509_value(p12.chain, i));
    }
    if (added == 0) return Status::config(store.location + " holds no certificate to trust");
    return {};
  }
  if (SSL_CTX_load_verify_locations(ctx, store.location.c_str(), nullptr) != 1) {
    return Status::config("cannot read the trusted certificates in " + store.location + ": " +
                          openssl_errors());
  }
  return {};
}

Status set_protocols(SSL_CTX* ctx, const std::vector<std::string>& protocols) {
  int lowest = TLS1_2_VERSION;
  int highest = TLS1_3_VERSION;
  if (!protocols.empty()) {
    lowest = TLS1_3_VERSION;
    highest = TLS1_2_VERSION;
    for (const std::string& p : protocols) {
      int version = 0;
      if (p == "TLSv1.2") version = TLS1_2_VERSION;
      if (p == "TLSv1.3") version = TLS1_3_VERSION;
      if (version == 0) {
        return Status::config("ssl.enabledProtocols/ssl.protocol " + p +
                              " is not one zkd offers (TLSv1.2, TLSv1.3)");
      }
      lowest = std::min(lowest, version);
      highest = std::max(highest, version);
    }
  }
  SSL_CTX_set_min_proto_version(ctx, lowest);
  SSL_CTX_set_max_proto_version(ctx, highest);
  return {};
}

// Java's cipher suite names are the IANA ones; OpenSSL knows both. A
// protocol left without a suite is switched off.
Status set_cipher_suites(SSL_CTX* ctx, const std::vector<std::string>& suites) {
  if (suites.empty()) return {};
  SSL_CTX_set_cipher_list(ctx, "ALL");  // to look every TLS 1.2 suite up
  std::string tls12;
  std::string tls13;
  STACK_OF(SSL_CIPHER)* known = SSL_CTX_get_ciphers(ctx);
  for (const std::string& suite : suites) {
    const SSL_CIPHER* found = nullptr;
    for (int i = 0; i < sk_SSL_CIPHER_num(known) && found == nullptr; ++i) {
      const SSL_CIPHER* c = sk_SSL_CIPHER_value(known, i);
      if (suite == SSL_CIPHER_standard_name(c)) found = c;
    }
    if (found == nullptr)
      return Status::config("ssl.ciphersuites: OpenSSL has no cipher suite " + suite);
    std::string& list =
        std::string_view(SSL_CIPHER_get_version(found)) == "TLSv1.3" ? tls13 : tls12;
    if (!list.empty()) list += ':';
    list += SSL_CIPHER_get_name(found);
  }
  if (tls12.empty()) {
    SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  } else if (SSL_CTX_set_cipher_list(ctx, tls12.c_str()) != 1) {
    return Status::config("ssl.ciphersuites: " + openssl_errors());
  }
  if (tls13.empty()) SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
  if (SSL_CTX_set_ciphersuites(ctx, tls13.c_str()) != 1) {
    return Status::config("ssl.ciphersuites: " + openssl_errors());
  }
  return {};
}

enum class Side { kAccepting, kDialing };

StatusOr<std::shared_ptr<ssl::context>> build(const TlsSettings& settings,
                                              Side side = Side::kAccepting) {
  if (Status s = check_readable_type(settings.key_store, "ssl.keyStore"); !s.ok()) return s;
  if (!settings.trust_store.location.empty()) {
    if (Status s = check_readable_type(settings.trust_store, "ssl.trustStore"); !s.ok()) return s;
  }
  auto context = std::make_shared<ssl::context>(
      side == Side::kAccepting ? ssl::context::tls_server : ssl::context::tls_client);
  SSL_CTX* ctx = context->native_handle();
  ERR_clear_error();
  if (Status s = load_key_store(*context, settings.key_store); !s.ok()) {
    return Status::config("ssl.keyStore: " + s.message());
  }
  if (Status s = load_trust_store(ctx, settings.trust_store); !s.ok()) {
    return Status::config("ssl.trustStore: " + s.message());
  }
  if (Status s = set_protocols(ctx, settings.protocols); !s.ok()) return s;
  if (Status s = set_cipher_suites(ctx, settings.cipher_suites); !s.ok()) return s;
  // The dialing end always checks the certificate of the end it reached.
  switch (side == Side::kDialing ? TlsSettings::ClientAuth::kWant : settings.client_auth) {
    case TlsSettings::ClientAuth::kNeed:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
    case TlsSettings::ClientAuth::kWant:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
      break;
    case TlsSettings::ClientAuth::kNone:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
      break;
  }
  enable_revocation_checks(ctx, settings.revocation,
                           settings.clock != nullptr ? *settings.clock : real_clock());
  // Sessions are not resumed across connections: every client proves itself.
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  return context;
}

}  // namespace

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

StatusOr<std::shared_ptr<ssl::context>> make_client_context(const TlsSettings& settings) {
  return build(settings, Side::kDialing);
}

bool certificate_names(X509* certificate, const std::string& host) {
  if (certificate == nullptr) return false;
  boost::system::error_code ec;
  boost::asio::ip::make_address(host, ec);
  if (!ec) return X509_check_ip_asc(certificate, host.c_str(), 0) == 1;
  return X509_check_host(certificate, host.data(), host.size(), 0, nullptr) == 1;
}

std::string store_type(const TlsStore& store) {
  if (!store.type.empty()) return upper(store.type);
  const std::string extension = upper(std::filesystem::path(store.location).extension().string());
  if (extension == ".PEM") return "PEM";
  if (extension == ".P12" || extension == ".PFX") return "PKCS12";
  if (extension == ".JKS") return "JKS";
  if (extension == ".BCFKS") return "BCFKS";
  return {};
}

std::string x509_subject(X509* certificate) {
  if (certificate == nullptr) return {};
  BIO* out = BIO_new(BIO_s_mem());
  X509_NAME_print_ex(out, X509_get_subject_name(certificate), 0, XN_FLAG_RFC2253);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  std::string subject(data, static_cast<size_t>(size));
  BIO_free(out);
  return subject;
}

StatusOr<std::shared_ptr<TlsServer>> TlsServer::open(TlsSettings settings) {
  auto built = build(settings);
  if (!built.ok()) return built.status();
  std::shared_ptr<TlsServer> server(new TlsServer(std::move(settings)));
  server->context_ = *std::move(built);
  server->key_store_time_ = modified(server->settings_.key_store.location);
  server->trust_store_time_ = modified(server->settings_.trust_store.location);
  server->checked_ = std::chrono::microseconds(server->clock().steady_us());
  return server;
}

Clock& TlsServer::clock() const {
  return settings_.clock != nullptr ? *settings_.clock : real_clock();
}

void TlsServer::reload_if_changed() {
  if (!settings_.reload) return;
  const std::chrono::microseconds now(clock().steady_us());
  if (now - checked_ < std::chrono::seconds(1)) return;
  checked_ = now;
  const auto key_time = modified(settings_.key_store.location);
  const auto trust_time = modified(settings_.trust_store.location);
  if (key_time == key_store_time_ && trust_time == trust_store_time_) return;
  key_store_time_ = key_time;
  trust_store_time_ = trust_time;
  auto built = build(settings_);
  if (!built.ok()) {
    log_warn("TLS stores changed but cannot be used (keeping the old ones): ",
             built.status().message());
    return;
  }
  context_ = *std::move(built);
  log_info("TLS key and trust stores reloaded from ", settings_.key_store.location,
           settings_.trust_store.location.empty() ? "" : " and ", settings_.trust_store.location);
}

}  // namespace zkd::net
