// SPDX-License-Identifier: Apache-2.0
// TLS for zkd's listeners, configured by Apache's ssl.* keys (its X509Util):
// an OpenSSL server context built from a key store (this server's key and
// certificate chain) and a trust store (the CAs whose certificates clients
// may present), with the client-certificate policy, protocol versions and
// cipher suites asked for. Key and trust stores are PEM or PKCS12 files; JKS
// and BCFKS have no C++ reader and are refused with the command that
// converts them.
#pragma once

#include <openssl/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/clock/clock.h"
#include "zkd/net/tls_revocation.h"
#include "zkd/status/status.h"

namespace boost::asio::ssl {
class context;
}

namespace zkd::net {

struct TlsStore {
  std::string location;  // ssl.keyStore.location / ssl.trustStore.location
  std::string password;  // .password, or the content of .passwordPath
  std::string type;      // .type; "" = from the file name (store_type())
};

struct TlsSettings {
  TlsStore key_store;    // required
  TlsStore trust_store;  // "" location: the system's CAs (/etc/ssl/certs)
  // ssl.clientAuth: need (Apache's default) refuses a client without a
  // trusted certificate; want asks for one and checks it if given; none
  // asks for none.
  enum class ClientAuth { kNeed, kWant, kNone } client_auth = ClientAuth::kNeed;
  // ssl.enabledProtocols, else ssl.protocol: "TLSv1.2", "TLSv1.3"; empty:
  // both.
  std::vector<std::string> protocols;
  // ssl.ciphersuites: IANA (Java) names such as
  // TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256; empty: OpenSSL's defaults.
  std::vector<std::string> cipher_suites;
  // client.certReload: reload_if_changed() rebuilds the context.
  bool reload = false;
  // ssl.crl, ssl.ocsp: the peer's certificates checked for revocation.
  RevocationChecks revocation;
  // The clock of the reload check (TlsServer::reload_if_changed) and of the
  // revocation lists' cache (tls_revocation.h); it must outlive every context
  // built from these settings. Null: the real one (zkd/clock/real_time.h).
  Clock* clock = nullptr;
};

// OpenSSL's reasons for this thread's last failures, oldest first, then
// cleared; "no reason given" when there are none.
std::string openssl_errors();

// The store's type as Apache decides it: `type` when set (PEM, PKCS12, JKS,
// BCFKS, any case), else the file name's extension (.pem, .p12 or .pfx,
// .jks, .bcfks); "" when neither says. Returned upper case.
std::string store_type(const TlsStore& store);

// A context for the dialing end of a connection (a peer link): it presents
// the key store's certificate (peers need one) and verifies the accepting
// end's certificate against the trust store. Errors as TlsServer::open's.
StatusOr<std::shared_ptr<boost::asio::ssl::context>> make_client_context(
    const TlsSettings& settings);

// Whether `certificate` names `host`: an IP literal matched against its IP
// subject alternative names, else a DNS name against its DNS names (or
// subject CN), as a TLS client's host name check does.
bool certificate_names(X509* certificate, const std::string& host);

// A certificate's subject as Apache's X509AuthenticationProvider names the
// client: RFC 2253, most specific first ("CN=client,O=zk").
std::string x509_subject(X509* certificate);

// The context a TLS listener hands its connections. Holds the newest good
// context; reload_if_changed() rebuilds it when a store file changed (Apache
// 3.9 reloads certificates the same way), so new connections use the new
// certificate while open ones keep theirs.
class TlsServer {
 public:
  // Reads the stores and builds the context; an error names the key and the
  // file and says what to do.
  static StatusOr<std::shared_ptr<TlsServer>> open(TlsSettings settings);

  std::shared_ptr<boost::asio::ssl::context> context() const { return context_; }
  const TlsSettings& settings() const { return settings_; }

  // With settings().reload, at most once a second of settings().clock: when
  // a store file's modification time changed,
  // builds a new context from the files; a failure is logged and the old
  // context kept.
  void reload_if_changed();

 private:
  explicit TlsServer(TlsSettings settings) : settings_(std::move(settings)) {}
  Clock& clock() const;

  TlsSettings settings_;
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::filesystem::file_time_type key_store_time_;
  std::filesystem::file_time_type trust_store_time_;
  std::chrono::microseconds checked_{0};  // on clock()'s steady clock
};

}  // namespace zkd::net
