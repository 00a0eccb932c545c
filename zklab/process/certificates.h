// SPDX-License-Identifier: Apache-2.0
// Throw-away X.509 identities for labs and tests, made with OpenSSL's API:
// a P-256 key and a certificate for /O=zk/CN=<common name>, either
// self-signed (its own trust anchor: a lab's CA, or a test's lone server) or
// issued by another identity. An IP address, when given, becomes the
// certificate's IP subject alternative name, which zkd's and zk::client's
// host verification check. Written as Apache's PEM key store (key, then
// certificate) or trust store (certificate only).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

struct evp_pkey_st;
struct x509_st;

namespace zk::lab {

class Identity {
 public:
  // Self-signed, valid from now for `valid`. A CA too (basicConstraints
  // CA:TRUE), so that it can issue().
  explicit Identity(const std::string& common_name = "client", const std::string& ip = "",
                    std::chrono::seconds valid = std::chrono::hours(1));
  ~Identity();
  Identity(Identity&&) noexcept;
  Identity& operator=(Identity&&) noexcept;

  // A new identity whose certificate this one signs (not a CA).
  Identity issue(const std::string& common_name, const std::string& ip = "",
                 std::chrono::seconds valid = std::chrono::hours(1)) const;

  evp_pkey_st* key() const { return key_; }
  x509_st* certificate() const { return certificate_; }

  // Writes the key (encrypted with `password` when given) and the
  // certificate to `path`, readable by its owner only: an Apache PEM key
  // store; with `key` false the certificate alone (a trust store, readable by
  // all). False when the file cannot be written.
  bool write_pem(const std::filesystem::path& path, bool key = true,
                 const char* password = nullptr) const;

 private:
  Identity(const std::string& common_name, const std::string& ip, std::chrono::seconds valid,
           const Identity* issuer);

  evp_pkey_st* key_ = nullptr;
  x509_st* certificate_ = nullptr;
};

}  // namespace zk::lab
