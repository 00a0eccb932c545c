// SPDX-License-Identifier: Apache-2.0
// Cyrus SASL from many threads at once: zk::client's exchanges (zklab check
// authenticates all its clients together) and zkd's server exchanges, both in
// one process as in zkd (quorum SASL dials and accepts). Cyrus's own mutexes
// do nothing, and DIGEST-MD5 keeps a cache every connection of the process
// shares, so without the mutexes zk installs (libzk/client/sasl_library.h)
// the threads corrupt the heap.
#include "libzk/client/sasl.h"
#include "zkd/sasl/sasl_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace zkd::sasl {
namespace {

using Outcome = SaslExchange::Step::Outcome;

// One whole DIGEST-MD5 exchange between a zk::client exchange and `server`;
// "" when both ends complete as bob, else what went wrong.
std::string authenticate(SaslServer& server) {
  zk::client::SaslOptions options;
  options.username = "bob";
  options.password = "bobsecret";
  auto started = zk::client::start_sasl(options, "127.0.0.1");
  if (auto* error = std::get_if<std::string>(&started)) return *error;
  auto& client = *std::get<std::unique_ptr<zk::client::SaslClientExchange>>(started);
  auto exchange = server.start();
  auto token = client.first();
  while (token.token) {
    auto answer = exchange->step(*token.token);
    if (answer.outcome == Outcome::kFailed) return "server: " + answer.error;
    if (answer.outcome == Outcome::kComplete && answer.authenticated_id != "bob") {
      return "authenticated as " + answer.authenticated_id;
    }
    if (!answer.token) return answer.outcome == Outcome::kComplete ? "" : "server sent nothing";
    token = client.step(*answer.token);
    if (!token.error.empty()) return "client: " + token.error;
    if (answer.outcome == Outcome::kComplete) return token.token ? "client not done" : "";
  }
  return token.error.empty() ? "client completed before the server" : "client: " + token.error;
}

TEST(SaslThreads, ClientAndServerExchangesInManyThreadsAtOnceAllComplete) {
  SaslSettings settings;
  settings.digest_users = {{"bob", "bobsecret"}};
  auto opened = SaslServer::open(settings);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  SaslServer& server = **opened;

  constexpr int kThreads = 8;
  constexpr int kExchanges = 150;
  std::atomic<int> completed{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kExchanges && errors[t].empty(); ++i) {
        errors[t] = authenticate(server);
        if (errors[t].empty()) ++completed;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  EXPECT_EQ(completed.load(), kThreads * kExchanges);
}

}  // namespace
}  // namespace zkd::sasl
