// SPDX-License-Identifier: Apache-2.0
// Quorum SASL (quorum.auth.*) for the peer transport (zkd/peer/peer_transport.h):
// the exchanges of both ends, as Apache's QuorumLearner and QuorumServer run
// them: DIGEST-MD5 (service zookeeper-quorum, realm zk-quorum-sasl-md5) or
// GSSAPI (the service and host of quorum.auth.kerberos.servicePrincipal; a
// peer's principal must name the host of a server.N line). The dialer's
// side is zk::client's Cyrus client (libzk/client/sasl.h), the acceptor's
// zkd's SASL server opened for the quorum (security_setup.h).
#pragma once

#include "zkd/peer/peer_transport.h"
#include "zkd/server/config.h"
#include "zkd/server/security_setup.h"

namespace zkd::server {

// Sets options.sasl_* from config and the quorum's SASL objects in
// `security` (nothing without quorum.auth.enableSasl).
void set_quorum_sasl(const ServerConfig& config, const Security& security,
                     net::PeerTransportOptions& options);

}  // namespace zkd::server
