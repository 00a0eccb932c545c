// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/sasl.h"

#include "libzk/client/sasl_library.h"

#include <sasl/sasl.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace zk::client {

namespace {

// Cyrus keeps every callback as int(*)() and calls it by its id's type;
// void(*)() is the one pointer type GCC lets any function pass through.
template <typename F>
int (*as_callback(F* f))() {
  return reinterpret_cast<int (*)()>(reinterpret_cast<void (*)()>(f));
}

// sasl_client_init's result, once per process (after use_sasl_mutexes).
int init_library() {
  static const int result = [] {
    use_sasl_mutexes();
    return sasl_client_init(nullptr);
  }();
  return result;
}

class CyrusExchange : public SaslClientExchange {
 public:
  explicit CyrusExchange(SaslOptions options) : options_(std::move(options)) {
    secret_.resize(sizeof(sasl_secret_t) + options_.password.size());
    auto* secret = reinterpret_cast<sasl_secret_t*>(secret_.data());
    secret->len = options_.password.size();
    std::memcpy(secret->data, options_.password.data(), options_.password.size());
    callbacks_ = {
        {SASL_CB_USER, as_callback(&name), this},
        {SASL_CB_AUTHNAME, as_callback(&name), this},
        {SASL_CB_PASS, as_callback(&password), this},
        {SASL_CB_LIST_END, nullptr, nullptr},
    };
  }
  ~CyrusExchange() override {
    if (conn_ != nullptr) sasl_dispose(&conn_);
  }

  // "" on success, else Cyrus's reason.
  std::string open(const std::string& server_name) {
    const int rc = sasl_client_new(options_.service.c_str(), server_name.c_str(), nullptr, nullptr,
                                   callbacks_.data(), 0, &conn_);
    return rc == SASL_OK ? std::string() : sasl_errstring(rc, nullptr, nullptr);
  }

  Step first() override {
    const char* out = nullptr;
    unsigned out_len = 0;
    const char* chosen = nullptr;
    const int rc =
        sasl_client_start(conn_, options_.mechanism.c_str(), nullptr, &out, &out_len, &chosen);
    return result(rc, out, out_len, /*first=*/true);
  }

  Step step(std::string_view server_token) override {
    if (done_) return {std::nullopt, ""};
    const char* out = nullptr;
    unsigned out_len = 0;
    const int rc =
        sasl_client_step(conn_, server_token.data(), static_cast<unsigned>(server_token.size()),
                         nullptr, &out, &out_len);
    return result(rc, out, out_len, /*first=*/false);
  }

 private:
  // SASL_CONTINUE: a token to send. SASL_OK: complete, but a final token
  // (GSSAPI's) still goes to the server, whose answer ends it.
  Step result(int rc, const char* out, unsigned out_len, bool first) {
    if (rc == SASL_CONTINUE || (rc == SASL_OK && (first || out_len > 0))) {
      done_ = rc == SASL_OK;
      return {std::string(out == nullptr ? "" : out, out_len), ""};
    }
    if (rc == SASL_OK) return {std::nullopt, ""};
    const char* detail = conn_ == nullptr ? nullptr : sasl_errdetail(conn_);
    return {std::nullopt, std::string(options_.mechanism) + ": " +
                              (detail != nullptr ? detail : sasl_errstring(rc, nullptr, nullptr))};
  }

  static int name(void* context, int, const char** result, unsigned* length) {
    const auto* self = static_cast<CyrusExchange*>(context);
    *result = self->options_.username.c_str();
    if (length != nullptr) *length = static_cast<unsigned>(self->options_.username.size());
    return SASL_OK;
  }

  static int password(sasl_conn_t*, void* context, int, sasl_secret_t** secret) {
    auto* self = static_cast<CyrusExchange*>(context);
    *secret = reinterpret_cast<sasl_secret_t*>(self->secret_.data());
    return SASL_OK;
  }

  SaslOptions options_;
  std::vector<unsigned char> secret_;  // a sasl_secret_t holding the password
  std::vector<sasl_callback_t> callbacks_;
  sasl_conn_t* conn_ = nullptr;
  bool done_ = false;
};

bool has_mechanism(const std::string& name) {
  const char** mechs = sasl_global_listmech();
  for (; mechs != nullptr && *mechs != nullptr; ++mechs) {
    if (name == *mechs) return true;
  }
  return false;
}

}  // namespace

void use_kerberos_keytab(const std::string& keytab) {
  ::setenv("KRB5_CLIENT_KTNAME", keytab.c_str(), 1);
}

std::variant<std::unique_ptr<SaslClientExchange>, std::string> start_sasl(
    const SaslOptions& options, const std::string& host) {
  if (const int rc = init_library(); rc != SASL_OK) {
    return std::string("cannot start Cyrus SASL: ") + sasl_errstring(rc, nullptr, nullptr);
  }
  if (!has_mechanism(options.mechanism)) {
    return "no SASL " + options.mechanism + " plugin: install " +
           (options.mechanism == "GSSAPI" ? "libsasl2-modules-gssapi-mit" : "libsasl2-modules");
  }
  std::string server_name = options.server_name;
  if (server_name.empty()) server_name = options.mechanism == "GSSAPI" ? host : "zk-sasl-md5";
  auto exchange = std::make_unique<CyrusExchange>(options);
  if (auto error = exchange->open(server_name); !error.empty()) return error;
  return std::unique_ptr<SaslClientExchange>(std::move(exchange));
}

}  // namespace zk::client
