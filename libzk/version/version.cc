// SPDX-License-Identifier: Apache-2.0
#include "libzk/version/version.h"

#ifndef ZK_VERSION
#error "ZK_VERSION is set by libzk/version/CMakeLists.txt"
#endif
#ifndef ZK_BUILD_DATE
#error "ZK_BUILD_DATE is set by libzk/version/CMakeLists.txt"
#endif

namespace zk {

std::string_view version() { return ZK_VERSION; }

std::string_view build_date() { return ZK_BUILD_DATE; }

std::string version_line(std::string_view tool) {
  std::string line(tool);
  line += " (zk) ";
  line += version();
  line += ", built on ";
  line += build_date();
  return line;
}

}  // namespace zk
