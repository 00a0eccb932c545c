// SPDX-License-Identifier: Apache-2.0
// Whole zkd servers (zkd::server::Server, every part of it) on one
// io_context, each on its own MemoryEnv disk with simulated time, started
// without sockets (Server::Listeners::kNone): their txn logs are
// SimServerLogs (sim_server_log.h) and, in an ensemble, their peer links
// are SimPeerLinks on one SimNetwork (sim_peer_links.h). Time moves only
// when advance() moves it, 1 ms at a time on every server, each millisecond
// followed by settle(), so the same calls replay the same run. The
// whole-server simulation (server_sim.h) and the replication unit tests
// (tests/unit/zkd/server/replication_test.cc) run their servers on it.
//
// Failures (a server that does not recover or start, servers that do not
// settle) are thrown as std::runtime_error.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/sim/server/sim_peer_links.h"
#include "tests/sim/server/sim_server_log.h"
#include "zkd/net/queued_client_connection.h"
#include "zkd/server/config.h"
#include "zkd/server/server.h"
#include "zkd/storage/memory_env.h"

namespace zk::sim {

class SimEnsemble {
 public:
  // One server; `server` is unset while it is down.
  struct Node {
    zkd::zab::ServerId id = 0;  // 0 standalone, else 1..N (myid)
    std::unique_ptr<zkd::storage::MemoryEnv> env;
    zkd::server::ServerConfig config;
    std::unique_ptr<zkd::server::Server> server;
    SimServerLog* log = nullptr;  // the server's, while it runs
  };

  // `servers` servers configured by `zoo_cfg` (no server.N lines: with more
  // than one server they are added, server i+1 for node i); node i's disk
  // draws from `seed` * 31 + i. None runs yet.
  SimEnsemble(const std::string& zoo_cfg, int servers, uint64_t seed);
  ~SimEnsemble();
  SimEnsemble(const SimEnsemble&) = delete;
  SimEnsemble& operator=(const SimEnsemble&) = delete;

  size_t size() const { return nodes_.size(); }
  Node& node(size_t i) { return nodes_.at(i); }
  boost::asio::io_context& io() { return io_; }
  SimNetwork& network() { return network_; }

  // Constructs node i's server with random draws from `seed`, recovers it
  // from its disk and starts it.
  void start(size_t i, uint64_t seed);
  // Node i's server (which must run) stops and is destroyed; its disk keeps
  // only what was synced (MemoryEnv::drop_unsynced).
  void crash(size_t i);
  // Stops every server that runs (its log synced, as at a clean stop).
  void stop_all();

  // Moves every server's clock on by `by`, 1 ms at a time, each followed by
  // settle(): the servers' timers fire, and what they start runs to its end,
  // before time moves again.
  void advance(std::chrono::milliseconds by);
  // Runs the state thread, the network and the logs until nothing is left
  // to do now: no handler ready, no packet in flight, no txn unsynced.
  void settle();

  // Whether node i runs and serves reads and writes (its isro answer).
  bool serves(size_t i);
  // A new client connection to node i's server (which must run), opened.
  std::shared_ptr<zkd::net::QueuedClientConnection> open(size_t i);

 private:
  boost::asio::io_context io_;
  // The io_context never runs out of work, so poll() needs no restart.
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  SimNetwork network_;  // outlives the servers' links
  std::vector<Node> nodes_;
  zkd::net::ConnectionId ids_ = 0;
};

}  // namespace zk::sim
