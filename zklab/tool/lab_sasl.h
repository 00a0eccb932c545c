// SPDX-License-Identifier: Apache-2.0
// The SASL of a lab started with `zklab up --sasl`: one JAAS file,
// <lab>/jaas.conf (owner only), that every node reads (SERVER_JVMFLAGS, as
// zkServer.sh passes it) and zklab's clients and zkctl use:
//   Server         the user zklab, DIGEST-MD5 (random password)
//   Client         zklab's credentials, as Apache's client reads them
//                  (zkctl --jaas <lab>/jaas.conf)
//   QuorumServer   the user zkpeer (random password)
//   QuorumLearner  zkpeer's credentials
// A node of such a lab serves only clients that authenticate with SASL
// (enforce.auth.schemes=sasl) and links only to peers that do
// (quorum.auth.*RequireSasl).
#pragma once

#include <filesystem>
#include <string>

namespace zk::lab {

// Writes <dir>/jaas.conf. Empty, or why not.
std::string write_lab_sasl(const std::filesystem::path& dir);

// The JAAS file of the lab in `dir`.
std::filesystem::path lab_jaas(const std::filesystem::path& dir);

// The zoo.cfg lines (each ending in '\n') of a SASL lab's node.
std::string lab_sasl_config();

}  // namespace zk::lab
