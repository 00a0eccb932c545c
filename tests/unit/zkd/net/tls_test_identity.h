// SPDX-License-Identifier: Apache-2.0
// Throw-away TLS identities for unit tests, made with OpenSSL's API: a
// self-signed certificate (its own trust anchor) for a subject, optionally
// naming an IP address, written as a PEM key store.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <string>

namespace zkd::net::testing {

class TestIdentity {
 public:
  // A P-256 key and a self-signed certificate for /O=zk/CN=`common_name`,
  // valid for an hour; `ip`, when given, becomes its IP subject alternative
  // name.
  explicit TestIdentity(const std::string& common_name = "client", const std::string& ip = "")
      : key_(EVP_EC_gen("P-256")), certificate_(X509_new()) {
    X509_set_version(certificate_, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate_), 1);
    X509_gmtime_adj(X509_getm_notBefore(certificate_), 0);
    X509_gmtime_adj(X509_getm_notAfter(certificate_), 3600);
    X509_NAME* name = X509_get_subject_name(certificate_);
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("zk"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                               0);
    X509_set_issuer_name(certificate_, name);
    X509_set_pubkey(certificate_, key_);
    if (!ip.empty()) {
      const std::string san = "IP:" + ip;
      X509_EXTENSION* ext =
          X509V3_EXT_conf_nid(nullptr, nullptr, NID_subject_alt_name, san.c_str());
      X509_add_ext(certificate_, ext, -1);
      X509_EXTENSION_free(ext);
    }
    X509_sign(certificate_, key_, EVP_sha256());
  }
  ~TestIdentity() {
    X509_free(certificate_);
    EVP_PKEY_free(key_);
  }
  TestIdentity(const TestIdentity&) = delete;
  TestIdentity& operator=(const TestIdentity&) = delete;

  EVP_PKEY* key() const { return key_; }
  X509* certificate() const { return certificate_; }

  // Writes the key (encrypted with `password` when given) and the
  // certificate to `path`: an Apache PEM key store; the certificate alone
  // with `key` false (a trust store).
  void write_pem(const std::string& path, bool key = true, const char* password = nullptr) const {
    FILE* f = std::fopen(path.c_str(), "w");
    if (key) {
      PEM_write_PrivateKey(f, key_, password == nullptr ? nullptr : EVP_aes_256_cbc(), nullptr, 0,
                           nullptr, const_cast<char*>(password));
    }
    PEM_write_X509(f, certificate_);
    std::fclose(f);
  }

 private:
  EVP_PKEY* key_;
  X509* certificate_;
};

}  // namespace zkd::net::testing
