// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/proc_stats.h"

#include <fstream>
#include <string>

namespace zk::lab {

int64_t resident_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

}  // namespace zk::lab
