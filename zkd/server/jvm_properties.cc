// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/jvm_properties.h"

#include <string>

#include "libzk/java/jvm_flags.h"
#include "zkd/server/config_keys.h"

namespace zkd::server {

void apply_jvm_properties(ServerConfig& config, std::string_view server_jvmflags,
                          std::string_view jvmflags) {
  const auto property = [&](std::string_view name) {
    std::string value = zk::java::jvm_system_property(jvmflags, name);
    if (value.empty()) value = zk::java::jvm_system_property(server_jvmflags, name);
    return value;
  };
  // Java's Boolean.getBoolean: "true" in any case, anything else is false.
  if (java_true(property("readonlymode.enabled"))) config.read_only_mode = true;
  if (java_true(property("zookeeper.audit.enable"))) config.audit_enabled = true;
  // Apache reads the superuser's digest from this property only.
  if (std::string digest = property("zookeeper.DigestAuthenticationProvider.superDigest");
      !digest.empty()) {
    config.digest.super_digest = std::move(digest);
  }
}

}  // namespace zkd::server
