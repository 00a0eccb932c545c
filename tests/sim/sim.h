// SPDX-License-Identifier: Apache-2.0
// The deterministic simulator: N replicas of zkd's replica host
// (zkd/server/replica_host.h: the Zab core, recovery, the txn log writer and
// the tree), each on its own in-memory disk (zkd::storage::MemoryEnv, which
// loses unsynced writes at a crash), on a simulated network
// (per-link FIFO, random delays, link breaks, partitions), with crashes,
// restarts and random client writes and syncs. Everything is drawn from one
// seed; invariants are checked after every step. See tests/sim/README.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace zk::sim {

struct Options {
  uint64_t seed = 0;
  int fault_ticks = 250;  // ticks of random faults and client load
  int heal_ticks = 250;   // then: no faults; all must converge within this
  bool verbose = false;   // print every event
  // Links may break for less than sync_limit and come back having silently
  // lost messages (a reconnect the core is not told about). Off by default:
  // the core does not always notice such losses (see README.md).
  bool short_breaks = false;
};

struct Stats {
  int64_t commits = 0;  // entries in the global committed sequence
  int64_t crashes = 0;
  int64_t snaps = 0;        // snapshots installed from a leader
  int64_t fuzzy_snaps = 0;  // of which the leader's walk caught txns after the snapshot's zxid
  int64_t rebuilds = 0;     // state machine rebuilt after a truncate
  int64_t leaders = 0;      // established (epoch, leader) pairs
  int64_t syncs_done = 0;
  int64_t observers = 0;  // observer replicas in the ensemble
  int64_t informs = 0;    // Inform messages delivered to observers
  int64_t transfers = 0;  // leadership transfers a leader took (host().transfer ok)
  int64_t reconfigs = 0;  // membership changes committed (reconfig txns)
  // Failpoints that fired (a replica crashed there, or an operation failed),
  // by name.
  std::map<std::string, int64_t> failpoints;
};

struct Result {
  bool ok = true;
  std::string failure;  // the violation, the seed and the last events
  Stats stats;
};

// Runs one simulation; deterministic in `options`.
Result run(const Options& options);

}  // namespace zk::sim
