// SPDX-License-Identifier: Apache-2.0
// The whole-server simulation (server_sim.h) over many seeds. By default the
// seeds 1..kDefaultSeeds; ZK_SIM_SEEDS=A..B (or =K for 1..K) runs others,
// ZK_SIM_SEED=N replays one (with ZK_SIM_VERBOSE=1: every event).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "tests/sim/server/server_sim.h"

namespace zk::sim {
namespace {

// A sanitized Debug build runs about 20x slower: fewer seeds there.
#ifdef ZK_SIM_FEWER_SEEDS
constexpr uint64_t kDefaultSeeds = 30;
constexpr uint64_t kDefaultEnsembleSeeds = 10;
#else
constexpr uint64_t kDefaultSeeds = 300;
constexpr uint64_t kDefaultEnsembleSeeds = 100;
#endif

// The seeds to run: [first, last].
std::pair<uint64_t, uint64_t> seed_range(uint64_t default_seeds) {
  if (const char* one = std::getenv("ZK_SIM_SEED")) {
    const uint64_t seed = std::strtoull(one, nullptr, 10);
    return {seed, seed};
  }
  if (const char* range = std::getenv("ZK_SIM_SEEDS")) {
    const std::string text = range;
    const auto dots = text.find("..");
    if (dots == std::string::npos) return {1, std::strtoull(range, nullptr, 10)};
    return {std::strtoull(text.substr(0, dots).c_str(), nullptr, 10),
            std::strtoull(text.substr(dots + 2).c_str(), nullptr, 10)};
  }
  return {1, default_seeds};
}

// Runs the seeds on `servers` servers; the totals, printed.
void run_seeds(int servers, uint64_t default_seeds) {
  const auto [first, last] = seed_range(default_seeds);
  ASSERT_LE(first, last);
  ServerSimStats total;
  for (uint64_t seed = first; seed <= last; ++seed) {
    ServerSimResult result = run_server_sim(
        {.seed = seed, .servers = servers, .verbose = std::getenv("ZK_SIM_VERBOSE") != nullptr});
    ASSERT_TRUE(result.ok) << "seed " << seed << ":\n" << result.failure;
    total.sessions_created += result.stats.sessions_created;
    total.sessions_expired += result.stats.sessions_expired;
    total.restarts += result.stats.restarts;
    total.partitions += result.stats.partitions;
    total.operations += result.stats.operations;
    total.acknowledged += result.stats.acknowledged;
    total.watch_events += result.stats.watch_events;
    total.histories_checked += result.stats.histories_checked;
  }
  std::printf(
      "%d server(s), seeds %llu..%llu: %lld client histories checked, %lld sessions created, "
      "%lld expired, %lld restarts, %lld partitions, %lld register operations (%lld "
      "acknowledged), %lld watch events\n",
      servers, static_cast<unsigned long long>(first), static_cast<unsigned long long>(last),
      static_cast<long long>(total.histories_checked),
      static_cast<long long>(total.sessions_created),
      static_cast<long long>(total.sessions_expired), static_cast<long long>(total.restarts),
      static_cast<long long>(total.partitions), static_cast<long long>(total.operations),
      static_cast<long long>(total.acknowledged), static_cast<long long>(total.watch_events));
  // The runs did what they are for: sessions expired in simulated time,
  // servers restarted, writes were acknowledged and watches fired.
  if (last - first + 1 >= default_seeds) {
    EXPECT_GT(total.sessions_expired, 0);
    EXPECT_GT(total.restarts, 0);
    EXPECT_GT(total.acknowledged, 0);
    EXPECT_GT(total.watch_events, 0);
    if (servers > 1) {
      EXPECT_GT(total.partitions, 0);
    }
  }
}

TEST(ServerSim, AStandaloneServersClientHistoriesCheckOut) { run_seeds(1, kDefaultSeeds); }

TEST(ServerSim, AnEnsemblesClientHistoriesCheckOut) { run_seeds(3, kDefaultEnsembleSeeds); }

}  // namespace
}  // namespace zk::sim
