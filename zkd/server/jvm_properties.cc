// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/jvm_properties.h"

#include <string>

#include "libzk/java/jvm_flags.h"
#include "zkd/server/config_keys.h"

namespace zkd::server {

void apply_jvm_properties(ServerConfig& config, std::string_view server_jvmflags,
                          std::string_view jvmflags) {
  constexpr std::string_view kReadOnly = "readonlymode.enabled";
  std::string value = zk::java::jvm_system_property(jvmflags, kReadOnly);
  if (value.empty()) value = zk::java::jvm_system_property(server_jvmflags, kReadOnly);
  // Java's Boolean.getBoolean: "true" in any case, anything else is false.
  if (java_true(value)) config.read_only_mode = true;
}

}  // namespace zkd::server
