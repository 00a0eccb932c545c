// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/database_options.h"

#include "zkd/log/log.h"
#include "zkd/server/membership.h"

namespace zkd::server {

tree::DatabaseOptions database_options(const ServerConfig& config, int64_t now_wall_ms) {
  tree::DatabaseOptions options;
  options.extended_types = config.extended_types_enabled;
  options.enforce_quota = config.enforce_quota;
  options.quota_warning = [](const std::string& line) { net::log_warn(line); };
  if (config.replicated()) {
    options.config_node = tree::DatabaseOptions::ConfigNode{
        membership_text(config, config.config_version), config.config_version, now_wall_ms};
  }
  return options;
}

}  // namespace zkd::server
