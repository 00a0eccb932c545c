// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/database_options.h"

#include "zkd/net/log.h"

namespace zkd::server {

tree::DatabaseOptions database_options(const ServerConfig& config) {
  tree::DatabaseOptions options;
  options.extended_types = config.extended_types_enabled;
  options.enforce_quota = config.enforce_quota;
  options.quota_warning = [](const std::string& line) { net::log_warn(line); };
  return options;
}

}  // namespace zkd::server
