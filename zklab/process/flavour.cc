// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/flavour.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace zk::lab {

namespace {

constexpr const char* kDebianSlf4jSimpleJar = "/usr/share/java/slf4j-simple.jar";
constexpr const char* kQuorumPeerMain = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

// `name` on PATH (an executable file), or `fallback`.
std::string find_on_path(const std::string& name, const std::string& fallback) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return fallback;
}

std::string java_of(const ApacheRuntime& runtime) {
  return runtime.java.empty() ? find_on_path("java", "/usr/bin/java") : runtime.java;
}

}  // namespace

std::string_view flavour_name(Flavour flavour) {
  return flavour == Flavour::kApache ? "apache" : "zkd";
}

std::optional<Flavour> parse_flavour(std::string_view name) {
  if (name == "zkd") return Flavour::kZkd;
  if (name == "apache") return Flavour::kApache;
  return std::nullopt;
}

std::vector<std::string> default_apache_java_flags() {
  return {"-XX:TieredStopAtLevel=1",
          "-XX:+UseSerialGC",
          "-Xms32m",
          "-Xmx256m",
          "-Dzookeeper.admin.enableServer=false",
          "-Dzookeeper.jmx.log4j.disable=true",
          "-Dorg.slf4j.simpleLogger.showDateTime=true"};
}

std::vector<std::string> apache_command(const ApacheRuntime& runtime, const std::string& config) {
  std::string classpath = runtime.classpath;
  if (classpath.empty()) {
    classpath = kDebianZookeeperJar;
    if (std::filesystem::exists(kDebianSlf4jSimpleJar)) {
      classpath += std::string(":") + kDebianSlf4jSimpleJar;
    }
  }
  std::vector<std::string> argv{java_of(runtime)};
  argv.insert(argv.end(), runtime.java_flags.begin(), runtime.java_flags.end());
  argv.insert(argv.end(), {"-cp", classpath, kQuorumPeerMain, config});
  return argv;
}

std::string apache_missing(const ApacheRuntime& runtime) {
  if (runtime.classpath.empty() && !std::filesystem::exists(kDebianZookeeperJar)) {
    return std::string("Apache ZooKeeper is not installed (no ") + kDebianZookeeperJar +
           "; Debian's package `zookeeper`)";
  }
  const std::string java = java_of(runtime);
  if (::access(java.c_str(), X_OK) != 0) return "no java executable (" + java + ")";
  return {};
}

}  // namespace zk::lab
