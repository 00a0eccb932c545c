// SPDX-License-Identifier: Apache-2.0
#include "zkbench/flood_capacity.h"

#include <algorithm>
#include <thread>

#include "zkbench/engine.h"
#include "zkbench/flood_clients.h"
#include "zkbench/report.h"

namespace zk::bench::flood {

Capacity measure_capacity(const toolkit::SessionPoolOptions& pool, const std::string& root) {
  EngineOptions o;
  o.pool = pool;
  o.pool.sessions = kCapacitySessions;
  o.pool.threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u,
                                               static_cast<unsigned>(kCapacitySessions)));
  o.in_flight = kCapacityInFlight;
  o.workload.mix = parse_mix("get=60,set=30,create=10").mix;
  o.workload.keys.znodes = kFloodKeys;
  o.workload.value_bytes = 100;
  o.root = root + "/cap";
  o.warmup = std::chrono::seconds(1);
  o.duration = std::chrono::seconds(kCapacitySeconds);
  Capacity c;
  Engine engine(o);
  if (std::string e = engine.connect(); !e.empty()) {
    c.error = "capacity: " + e;
    return c;
  }
  if (std::string e = engine.setup(); !e.empty()) {
    c.error = "capacity: " + e;
    return c;
  }
  const RunResult r = engine.run();
  if (!r.error.empty()) {
    c.error = "capacity: " + r.error;
    return c;
  }
  const OpFigures total = r.figures.total();
  c.ops_per_s = ops_per_second(total.requests(), r);
  c.errors = total.error_count();
  if (c.ops_per_s <= 0) c.error = "capacity: no request answered";
  return c;
}

}  // namespace zk::bench::flood
