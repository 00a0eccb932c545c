// SPDX-License-Identifier: Apache-2.0
// The whole-server simulation: a real zkd::server::Server, every part of it
// (ClientService, ClientRegistry, Sessions, WritePath, the log, the snapshot
// service, StatusView) on a MemoryEnv disk and its simulated time, started
// without sockets (Server::Listeners::kNone). Simulated clients connect
// through connections of the simulator's own, speak the wire protocol
// (sessions, reads, writes, conditional writes, ephemerals, watches, pings),
// go silent so that their sessions expire, and reconnect; the server crashes
// (the disk keeps only what was synced) and restarts. Every client's history
// is checked at the end with zklab's checker (linearizable registers,
// ephemerals present exactly while their session lives, watch events in
// order and for acknowledged writes).
//
// Everything is drawn from one seed. Simulated time moves only between the
// simulator's steps, and each step lets the server finish what it started
// (the log thread's answers) before the next, so a seed replays the same run.
// The servers, their logs and their network are a SimEnsemble
// (sim_ensemble.h).
#pragma once

#include <cstdint>
#include <string>

namespace zk::sim {

struct ServerSimOptions {
  uint64_t seed = 1;
  int steps = 600;  // simulated steps of 20 ms, with faults and load
  int servers = 1;  // 1: standalone; 3 or 5: an ensemble on a simulated network
  int clients = 4;  // simulated clients
  bool verbose = false;
};

struct ServerSimStats {
  int64_t sessions_created = 0;
  int64_t sessions_expired = 0;  // expired by the server, seen by their client
  int64_t restarts = 0;          // crashes of a server, each followed by a restart
  int64_t partitions = 0;        // a server cut off from its peers for a while
  int64_t operations = 0;        // register operations recorded (every outcome)
  int64_t acknowledged = 0;      // of which answered ok
  int64_t watch_events = 0;
  int64_t histories_checked = 0;  // client histories the checker judged
};

struct ServerSimResult {
  bool ok = true;
  std::string failure;  // the violation, with the seed to replay it
  ServerSimStats stats;
};

// Runs one simulation; deterministic in `options`.
ServerSimResult run_server_sim(const ServerSimOptions& options);

}  // namespace zk::sim
