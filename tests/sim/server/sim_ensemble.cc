// SPDX-License-Identifier: Apache-2.0
#include "tests/sim/server/sim_ensemble.h"

#include <functional>
#include <stdexcept>
#include <utility>

namespace zk::sim {

using std::chrono::milliseconds;

SimEnsemble::SimEnsemble(const std::string& zoo_cfg, int servers, uint64_t seed) {
  std::string text = zoo_cfg;
  if (servers > 1) {
    for (int id = 1; id <= servers; ++id) {
      text += "server." + std::to_string(id) + "=127.0.0.1:" + std::to_string(2880 + id) + ":" +
              std::to_string(3880 + id) + "\n";
    }
  }
  auto parsed = zkd::server::parse_config(text, "zoo.cfg");
  if (!parsed.config) throw std::runtime_error("zoo.cfg: " + parsed.error.message());
  nodes_.resize(static_cast<size_t>(servers));
  for (size_t i = 0; i < nodes_.size(); ++i) {
    nodes_[i].id = servers > 1 ? static_cast<zkd::zab::ServerId>(i + 1) : 0;
    nodes_[i].env = std::make_unique<zkd::storage::MemoryEnv>(seed * 31 + i);
    nodes_[i].config = *parsed.config;
    nodes_[i].config.my_id = static_cast<int64_t>(nodes_[i].id);
  }
}

SimEnsemble::~SimEnsemble() { stop_all(); }

void SimEnsemble::start(size_t i, uint64_t seed) {
  Node& node = nodes_.at(i);
  node.server = std::make_unique<zkd::server::Server>(io_, node.config, zkd::server::Security{},
                                                      *node.env, seed);
  node.server->use_log([&node](std::unique_ptr<zkd::storage::TxnLogWriter> writer,
                               std::function<void(const zkd::server::LogBatch&)> report) {
    auto log = std::make_unique<SimServerLog>(std::move(writer), std::move(report));
    node.log = log.get();
    return log;
  });
  node.server->use_peer_links([this](zkd::zab::ServerId self, std::vector<zkd::net::PeerAddress>,
                                     zkd::net::PeerLinks::Receive receive) {
    return std::make_unique<SimPeerLinks>(network_, self, std::move(receive));
  });
  if (auto status = node.server->open_storage(); !status.ok()) {
    throw std::runtime_error("server " + std::to_string(node.id) +
                             " did not recover: " + status.message());
  }
  if (auto ec = node.server->start(zkd::server::Server::Listeners::kNone)) {
    throw std::runtime_error("the server did not start: " + ec.message());
  }
}

void SimEnsemble::crash(size_t i) {
  Node& node = nodes_.at(i);
  node.server->stop();
  io_.poll();
  node.server.reset();
  node.log = nullptr;
  node.env->drop_unsynced();
}

void SimEnsemble::stop_all() {
  for (Node& node : nodes_) {
    if (node.server) node.server->stop();
  }
  io_.poll();
}

void SimEnsemble::advance(milliseconds by) {
  for (milliseconds done{0}; done < by; done += milliseconds(1)) {
    for (Node& node : nodes_) node.env->time().advance(milliseconds(1));
    settle();
  }
}

void SimEnsemble::settle() {
  for (int round = 0; round < 100000; ++round) {
    bool busy = false;
    while (io_.poll() > 0) busy = true;
    if (network_.deliver() > 0) busy = true;
    for (Node& node : nodes_) {
      if (node.log != nullptr && node.log->sync()) busy = true;
    }
    if (!busy) return;
  }
  throw std::runtime_error("the servers did not settle (a livelock?)");
}

bool SimEnsemble::serves(size_t i) {
  Node& node = nodes_.at(i);
  if (!node.server) return false;
  zkd::net::QueuedClientConnection probe(io_, node.server->client_handler(), ++ids_);
  return node.server->client_handler().four_letter_word(probe, "isro", "") == "rw";
}

std::shared_ptr<zkd::net::QueuedClientConnection> SimEnsemble::open(size_t i) {
  zkd::net::ConnectionHandler& handler = nodes_.at(i).server->client_handler();
  auto connection = std::make_shared<zkd::net::QueuedClientConnection>(io_, handler, ++ids_);
  handler.opened(connection);
  return connection;
}

}  // namespace zk::sim
