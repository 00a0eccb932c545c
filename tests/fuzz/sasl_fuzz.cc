// SPDX-License-Identifier: Apache-2.0
// Fuzz target for what a hostile party controls in zkd's SASL: the first
// byte picks the input. 0: the rest is a JAAS file (jaas_config.h,
// sasl_settings.h), which must be parsed or refused with a message naming a
// line. Else: the rest is a client's response to a DIGEST-MD5 challenge,
// which the SASL server (sasl_server.h) must refuse or accept without
// crashing, and never for a user it does not know.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "libzk/java/jaas_config.h"
#include "zkd/sasl/sasl_server.h"
#include "zkd/sasl/sasl_settings.h"

namespace {

using zkd::sasl::SaslExchange;

const zkd::sasl::SaslServer& digest_server() {
  static const std::unique_ptr<zkd::sasl::SaslServer> server = [] {
    zkd::sasl::SaslSettings settings;
    settings.digest_users = {{"bob", "bobsecret"}};
    auto opened = zkd::sasl::SaslServer::open(settings);
    if (!opened.ok()) std::abort();
    return *std::move(opened);
  }();
  return *server;
}

void jaas(std::string_view text) {
  auto parsed = zk::java::parse_jaas(text);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    if (error->rfind("line ", 0) != 0) std::abort();
  }
  (void)zkd::sasl::sasl_settings(text);
}

void digest_response(std::string_view token) {
  auto exchange = digest_server().start();
  if (exchange->step("").outcome != SaslExchange::Step::Outcome::kContinue) std::abort();
  // The nonce is fresh each time, so a stored response cannot be replayed:
  // nothing here may authenticate.
  if (exchange->step(token).outcome == SaslExchange::Step::Outcome::kComplete) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] == 0) {
    jaas(rest);
  } else {
    digest_response(rest);
  }
  return 0;
}
