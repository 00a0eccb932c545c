// SPDX-License-Identifier: Apache-2.0
// What the servers can take, as `zkbench flood` measures it before it
// floods them (unless --capacity gives it): kCapacitySessions well-behaved
// sessions of zkbench's engine (engine.h), closed loop with
// kCapacityInFlight requests in flight each, doing the pipeline flood's mix
// (get=60,set=30,create=10, 100-byte values, keys <root>/cap/k0..k15) for
// one second of warm-up and kCapacitySeconds measured.
#pragma once

#include <string>

#include "toolkit/session_pool.h"

namespace zk::bench::flood {

inline constexpr int kCapacitySessions = 4;
inline constexpr int kCapacityInFlight = 4;
inline constexpr int kCapacitySeconds = 3;

struct Capacity {
  std::string error;  // not empty: not measured (why)
  double ops_per_s = 0;
  int64_t errors = 0;  // requests that failed while measuring
};

// `pool` gives the servers, timeouts and security; its sessions and threads
// are replaced by the above.
Capacity measure_capacity(const toolkit::SessionPoolOptions& pool, const std::string& root);

}  // namespace zk::bench::flood
