// SPDX-License-Identifier: Apache-2.0
// The Java system properties Apache's server reads that zkd honours too,
// taken from the same variables zkServer.sh puts on the JVM's command line
// (SERVER_JVMFLAGS, then JVMFLAGS: a later -D wins, as on that line).
// Today: -Dreadonlymode.enabled=true (ServerConfig::read_only_mode),
// -Dzookeeper.audit.enable=true (ServerConfig::audit_enabled) and
// -Dzookeeper.DigestAuthenticationProvider.superDigest=super:<digest>
// (ServerConfig::digest, as zoo.cfg's DigestAuthenticationProvider.superDigest).
#pragma once

#include <string_view>

#include "zkd/server/config.h"

namespace zkd::server {

// Sets what the flags enable on `config`; a property the flags leave out
// changes nothing (zoo.cfg's key still counts).
void apply_jvm_properties(ServerConfig& config, std::string_view server_jvmflags,
                          std::string_view jvmflags);

}  // namespace zkd::server
