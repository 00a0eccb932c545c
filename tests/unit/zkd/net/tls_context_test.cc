// SPDX-License-Identifier: Apache-2.0
// The TLS context a listener serves with (tls_context.h): store types as
// Apache decides them, PEM and PKCS12 key stores, the x509 subject text, and
// each refusal naming the key, the file and what to do. Certificates are
// made here with OpenSSL's API.
#include "zkd/net/tls_context.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "tests/common/temp_dir.h"

#include "zklab/process/certificates.h"

namespace zkd::net {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

using zk::lab::Identity;

class TlsContextTest : public ::testing::Test {
 protected:
  // `password`: the key encrypted with it.
  std::string pem_store(const char* password = nullptr) {
    const std::string path = (dir_ / "keystore.pem").string();
    id_.write_pem(path, true, password);
    return path;
  }
  std::string pkcs12_store(const char* password) {
    const std::string path = (dir_ / "keystore.p12").string();
    PKCS12* p12 =
        PKCS12_create(password, "zk", id_.key(), id_.certificate(), nullptr, 0, 0, 0, 0, 0);
    FILE* f = std::fopen(path.c_str(), "wb");
    i2d_PKCS12_fp(f, p12);
    std::fclose(f);
    PKCS12_free(p12);
    return path;
  }
  std::string error_of(TlsSettings settings) {
    auto opened = TlsServer::open(std::move(settings));
    if (opened.ok()) return "";
    EXPECT_EQ(opened.status().kind(), zkd::Status::Kind::kConfig);
    return opened.status().message();
  }

  Identity id_;
  zk::test::TempDir temp_{"zkd-tls"};
  const std::filesystem::path& dir_ = temp_.path();
};

TEST(StoreType, TypeKeyFirstThenTheExtension) {
  EXPECT_EQ(store_type({"/k.pem", "", ""}), "PEM");
  EXPECT_EQ(store_type({"/k.P12", "", ""}), "PKCS12");
  EXPECT_EQ(store_type({"/k.pfx", "", ""}), "PKCS12");
  EXPECT_EQ(store_type({"/k.jks", "", ""}), "JKS");
  EXPECT_EQ(store_type({"/k.jks", "", "pkcs12"}), "PKCS12");
  EXPECT_EQ(store_type({"/keystore", "", ""}), "");
}

TEST_F(TlsContextTest, SubjectIsRfc2253MostSpecificFirst) {
  EXPECT_EQ(x509_subject(id_.certificate()), "CN=client,O=zk");
  EXPECT_EQ(x509_subject(nullptr), "");
}

TEST_F(TlsContextTest, PemAndPkcs12KeyStoresOpen) {
  TlsSettings pem;
  pem.key_store.location = pem_store();
  EXPECT_EQ(error_of(pem), "");
  TlsSettings encrypted;
  encrypted.key_store = {pem_store("secret"), "secret", ""};
  EXPECT_EQ(error_of(encrypted), "");
  encrypted.key_store.password = "";
  EXPECT_THAT(error_of(encrypted), HasSubstr("an encrypted key needs ssl.keyStore.password"));
  TlsSettings p12;
  p12.key_store = {pkcs12_store("secret"), "secret", ""};
  EXPECT_EQ(error_of(p12), "");
  p12.trust_store = p12.key_store;  // a PKCS12 trust store: its certificates are trusted
  EXPECT_EQ(error_of(p12), "");
}

TEST_F(TlsContextTest, RefusalsNameTheStoreAndWhatToDo) {
  TlsSettings jks;
  jks.key_store.location = "/etc/zk/keystore.jks";
  EXPECT_THAT(error_of(jks), HasSubstr("is a JKS store, which zkd cannot read: convert it with "
                                       "`keytool -importkeystore"));
  TlsSettings unknown;
  unknown.key_store.location = "/etc/zk/keystore";
  EXPECT_THAT(error_of(unknown), HasSubstr("cannot tell the type of ssl.keyStore.location"));
  TlsSettings missing;
  missing.key_store.location = (dir_ / "missing.pem").string();
  EXPECT_THAT(error_of(missing), HasSubstr("ssl.keyStore: cannot read a certificate from"));
  TlsSettings wrong_password;
  wrong_password.key_store = {pkcs12_store("secret"), "not-it", ""};
  EXPECT_THAT(error_of(wrong_password), HasSubstr("wrong password?"));
  TlsSettings protocol;
  protocol.key_store.location = pem_store();
  protocol.protocols = {"SSLv3"};
  EXPECT_THAT(error_of(protocol), HasSubstr("SSLv3 is not one zkd offers (TLSv1.2, TLSv1.3)"));
  TlsSettings cipher;
  cipher.key_store.location = pem_store();
  cipher.cipher_suites = {"TLS_NOT_A_SUITE"};
  EXPECT_EQ(error_of(cipher), "ssl.ciphersuites: OpenSSL has no cipher suite TLS_NOT_A_SUITE");
  cipher.cipher_suites = {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384"};
  EXPECT_EQ(error_of(cipher), "");
}

// A clock the test moves by hand.
class ManualClock final : public Clock {
 public:
  int64_t wall_ms() override { return 1'700'000'000'000 + steady_us_ / 1000; }
  int64_t steady_us() override { return steady_us_; }
  void advance(std::chrono::microseconds by) { steady_us_ += by.count(); }

 private:
  int64_t steady_us_ = 1'000'000;
};

// client.certReload looks at the stores at most once a second of the clock
// in the settings, not of the system's.
TEST_F(TlsContextTest, ReloadLooksAtTheStoresOnceASecondOfItsClock) {
  ManualClock clock;
  TlsSettings settings;
  settings.key_store.location = pem_store();
  settings.reload = true;
  settings.clock = &clock;
  auto opened = TlsServer::open(settings);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  TlsServer& server = **opened;
  const auto first = server.context();
  const std::filesystem::path store = settings.key_store.location;
  std::filesystem::last_write_time(store, std::filesystem::last_write_time(store) + 10s);
  clock.advance(999ms);
  server.reload_if_changed();
  EXPECT_EQ(server.context(), first);  // within the second: the stores are not looked at
  clock.advance(1ms);
  server.reload_if_changed();
  EXPECT_NE(server.context(), first);  // a new context from the changed store
}

}  // namespace
}  // namespace zkd::net
