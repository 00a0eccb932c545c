// SPDX-License-Identifier: Apache-2.0
#include "zkbench/cpu.h"

#include <sys/resource.h>
#include <sys/time.h>

#include <algorithm>
#include <thread>

namespace zk::bench {

namespace {

std::chrono::microseconds to_micros(const timeval& tv) {
  return std::chrono::seconds(tv.tv_sec) + std::chrono::microseconds(tv.tv_usec);
}

}  // namespace

CpuTimes process_cpu_times() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return {};
  return {to_micros(usage.ru_utime), to_micros(usage.ru_stime)};
}

double CpuUsage::percent_of_one_core() const {
  if (wall.count() <= 0) return 0;
  return 100.0 * static_cast<double>((user + system).count()) / static_cast<double>(wall.count());
}

double CpuUsage::percent_of_machine() const { return percent_of_one_core() / std::max(cores, 1); }

CpuUsage cpu_usage(const CpuTimes& from, const CpuTimes& to, std::chrono::microseconds wall) {
  CpuUsage u;
  u.user = to.user - from.user;
  u.system = to.system - from.system;
  u.wall = wall;
  u.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return u;
}

}  // namespace zk::bench
