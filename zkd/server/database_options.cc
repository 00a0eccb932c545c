// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/database_options.h"

#include <chrono>

#include "zkd/log/log.h"
#include "zkd/server/membership.h"

namespace zkd::server {

tree::DatabaseOptions database_options(const ServerConfig& config) {
  tree::DatabaseOptions options;
  options.extended_types = config.extended_types_enabled;
  options.enforce_quota = config.enforce_quota;
  options.quota_warning = [](const std::string& line) { net::log_warn(line); };
  if (config.replicated()) {
    // mtime: when this server read its configuration.
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    options.config_node = tree::DatabaseOptions::ConfigNode{
        membership_text(config, config.config_version), config.config_version,
        std::chrono::duration_cast<std::chrono::milliseconds>(now).count()};
  }
  return options;
}

}  // namespace zkd::server
