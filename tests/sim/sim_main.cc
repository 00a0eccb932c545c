// SPDX-License-Identifier: Apache-2.0
// zk_sim: runs the simulator over a range of seeds (tests/sim/README.md).
//   zk_sim [--first N] [--seeds K] [--ticks T] [-v]
//   ZK_SIM_SEEDS=K   how many seeds (overrides --seeds)
//   ZK_SIM_SEED=N    replay one seed (with -v: every event)
//   ZK_SIM_SHORT_BREAKS=1  links may come back after silently losing messages
// Exit status 1 on the first violation, which names its seed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/sim/sim.h"

int main(int argc, char** argv) {
  uint64_t first = 1;
  uint64_t seeds = 100;
  int ticks = 250;
  bool verbose = false;
  const bool short_breaks = std::getenv("ZK_SIM_SHORT_BREAKS") != nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-v") {
      verbose = true;
    } else if (a == "--first" && i + 1 < argc) {
      first = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--seeds" && i + 1 < argc) {
      seeds = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--ticks" && i + 1 < argc) {
      ticks = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: zk_sim [--first N] [--seeds K] [--ticks T] [-v]\n");
      return 2;
    }
  }
  if (const char* env = std::getenv("ZK_SIM_SEEDS")) seeds = std::strtoull(env, nullptr, 10);
  if (const char* env = std::getenv("ZK_SIM_SEED")) {
    first = std::strtoull(env, nullptr, 10);
    seeds = 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  zk::sim::Stats total;
  for (uint64_t s = first; s < first + seeds; ++s) {
    const zk::sim::Result r = zk::sim::run({.seed = s,
                                            .fault_ticks = ticks,
                                            .heal_ticks = ticks,
                                            .verbose = verbose,
                                            .short_breaks = short_breaks});
    total.commits += r.stats.commits;
    total.crashes += r.stats.crashes;
    total.snaps += r.stats.snaps;
    total.fuzzy_snaps += r.stats.fuzzy_snaps;
    total.rebuilds += r.stats.rebuilds;
    total.leaders += r.stats.leaders;
    total.syncs_done += r.stats.syncs_done;
    total.observers += r.stats.observers;
    total.informs += r.stats.informs;
    total.transfers += r.stats.transfers;
    total.reconfigs += r.stats.reconfigs;
    for (const auto& [name, fired] : r.stats.failpoints) total.failpoints[name] += fired;
    if (!r.ok) {
      std::fprintf(stderr, "%s", r.failure.c_str());
      return 1;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "zk_sim: seeds %llu..%llu ok in %.1fs: %lld commits, %lld leaders, %lld crashes, "
      "%lld snapshots installed (%lld fuzzy), %lld rebuilds, %lld syncs, %lld observers, %lld "
      "informs, "
      "%lld transfers, %lld reconfigs\n",
      static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + seeds - 1),
      secs, static_cast<long long>(total.commits), static_cast<long long>(total.leaders),
      static_cast<long long>(total.crashes), static_cast<long long>(total.snaps),
      static_cast<long long>(total.fuzzy_snaps), static_cast<long long>(total.rebuilds),
      static_cast<long long>(total.syncs_done), static_cast<long long>(total.observers),
      static_cast<long long>(total.informs), static_cast<long long>(total.transfers),
      static_cast<long long>(total.reconfigs));
  std::printf("zk_sim: failpoints fired:");
  for (const auto& [name, fired] : total.failpoints) {
    std::printf(" %s %lld", name.c_str(), static_cast<long long>(fired));
  }
  std::printf("\n");
  return 0;
}
