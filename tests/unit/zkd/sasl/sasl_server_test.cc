// SPDX-License-Identifier: Apache-2.0
// The Cyrus SASL server (sasl_server.h) against a DIGEST-MD5 client of the
// same library: the exchange Apache's clients run (§10.6 of
// docs/wire-protocol.md), its failures, and a refused exchange.
#include "zkd/sasl/sasl_server.h"

#include "libzk/client/sasl_library.h"

#include <gtest/gtest.h>
#include <sasl/sasl.h>

#include <cstring>

namespace zkd::sasl {
namespace {

using Outcome = SaslExchange::Step::Outcome;

// A Cyrus DIGEST-MD5 client as user `user` with `password`, asking to act as
// `authzid` (by default itself).
class DigestClient {
 public:
  DigestClient(std::string user, std::string password, std::string authzid = "")
      : user_(std::move(user)),
        password_(std::move(password)),
        authzid_(authzid.empty() ? user_ : std::move(authzid)) {
    secret_ = static_cast<sasl_secret_t*>(std::calloc(1, sizeof(sasl_secret_t) + password_.size()));
    secret_->len = password_.size();
    std::memcpy(secret_->data, password_.data(), password_.size());
    callbacks_[0] = {SASL_CB_AUTHNAME, as_callback(&simple), this};
    callbacks_[1] = {SASL_CB_USER, as_callback(&authorization_id), this};
    callbacks_[2] = {SASL_CB_PASS, as_callback(&secret), this};
    callbacks_[3] = {SASL_CB_LIST_END, nullptr, nullptr};
    zk::client::use_sasl_mutexes();  // before the library's first init, as zk::client does
    EXPECT_EQ(sasl_client_init(nullptr), SASL_OK);
    EXPECT_EQ(sasl_client_new("zookeeper", "zk-sasl-md5", nullptr, nullptr, callbacks_, 0, &conn_),
              SASL_OK);
  }
  ~DigestClient() {
    sasl_dispose(&conn_);
    std::free(secret_);
  }

  // The response to `challenge`; the first call starts the exchange.
  std::string respond(std::string_view challenge) {
    const char* out = nullptr;
    unsigned len = 0;
    const char* mech = nullptr;
    if (!started_) {
      started_ = true;
      sasl_client_start(conn_, "DIGEST-MD5", nullptr, &out, &len, &mech);
      return std::string(out == nullptr ? "" : std::string(out, len));
    }
    const int rc = sasl_client_step(conn_, challenge.data(),
                                    static_cast<unsigned>(challenge.size()), nullptr, &out, &len);
    last_rc_ = rc;
    return out == nullptr ? std::string() : std::string(out, len);
  }
  int last_rc() const { return last_rc_; }

 private:
  template <typename F>
  static int (*as_callback(F* f))() {
    return reinterpret_cast<int (*)()>(reinterpret_cast<void (*)()>(f));
  }
  static int simple(void* context, int, const char** result, unsigned* len) {
    auto* self = static_cast<DigestClient*>(context);
    *result = self->user_.c_str();
    if (len != nullptr) *len = static_cast<unsigned>(self->user_.size());
    return SASL_OK;
  }
  static int authorization_id(void* context, int, const char** result, unsigned* len) {
    auto* self = static_cast<DigestClient*>(context);
    *result = self->authzid_.c_str();
    if (len != nullptr) *len = static_cast<unsigned>(self->authzid_.size());
    return SASL_OK;
  }
  static int secret(sasl_conn_t*, void* context, int, sasl_secret_t** out) {
    *out = static_cast<DigestClient*>(context)->secret_;
    return SASL_OK;
  }

  std::string user_;
  std::string password_;
  std::string authzid_;
  sasl_secret_t* secret_ = nullptr;
  sasl_callback_t callbacks_[4];
  sasl_conn_t* conn_ = nullptr;
  bool started_ = false;
  int last_rc_ = SASL_FAIL;
};

std::unique_ptr<SaslServer> digest_server() {
  SaslSettings settings;
  settings.digest_users = {{"bob", "bobsecret"}};
  auto opened = SaslServer::open(settings);
  if (!opened.ok()) {
    ADD_FAILURE() << opened.status().message();
    return nullptr;
  }
  return *std::move(opened);
}

TEST(SaslServer, DigestMd5CompletesInTwoRoundTripsAsTheUser) {
  auto server = digest_server();
  ASSERT_NE(server, nullptr);
  auto exchange = server->start();
  DigestClient client("bob", "bobsecret");

  auto first = exchange->step(client.respond(""));
  ASSERT_EQ(first.outcome, Outcome::kContinue) << first.error;
  ASSERT_TRUE(first.token);
  EXPECT_NE(first.token->find("realm=\"zk-sasl-md5\""), std::string::npos) << *first.token;

  auto second = exchange->step(client.respond(*first.token));
  ASSERT_EQ(second.outcome, Outcome::kComplete) << second.error;
  EXPECT_EQ(second.authenticated_id, "bob");
  ASSERT_TRUE(second.token);
  EXPECT_EQ(second.token->rfind("rspauth=", 0), 0u) << *second.token;
  client.respond(*second.token);
  EXPECT_EQ(client.last_rc(), SASL_OK);  // the client accepts the server's proof

  EXPECT_EQ(exchange->step("").outcome, Outcome::kFailed);  // over
}

// A client that proves to be bob but asks to act as alice is bob: the id is
// the authenticated one, as Apache's server names it.
TEST(SaslServer, TheIdIsWhoTheClientProvedToBeNotWhoItAskedToBe) {
  auto server = digest_server();
  ASSERT_NE(server, nullptr);
  auto exchange = server->start();
  DigestClient client("bob", "bobsecret", "alice");
  auto first = exchange->step(client.respond(""));
  ASSERT_EQ(first.outcome, Outcome::kContinue) << first.error;
  auto second = exchange->step(client.respond(first.token.value_or("")));
  ASSERT_EQ(second.outcome, Outcome::kComplete) << second.error;
  EXPECT_EQ(second.authenticated_id, "bob");
}

TEST(SaslServer, WrongPasswordOrUnknownUserFails) {
  auto server = digest_server();
  ASSERT_NE(server, nullptr);
  for (auto [user, password] : {std::pair{"bob", "wrong"}, std::pair{"mallory", "bobsecret"}}) {
    auto exchange = server->start();
    DigestClient client(user, password);
    auto first = exchange->step(client.respond(""));
    ASSERT_EQ(first.outcome, Outcome::kContinue);
    auto second = exchange->step(client.respond(first.token.value_or("")));
    EXPECT_EQ(second.outcome, Outcome::kFailed) << user;
    EXPECT_FALSE(second.error.empty());
    EXPECT_FALSE(second.token);  // a null buffer on the wire
  }
}

TEST(SaslServer, GarbageResponsesFail) {
  auto server = digest_server();
  ASSERT_NE(server, nullptr);
  for (std::string_view garbage :
       {std::string_view("\xff\xfe garbage"), std::string_view("a=b,c"), std::string_view("")}) {
    auto exchange = server->start();
    ASSERT_EQ(exchange->step("").outcome, Outcome::kContinue);
    EXPECT_EQ(exchange->step(garbage).outcome, Outcome::kFailed);
  }
}

TEST(SaslServer, RefusedExchangeFailsWithItsReason) {
  auto exchange = refused_exchange("no JAAS file");
  auto step = exchange->step("");
  EXPECT_EQ(step.outcome, Outcome::kFailed);
  EXPECT_EQ(step.error, "no JAAS file");
}

}  // namespace
}  // namespace zkd::sasl
