// SPDX-License-Identifier: Apache-2.0
// Java system properties as Apache's scripts pass them: zkServer.sh gives
// the server's JVM SERVER_JVMFLAGS (and JVMFLAGS), zkCli.sh gives the
// client's CLIENT_JVMFLAGS, each a blank-separated list of -Dname=value
// flags. zk's programs read the same variables for the same properties.
#pragma once

#include <string>
#include <string_view>

namespace zk::java {

// The value of -D<name>=VALUE in a JVM flags string (blank-separated, as a
// shell splits an unquoted variable); "" when absent. The last one wins.
std::string jvm_system_property(std::string_view flags, std::string_view name);

// The environment variable `name`, "" when unset.
std::string environment(const char* name);

}  // namespace zk::java
