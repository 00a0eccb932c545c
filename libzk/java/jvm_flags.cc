// SPDX-License-Identifier: Apache-2.0
#include "libzk/java/jvm_flags.h"

#include <cstdlib>
#include <sstream>

namespace zk::java {

std::string jvm_system_property(std::string_view flags, std::string_view name) {
  const std::string prefix = "-D" + std::string(name) + "=";
  std::string value;
  std::istringstream words{std::string(flags)};
  for (std::string word; words >> word;) {
    if (word.starts_with(prefix)) value = word.substr(prefix.size());
  }
  return value;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace zk::java
