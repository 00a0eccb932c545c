// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/version.h"

#ifndef ZKD_VERSION
#define ZKD_VERSION "0.0.0"
#endif
#ifndef ZKD_BUILD_DATE
#define ZKD_BUILD_DATE "unknown"
#endif

namespace zkd::server {

std::string short_version() { return std::string("3.8.0-zk-") + ZKD_VERSION; }

std::string full_version() { return short_version() + ", built on " + ZKD_BUILD_DATE; }

}  // namespace zkd::server
