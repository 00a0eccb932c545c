// SPDX-License-Identifier: Apache-2.0
// What srvr, mntr and envi report as the server version: Apache's release
// this server is compatible with, then zk's (libzk/version/version.h), then
// the build date: "3.8.0-zk-0.1.0, built on 2024-11-21 14:00 UTC".
#pragma once

#include <string>

namespace zkd::server {

std::string full_version();   // with ", built on <date>"
std::string short_version();  // "3.8.0-zk-0.1.0"

}  // namespace zkd::server
