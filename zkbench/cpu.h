// SPDX-License-Identifier: Apache-2.0
// The CPU time zkbench itself uses (getrusage(RUSAGE_SELF): every thread of
// the process), so that a saturated client is seen in the report rather than
// mistaken for a slow server.
#pragma once

#include <chrono>

namespace zk::bench {

struct CpuTimes {
  std::chrono::microseconds user{0};
  std::chrono::microseconds system{0};
};

// This process's CPU time so far.
CpuTimes process_cpu_times();

// CPU used over a span of wall-clock time.
struct CpuUsage {
  std::chrono::microseconds user{0};
  std::chrono::microseconds system{0};
  std::chrono::microseconds wall{0};
  int cores = 1;  // online CPUs of the machine

  // (user + system) / wall, in percent of one core; 0 when wall is 0.
  double percent_of_one_core() const;
  // The same as a share of every core of the machine.
  double percent_of_machine() const;
};

// `to` - `from`, over `wall`.
CpuUsage cpu_usage(const CpuTimes& from, const CpuTimes& to, std::chrono::microseconds wall);

}  // namespace zk::bench
