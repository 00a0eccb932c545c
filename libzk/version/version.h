// SPDX-License-Identifier: Apache-2.0
// The one version of zk that every tool reports: zkd, zkctl, zklab and
// zkbench print version_line() for --version, and zkd's srvr, mntr and envi
// build Apache's "Zookeeper version" from version() (zkd/server/version.h).
// The number is the project's VERSION in the top-level CMakeLists.txt; the
// date is when the build was configured. No state, no allocation at start-up.
#pragma once

#include <string>
#include <string_view>

namespace zk {

// "0.1.0"
std::string_view version();
// "2026-11-26 12:00 UTC"
std::string_view build_date();
// What `TOOL --version` prints: "zkctl (zk) 0.1.0, built on 2026-11-26 12:00 UTC".
std::string version_line(std::string_view tool);

}  // namespace zk
