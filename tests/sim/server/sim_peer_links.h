// SPDX-License-Identifier: Apache-2.0
// The peer links of simulated servers (zkd/peer/peer_links.h) over one
// simulated network: a packet goes into the network at send() and reaches
// its peer when the simulator calls deliver(), in order per link, unless a
// side is down or cut off by then (then it is lost, as on a broken TCP
// link). A link is up while both servers run and neither is isolated; when
// it goes down each side is told (link_down), when the simulator says.
#pragma once

#include <boost/system/error_code.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "zkd/peer/peer_links.h"

namespace zk::sim {

class SimPeerLinks;

class SimNetwork {
 public:
  // Delivers every packet in the network, those sent meanwhile included;
  // returns how many arrived.
  size_t deliver();
  // Cuts `id` off from every peer (true) or joins it again (false).
  void isolate(zkd::zab::ServerId id, bool isolated);
  bool isolated(zkd::zab::ServerId id) const { return isolated_.count(id) != 0; }
  bool linked(zkd::zab::ServerId a, zkd::zab::ServerId b) const {
    return a != b && nodes_.count(a) != 0 && nodes_.count(b) != 0 && !isolated(a) && !isolated(b);
  }

 private:
  friend class SimPeerLinks;
  struct InFlight {
    zkd::zab::ServerId from = 0;
    zkd::zab::ServerId to = 0;
    zkd::net::PeerPacket packet;
  };
  void attach(zkd::zab::ServerId id, SimPeerLinks* links);
  void detach(zkd::zab::ServerId id);
  void send(zkd::zab::ServerId from, zkd::net::PeerPacket packet);
  // Tells both ends of every link of `id` that was up that it is down.
  void links_down(zkd::zab::ServerId id, const std::set<zkd::zab::ServerId>& peers);

  std::map<zkd::zab::ServerId, SimPeerLinks*> nodes_;
  std::set<zkd::zab::ServerId> isolated_;
  std::deque<InFlight> in_flight_;
};

class SimPeerLinks final : public zkd::net::PeerLinks {
 public:
  SimPeerLinks(SimNetwork& network, zkd::zab::ServerId self, Receive receive)
      : network_(network), self_(self), receive_(std::move(receive)) {}
  ~SimPeerLinks() override { stop(); }

  boost::system::error_code start() override {
    network_.attach(self_, this);
    started_ = true;
    return {};
  }
  void send(zkd::net::PeerPacket packet) override {
    if (started_) network_.send(self_, std::move(packet));
  }
  void stop() override {
    if (!started_) return;
    started_ = false;
    network_.detach(self_);
  }
  void add_peer(zkd::net::PeerAddress) override {}
  void on_link_down(std::function<void(zkd::zab::ServerId peer)> down) override {
    down_ = std::move(down);
  }
  bool connected(zkd::zab::ServerId peer) const override { return network_.linked(self_, peer); }
  uint64_t queued_bytes(zkd::zab::ServerId) const override { return 0; }
  void on_drained(std::function<void(zkd::zab::ServerId peer)>) override {}

 private:
  friend class SimNetwork;
  SimNetwork& network_;
  zkd::zab::ServerId self_;
  Receive receive_;
  std::function<void(zkd::zab::ServerId)> down_;
  bool started_ = false;
};

inline void SimNetwork::attach(zkd::zab::ServerId id, SimPeerLinks* links) { nodes_[id] = links; }

inline void SimNetwork::detach(zkd::zab::ServerId id) {
  std::set<zkd::zab::ServerId> peers;
  for (const auto& [peer, links] : nodes_) {
    if (linked(id, peer)) peers.insert(peer);
  }
  nodes_.erase(id);
  // Only the others hear of it: a stopped server is told nothing more.
  for (zkd::zab::ServerId peer : peers) {
    if (auto it = nodes_.find(peer); it != nodes_.end() && it->second->down_) it->second->down_(id);
  }
}

inline void SimNetwork::links_down(zkd::zab::ServerId id,
                                   const std::set<zkd::zab::ServerId>& peers) {
  for (zkd::zab::ServerId peer : peers) {
    if (auto it = nodes_.find(peer); it != nodes_.end() && it->second->down_) it->second->down_(id);
    if (auto it = nodes_.find(id); it != nodes_.end() && it->second->down_) it->second->down_(peer);
  }
}

inline void SimNetwork::isolate(zkd::zab::ServerId id, bool cut) {
  if (cut == isolated(id)) return;
  if (!cut) {
    isolated_.erase(id);
    return;
  }
  std::set<zkd::zab::ServerId> peers;
  for (const auto& [peer, links] : nodes_) {
    if (linked(id, peer)) peers.insert(peer);
  }
  isolated_.insert(id);
  links_down(id, peers);
}

inline void SimNetwork::send(zkd::zab::ServerId from, zkd::net::PeerPacket packet) {
  const zkd::zab::ServerId to = packet.message.to;
  if (!linked(from, to)) return;  // a link that is down loses it
  in_flight_.push_back(InFlight{from, to, std::move(packet)});
}

inline size_t SimNetwork::deliver() {
  size_t delivered = 0;
  while (!in_flight_.empty()) {
    InFlight next = std::move(in_flight_.front());
    in_flight_.pop_front();
    if (!linked(next.from, next.to)) continue;
    ++delivered;
    nodes_[next.to]->receive_(std::move(next.packet));
  }
  return delivered;
}

}  // namespace zk::sim
