// SPDX-License-Identifier: Apache-2.0
#include "toolkit/client_security.h"

#include "libzk/client/client.h"

namespace zk::toolkit {

void apply_client_security(const ClientSecurity& security, zk::client::ClientOptions& options) {
  options.tls_context = security.tls_context;
  options.tls_verify_host = security.tls_verify_host;
  options.sasl = security.sasl;
}

}  // namespace zk::toolkit
