// SPDX-License-Identifier: Apache-2.0
#include "zkd/sasl/sasl_server.h"

#include <krb5.h>
#include <sasl/sasl.h>
#include <sasl/saslplug.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "libzk/client/sasl_library.h"
#include "zkd/log/log.h"

namespace zkd::sasl {
namespace {

// MIT Kerberos's default realm (krb5.conf's libdefaults), "" when none.
std::string default_realm() {
  krb5_context context = nullptr;
  if (krb5_init_context(&context) != 0) return {};
  char* realm = nullptr;
  std::string out;
  if (krb5_get_default_realm(context, &realm) == 0 && realm != nullptr) {
    out = realm;
    krb5_free_default_realm(context, realm);
  }
  krb5_free_context(context);
  return out;
}

constexpr const char* kAuxpropName = "zkd-jaas";

// The passwords the auxprop plugin serves, per DIGEST-MD5 realm: the last
// opened server's of each (the clients' and the quorum's).
std::mutex users_mutex;
std::map<std::string, std::map<std::string, std::string>> users_by_realm;

// Cyrus asks for options through this; zkd pins the mechanisms it offers
// and its own password source, whatever /etc/sasl2 says.
int get_option(void*, const char*, const char* option, const char** result, unsigned* len) {
  if (std::strcmp(option, "auxprop_plugin") == 0) {
    *result = kAuxpropName;
  } else if (std::strcmp(option, "mech_list") == 0) {
    *result = "DIGEST-MD5 GSSAPI";
  } else {
    return SASL_FAIL;
  }
  if (len != nullptr) *len = static_cast<unsigned>(std::strlen(*result));
  return SASL_OK;
}

// Only the library's own errors: an authentication that fails is logged by
// whoever ran the exchange (its reason is the exchange's error), at the rate
// it chooses, and a peer that keeps retrying with a wrong password must not
// fill the log.
int log_line(void*, int level, const char* message) {
  if (level <= SASL_LOG_ERR) net::log_warn("sasl: ", message);
  return SASL_OK;
}

// The user's password as the "userPassword" property of the authentication
// id, as Cyrus's sasldb plugin provides it.
int lookup(void*, sasl_server_params_t* params, unsigned flags, const char* user, unsigned ulen) {
  if (params == nullptr || user == nullptr) return SASL_BADPARAM;
  if ((flags & SASL_AUXPROP_AUTHZID) != 0) return SASL_OK;  // no authzid properties
  // The server name the exchange was opened with is the DIGEST-MD5 realm
  // (SaslSettings::server_host): it says whose users, the clients' or the
  // quorum's.
  std::string name(user, ulen);
  name = name.substr(0, name.find('@'));
  const std::string realm = params->serverFQDN == nullptr ? "" : params->serverFQDN;
  std::string password;
  {
    std::lock_guard lock(users_mutex);
    auto users = users_by_realm.find(realm);
    if (users == users_by_realm.end()) return SASL_NOUSER;
    auto it = users->second.find(name);
    if (it == users->second.end()) return SASL_NOUSER;
    password = it->second;
  }
  for (const propval* p = params->utils->prop_get(params->propctx); p->name != nullptr; ++p) {
    if (std::strcmp(p->name, SASL_AUX_PASSWORD) != 0) continue;
    if (p->values != nullptr) params->utils->prop_erase(params->propctx, p->name);
    params->utils->prop_set(params->propctx, p->name, password.data(),
                            static_cast<unsigned>(password.size()));
  }
  return SASL_OK;
}

sasl_auxprop_plug_t auxprop_plugin = {
    0, 0, nullptr, nullptr, lookup, const_cast<char*>(kAuxpropName), nullptr,
};

int auxprop_init(const sasl_utils_t*, int max_version, int* out_version, sasl_auxprop_plug_t** plug,
                 const char*) {
  if (max_version < SASL_AUXPROP_PLUG_VERSION) return SASL_BADVERS;
  *out_version = SASL_AUXPROP_PLUG_VERSION;
  *plug = &auxprop_plugin;
  return SASL_OK;
}

// Cyrus keeps every callback as int(*)() and calls it by its id's type;
// void(*)() is the one pointer type GCC lets any function pass through.
template <typename F>
int (*as_callback(F* f))() {
  return reinterpret_cast<int (*)()>(reinterpret_cast<void (*)()>(f));
}

// Any authorization id may go with an authenticated identity: zkd ignores
// the former (Step::authenticated_id), as Apache's SaslServerCallbackHandler
// authorizes every client and names it by its authentication id. Without
// this Cyrus refuses clients whose authorization id differs in form from
// the authenticated one (pure-sasl's and Java's user@REALM for GSSAPI).
int authorize_any(sasl_conn_t*, void*, const char*, unsigned, const char*, unsigned, const char*,
                  unsigned, propctx*) {
  return SASL_OK;
}

sasl_callback_t callbacks[] = {
    {SASL_CB_GETOPT, as_callback(&get_option), nullptr},
    {SASL_CB_PROXY_POLICY, as_callback(&authorize_any), nullptr},
    {SASL_CB_LOG, as_callback(&log_line), nullptr},
    {SASL_CB_LIST_END, nullptr, nullptr},
};

// sasl_server_init's result, once per process, after use_sasl_mutexes:
// quorum SASL runs zk::client's exchanges in the same process, and the
// exchanges of one process may run on more than one thread.
int init_library() {
  static const int result = [] {
    zk::client::use_sasl_mutexes();
    int rc = sasl_server_init(callbacks, "zkd");
    if (rc == SASL_OK) rc = sasl_auxprop_add_plugin(kAuxpropName, auxprop_init);
    return rc;
  }();
  return result;
}

bool has_mechanism(std::string_view name) {
  const char** mechs = sasl_global_listmech();
  for (; mechs != nullptr && *mechs != nullptr; ++mechs) {
    if (name == *mechs) return true;
  }
  return false;
}

class CyrusExchange : public SaslExchange {
 public:
  CyrusExchange(sasl_conn_t* conn, std::string mechanism)
      : conn_(conn), mechanism_(std::move(mechanism)) {}
  ~CyrusExchange() override { sasl_dispose(&conn_); }

  Step step(std::string_view client_token) override {
    Step out;
    if (over_) {
      out.error = "the SASL exchange is already over";
      return out;
    }
    const char* reply = nullptr;
    unsigned reply_len = 0;
    const int rc =
        started_
            ? sasl_server_step(conn_, client_token.data(),
                               static_cast<unsigned>(client_token.size()), &reply, &reply_len)
            : sasl_server_start(conn_, mechanism_.c_str(), client_token.data(),
                                static_cast<unsigned>(client_token.size()), &reply, &reply_len);
    started_ = true;
    if (rc == SASL_CONTINUE) {
      out.outcome = Step::Outcome::kContinue;
      out.token = std::string(reply == nullptr ? "" : reply, reply == nullptr ? 0 : reply_len);
      return out;
    }
    over_ = true;
    if (rc != SASL_OK) {
      out.error = sasl_errdetail(conn_);
      return out;
    }
    // The authenticated identity: SASL_USERNAME would be the authorization
    // id the client asked for (the proxy policy lets any through, as
    // Apache's does), which is not proof of anything.
    const void* user = nullptr;
    if (sasl_getprop(conn_, SASL_AUTHUSER, &user) != SASL_OK || user == nullptr) {
      out.error = "the SASL library named no user";
      return out;
    }
    out.outcome = Step::Outcome::kComplete;
    if (reply != nullptr && reply_len > 0) out.token = std::string(reply, reply_len);
    out.authenticated_id = static_cast<const char*>(user);
    // Cyrus's GSSAPI strips the default realm from the principal; Apache's
    // ids keep it (kerberos.removeRealmFromPrincipal removes it later).
    if (mechanism_ == "GSSAPI" && out.authenticated_id.find('@') == std::string::npos) {
      if (const std::string realm = default_realm(); !realm.empty()) {
        out.authenticated_id += "@" + realm;
      }
    }
    return out;
  }

 private:
  sasl_conn_t* conn_;
  std::string mechanism_;
  bool started_ = false;
  bool over_ = false;
};

// An exchange that fails at once: the library could not start one.
class RefusedExchange : public SaslExchange {
 public:
  explicit RefusedExchange(std::string why) : why_(std::move(why)) {}
  Step step(std::string_view) override { return Step{Step::Outcome::kFailed, {}, {}, why_}; }

 private:
  std::string why_;
};

}  // namespace

std::unique_ptr<SaslExchange> refused_exchange(std::string why) {
  return std::make_unique<RefusedExchange>(std::move(why));
}

StatusOr<std::unique_ptr<SaslServer>> SaslServer::open(SaslSettings settings) {
  if (settings.mechanism == SaslSettings::Mechanism::kGssapi) {
    // MIT Kerberos's acceptor reads its keytab from here.
    ::setenv("KRB5_KTNAME", settings.keytab.c_str(), 1);
  }
  if (const int rc = init_library(); rc != SASL_OK) {
    return Status::config(std::string("cannot start Cyrus SASL: ") +
                          sasl_errstring(rc, nullptr, nullptr));
  }
  if (!has_mechanism(settings.mechanism_name())) {
    return Status::config(
        "Cyrus SASL has no " + std::string(settings.mechanism_name()) + " plugin: install " +
        (settings.mechanism == SaslSettings::Mechanism::kGssapi ? "libsasl2-modules-gssapi-mit"
                                                                : "libsasl2-modules"));
  }
  {
    std::lock_guard lock(users_mutex);
    users_by_realm[settings.digest_realm] = settings.digest_users;
  }
  return std::unique_ptr<SaslServer>(new SaslServer(std::move(settings)));
}

std::unique_ptr<SaslExchange> SaslServer::start() const {
  sasl_conn_t* conn = nullptr;
  const std::string host = settings_.server_host();
  const int rc = sasl_server_new(settings_.service.c_str(), host.c_str(), nullptr, nullptr, nullptr,
                                 nullptr, SASL_SUCCESS_DATA, &conn);
  if (rc != SASL_OK) {
    if (conn != nullptr) sasl_dispose(&conn);
    return refused_exchange(std::string("cannot start a SASL exchange: ") +
                            sasl_errstring(rc, nullptr, nullptr));
  }
  return std::make_unique<CyrusExchange>(conn, std::string(settings_.mechanism_name()));
}

}  // namespace zkd::sasl
