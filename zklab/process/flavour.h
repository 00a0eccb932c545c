// SPDX-License-Identifier: Apache-2.0
// Which server a node runs, zkd or Apache ZooKeeper 3.8, and how an Apache
// one is started: java running QuorumPeerMain on its zoo.cfg, from Debian's
// jars (the `zookeeper` package). Shared by Ensemble (ensemble.h) and the
// zklab tool's mixed labs (lab_state.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zk::lab {

enum class Flavour { kZkd, kApache };

// "zkd" or "apache".
std::string_view flavour_name(Flavour flavour);
// The flavour named "zkd" or "apache"; nothing for any other name.
std::optional<Flavour> parse_flavour(std::string_view name);

// Debian's jar of Apache ZooKeeper (its manifest names its dependencies).
inline constexpr const char* kDebianZookeeperJar = "/usr/share/java/zookeeper.jar";

// JVM flags that favour start-up speed and a small footprint (C1 only,
// serial GC, small heap) and turn off the admin server (it would bind :8080
// on every node of a machine).
std::vector<std::string> default_apache_java_flags();

struct ApacheRuntime {
  std::string java;       // empty: `java` on PATH, else /usr/bin/java
  std::string classpath;  // empty: Debian's jar, plus slf4j-simple.jar when installed (the log)
  std::vector<std::string> java_flags = default_apache_java_flags();
};

// The argv of an Apache server on `config`: java, its flags, the class
// path, QuorumPeerMain, `config` (the last argument, which is how a pid is
// recognised as the node's: lab_daemon.h).
std::vector<std::string> apache_command(const ApacheRuntime& runtime, const std::string& config);

// Empty when an Apache server can be started with `runtime`; else what is
// missing (Debian's jar, java).
std::string apache_missing(const ApacheRuntime& runtime = {});

}  // namespace zk::lab
