// SPDX-License-Identifier: Apache-2.0
#include "zkd/net/tls_revocation.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/http.h>
#include <openssl/ocsp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "zkd/log/log.h"
#include "zkd/net/tls_context.h"

namespace zkd::net {
namespace {

// How long a fetched list (or a failure to fetch it) is used before it is
// fetched again: Java's CRL cache checks its URIs every 30 s.
constexpr std::chrono::seconds kCrlKept{30};
// The largest OCSP answer read.
constexpr size_t kMaxOcspReply = 100 * 1024;

struct CachedCrl {
  X509_CRL* crl = nullptr;            // owned; null: the last fetch failed
  std::chrono::microseconds fetched;  // on the steady clock of the cache's key
};

std::mutex crl_cache_mutex;
// By clock (the times of different clocks do not compare) and URI.
std::map<std::pair<const Clock*, std::string>, CachedCrl> crl_cache;

// The clock enable_revocation_checks() was given, in the X509_STORE's ex data.
int clock_index() {
  static const int index = X509_STORE_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

Clock& clock_of(const X509_STORE_CTX* ctx) {
  return *static_cast<Clock*>(
      X509_STORE_get_ex_data(X509_STORE_CTX_get0_store(ctx), clock_index()));
}

// The list at `uri` (http:// or file://, PEM or DER), or null with the reason
// logged. The caller owns the result.
X509_CRL* fetch_crl(const std::string& uri) {
  X509_CRL* crl = nullptr;
  ERR_clear_error();
  if (uri.starts_with("http://")) {
    crl = X509_CRL_load_http(uri.c_str(), nullptr, nullptr,
                             static_cast<int>(kRevocationFetchTimeout.count()));
  } else if (uri.starts_with("file://")) {
    if (BIO* file = BIO_new_file(uri.substr(7).c_str(), "rb")) {
      crl = PEM_read_bio_X509_CRL(file, nullptr, nullptr, nullptr);
      if (crl == nullptr && BIO_reset(file) == 0) crl = d2i_X509_CRL_bio(file, nullptr);
      BIO_free(file);
    }
  } else {
    log_warn("certificate revocation: cannot fetch ", uri, " (zkd reads http:// and file://)");
    return nullptr;
  }
  if (crl == nullptr) {
    log_warn("certificate revocation: cannot fetch the list at ", uri, ": ", openssl_errors());
  }
  ERR_clear_error();
  return crl;
}

// The list at `uri`, from the cache while it is fresh by `clock`; a new
// reference, or null.
X509_CRL* crl_at(const std::string& uri, Clock& clock) {
  std::lock_guard lock(crl_cache_mutex);
  const std::chrono::microseconds now(clock.steady_us());
  auto [it, added] = crl_cache.try_emplace({&clock, uri});
  if (added || now - it->second.fetched >= kCrlKept) {
    X509_CRL_free(it->second.crl);
    it->second.crl = fetch_crl(uri);
    it->second.fetched = now;
  }
  if (it->second.crl != nullptr) X509_CRL_up_ref(it->second.crl);
  return it->second.crl;
}

// The URIs of `certificate`'s CRL distribution points.
std::vector<std::string> distribution_points(X509* certificate) {
  std::vector<std::string> uris;
  auto* points = static_cast<STACK_OF(DIST_POINT)*>(
      X509_get_ext_d2i(certificate, NID_crl_distribution_points, nullptr, nullptr));
  for (int i = 0; points != nullptr && i < sk_DIST_POINT_num(points); ++i) {
    const DIST_POINT* point = sk_DIST_POINT_value(points, i);
    if (point->distpoint == nullptr || point->distpoint->type != 0) continue;  // not full names
    const GENERAL_NAMES* names = point->distpoint->name.fullname;
    for (int j = 0; j < sk_GENERAL_NAME_num(names); ++j) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, j);
      if (name->type != GEN_URI) continue;
      const ASN1_IA5STRING* uri = name->d.uniformResourceIdentifier;
      uris.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(uri)),
                        static_cast<size_t>(ASN1_STRING_length(uri)));
    }
  }
  sk_DIST_POINT_pop_free(points, DIST_POINT_free);
  return uris;
}

// OpenSSL's CRL lookup for the certificate being checked: the lists in the
// trust store, then those its distribution points name.
STACK_OF(X509_CRL) * lookup_crls(const X509_STORE_CTX* ctx, const X509_NAME* issuer) {
  STACK_OF(X509_CRL)* crls = X509_STORE_CTX_get1_crls(ctx, issuer);
  if (crls == nullptr) crls = sk_X509_CRL_new_null();
  if (X509* certificate = X509_STORE_CTX_get_current_cert(ctx)) {
    for (const std::string& uri : distribution_points(certificate)) {
      if (X509_CRL* crl = crl_at(uri, clock_of(ctx));
          crl != nullptr && sk_X509_CRL_push(crls, crl) == 0) {
        X509_CRL_free(crl);
      }
    }
  }
  return crls;
}

enum class OcspStatus { kGood, kRevoked, kUnknown };

// What the responder at `url` says of `certificate`; kUnknown when it cannot
// be asked or its answer cannot be trusted.
OcspStatus ask_responder(const char* url, X509* certificate, X509* issuer, X509_STORE_CTX* ctx) {
  char* host = nullptr;
  char* port = nullptr;
  char* path = nullptr;
  int tls = 0;
  if (OSSL_HTTP_parse_url(url, &tls, nullptr, &host, &port, nullptr, &path, nullptr, nullptr) !=
          1 ||
      tls != 0) {
    log_warn("certificate revocation: cannot ask the OCSP responder ", url,
             " (zkd asks http:// responders)");
    OPENSSL_free(host);
    OPENSSL_free(port);
    OPENSSL_free(path);
    return OcspStatus::kUnknown;
  }
  OCSP_CERTID* id = OCSP_cert_to_id(nullptr, certificate, issuer);
  OCSP_REQUEST* request = OCSP_REQUEST_new();
  OCSP_request_add0_id(request, OCSP_CERTID_dup(id));
  BIO* body = BIO_new(BIO_s_mem());
  i2d_OCSP_REQUEST_bio(body, request);
  BIO* reply = OSSL_HTTP_transfer(nullptr, host, port, path, 0, nullptr, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, 0, nullptr, "application/ocsp-request", body,
                                  "application/ocsp-response", 1, kMaxOcspReply,
                                  static_cast<int>(kRevocationFetchTimeout.count()), 0);
  OCSP_RESPONSE* response = reply != nullptr ? d2i_OCSP_RESPONSE_bio(reply, nullptr) : nullptr;
  OCSP_BASICRESP* basic =
      response != nullptr && OCSP_response_status(response) == OCSP_RESPONSE_STATUS_SUCCESSFUL
          ? OCSP_response_get1_basic(response)
          : nullptr;
  OcspStatus status = OcspStatus::kUnknown;
  int found = -1;
  int reason = 0;
  ASN1_GENERALIZEDTIME* this_update = nullptr;
  ASN1_GENERALIZEDTIME* next_update = nullptr;
  if (basic == nullptr) {
    log_warn("certificate revocation: no usable answer from the OCSP responder ", url);
  } else if (OCSP_basic_verify(basic, X509_STORE_CTX_get0_chain(ctx),
                               X509_STORE_CTX_get0_store(ctx), 0) != 1) {
    log_warn("certificate revocation: the OCSP responder ", url, " signed its answer wrongly");
  } else if (OCSP_resp_find_status(basic, id, &found, &reason, nullptr, &this_update,
                                   &next_update) == 1 &&
             OCSP_check_validity(this_update, next_update, 300, -1) == 1) {
    if (found == V_OCSP_CERTSTATUS_GOOD) status = OcspStatus::kGood;
    if (found == V_OCSP_CERTSTATUS_REVOKED) status = OcspStatus::kRevoked;
  }
  ERR_clear_error();
  OCSP_BASICRESP_free(basic);
  OCSP_RESPONSE_free(response);
  BIO_free(reply);
  BIO_free(body);
  OCSP_REQUEST_free(request);
  OCSP_CERTID_free(id);
  OPENSSL_free(host);
  OPENSSL_free(port);
  OPENSSL_free(path);
  return status;
}

OcspStatus ocsp_status(X509* certificate, X509* issuer, X509_STORE_CTX* ctx) {
  OcspStatus status = OcspStatus::kUnknown;
  STACK_OF(OPENSSL_STRING)* urls = X509_get1_ocsp(certificate);
  for (int i = 0; i < sk_OPENSSL_STRING_num(urls) && status == OcspStatus::kUnknown; ++i) {
    status = ask_responder(sk_OPENSSL_STRING_value(urls, i), certificate, issuer, ctx);
  }
  X509_email_free(urls);
  return status;
}

// The responders' verdicts during one verification, by certificate: the
// X509_STORE_CTX's ex data, freed with it.
using OcspVerdicts = std::map<const X509*, OcspStatus>;

int verdicts_index() {
  static const int index = X509_STORE_CTX_get_ex_new_index(
      0, nullptr, nullptr, nullptr, [](void*, void* verdicts, CRYPTO_EX_DATA*, int, long, void*) {
        delete static_cast<OcspVerdicts*>(verdicts);
      });
  return index;
}

// With OCSP, Java asks the responder first and falls back to the lists:
// a certificate the responder has an answer for is looked up in no list
// (OpenSSL then reports the list missing, and verify() gives the answer).
STACK_OF(X509_CRL) * lookup_ocsp_then_crls(const X509_STORE_CTX* ctx, const X509_NAME* issuer) {
  STACK_OF(X509)* chain = X509_STORE_CTX_get0_chain(ctx);
  const int depth = X509_STORE_CTX_get_error_depth(ctx);
  if (depth + 1 < sk_X509_num(chain)) {
    X509* certificate = sk_X509_value(chain, depth);
    auto* mutable_ctx = const_cast<X509_STORE_CTX*>(ctx);  // for its ex data
    const OcspStatus status =
        ocsp_status(certificate, sk_X509_value(chain, depth + 1), mutable_ctx);
    if (status != OcspStatus::kUnknown) {
      auto* verdicts =
          static_cast<OcspVerdicts*>(X509_STORE_CTX_get_ex_data(ctx, verdicts_index()));
      if (verdicts == nullptr) {
        verdicts = new OcspVerdicts;
        X509_STORE_CTX_set_ex_data(mutable_ctx, verdicts_index(), verdicts);
      }
      (*verdicts)[certificate] = status;
      return sk_X509_CRL_new_null();
    }
  }
  return lookup_crls(ctx, issuer);
}

// Passes what OpenSSL passes, except a missing list: for the trust anchor
// (which Java does not check either), and for a certificate a responder
// has answered for.
int verify(int ok, X509_STORE_CTX* ctx) {
  if (ok == 1 || X509_STORE_CTX_get_error(ctx) != X509_V_ERR_UNABLE_TO_GET_CRL) return ok;
  STACK_OF(X509)* chain = X509_STORE_CTX_get0_chain(ctx);
  const int depth = X509_STORE_CTX_get_error_depth(ctx);
  if (depth == sk_X509_num(chain) - 1) {
    X509_STORE_CTX_set_error(ctx, X509_V_OK);
    return 1;
  }
  const auto* verdicts =
      static_cast<const OcspVerdicts*>(X509_STORE_CTX_get_ex_data(ctx, verdicts_index()));
  if (verdicts == nullptr) return 0;
  const auto verdict = verdicts->find(sk_X509_value(chain, depth));
  if (verdict == verdicts->end()) return 0;
  if (verdict->second == OcspStatus::kRevoked) {
    X509_STORE_CTX_set_error(ctx, X509_V_ERR_CERT_REVOKED);
    return 0;
  }
  X509_STORE_CTX_set_error(ctx, X509_V_OK);
  return 1;
}

}  // namespace

void enable_revocation_checks(SSL_CTX* ctx, RevocationChecks checks, Clock& clock) {
  if (!checks.crl && !checks.ocsp) return;
  X509_STORE_set_ex_data(SSL_CTX_get_cert_store(ctx), clock_index(), &clock);
  // On the context's parameters, not the store's: OCSP_basic_verify checks
  // a responder's certificate against the same store without them.
  X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(ctx),
                              X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
  X509_STORE_set_lookup_crls(SSL_CTX_get_cert_store(ctx),
                             checks.ocsp ? lookup_ocsp_then_crls : lookup_crls);
  SSL_CTX_set_verify(ctx, SSL_CTX_get_verify_mode(ctx), verify);
}

}  // namespace zkd::net
