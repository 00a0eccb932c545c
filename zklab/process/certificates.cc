// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/certificates.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <utility>

namespace zk::lab {

namespace {

// Adds extension `nid` with OpenSSL's configuration-style `value`.
void add_extension(X509* certificate, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return;
  X509_add_ext(certificate, ext, -1);
  X509_EXTENSION_free(ext);
}

}  // namespace

Identity::Identity(const std::string& common_name, const std::string& ip,
                   std::chrono::seconds valid)
    : Identity(common_name, ip, valid, nullptr) {}

Identity::Identity(const std::string& common_name, const std::string& ip,
                   std::chrono::seconds valid, const Identity* issuer)
    : key_(EVP_EC_gen("P-256")), certificate_(X509_new()) {
  X509_set_version(certificate_, 2);
  // A random serial: certificates of one issuer must differ in it.
  unsigned char serial[8];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(certificate_));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(certificate_), 0);
  X509_gmtime_adj(X509_getm_notAfter(certificate_), static_cast<long>(valid.count()));
  X509_NAME* name = X509_get_subject_name(certificate_);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("zk"),
                             -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509* signer = issuer == nullptr ? certificate_ : issuer->certificate_;
  X509_set_issuer_name(certificate_, X509_get_subject_name(signer));
  X509_set_pubkey(certificate_, key_);
  add_extension(certificate_, signer, NID_basic_constraints,
                issuer == nullptr ? "critical,CA:TRUE" : "CA:FALSE");
  add_extension(certificate_, signer, NID_subject_key_identifier, "hash");
  if (issuer != nullptr) add_extension(certificate_, signer, NID_authority_key_identifier, "keyid");
  if (!ip.empty()) add_extension(certificate_, signer, NID_subject_alt_name, "IP:" + ip);
  X509_sign(certificate_, issuer == nullptr ? key_ : issuer->key_, EVP_sha256());
}

Identity::~Identity() {
  X509_free(certificate_);
  EVP_PKEY_free(key_);
}

Identity::Identity(Identity&& other) noexcept
    : key_(std::exchange(other.key_, nullptr)),
      certificate_(std::exchange(other.certificate_, nullptr)) {}

Identity& Identity::operator=(Identity&& other) noexcept {
  std::swap(key_, other.key_);
  std::swap(certificate_, other.certificate_);
  return *this;
}

Identity Identity::issue(const std::string& common_name, const std::string& ip,
                         std::chrono::seconds valid) const {
  return Identity(common_name, ip, valid, this);
}

bool Identity::write_pem(const std::filesystem::path& path, bool key, const char* password) const {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::error_code ec;
  if (key) {
    std::filesystem::permissions(
        path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ec);
  }
  bool ok = !ec;
  if (key) {
    ok = ok && PEM_write_PrivateKey(f, key_, password == nullptr ? nullptr : EVP_aes_256_cbc(),
                                    nullptr, 0, nullptr, const_cast<char*>(password)) == 1;
  }
  ok = ok && PEM_write_X509(f, certificate_) == 1;
  return std::fclose(f) == 0 && ok;
}

}  // namespace zk::lab
