// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/version.h"

#include "libzk/version/version.h"

namespace zkd::server {

std::string short_version() { return "3.8.0-zk-" + std::string(zk::version()); }

std::string full_version() {
  return short_version() + ", built on " + std::string(zk::build_date());
}

}  // namespace zkd::server
