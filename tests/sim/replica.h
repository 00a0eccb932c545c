// SPDX-License-Identifier: Apache-2.0
// One simulated replica: zkd's own code from recovery up, on its own
// MemoryEnv disk, with nothing that runs by itself. Start-up is what
// zkd's Server::open_storage does (recovery, snapshot.0 on an empty disk,
// the real TxnLogWriter at the recovered tail, replica_bootstrap), then
// ReplicaHost carries out the Zab core's Ready. The log is synced only when
// the owner calls sync(); crash() drops every write that was not synced.
//
// The owner (the randomised simulator, sim.cc, or a scripted ensemble,
// ensemble.h) moves messages between replicas and watches each through a
// ReplicaObserver. A broken storage invariant throws Violation.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/server/replica_host.h"
#include "zkd/storage/memory_env.h"
#include "zkd/storage/txn_log.h"
#include "zkd/tree/database.h"
#include "zkd/zab/zab.h"

namespace zk::sim {

// A broken invariant: the simulation stops with it.
struct Violation : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What the simulator knows of a replica's log, kept beside the real one to
// check the invariants: the entries after the newest snapshot, and how far
// they were synced.
struct Disk {
  zkd::zab::Zxid base = 0;           // the newest snapshot's zxid
  std::vector<zkd::zab::Entry> log;  // after base, ascending
  zkd::zab::Zxid durable = 0;        // synced up to here (>= base)
  zkd::zab::Zxid last() const { return log.empty() ? base : log.back().zxid; }
};

// The simulator's hash of txn payloads and tree walks (FNV-1a, 64 bits).
inline uint64_t fnv(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// "server.<id>=127.0.0.1:<port>:<port>:participant|observer": where server
// `id` is, as far as /zookeeper/config and reconfig are concerned (the
// simulated network routes by id).
std::string sim_server_line(zkd::zab::ServerId id, bool observer);

class SimReplica;

// What a replica reports, on the thread that called into it. Storage events
// come after the replica's Disk reflects them.
class ReplicaObserver {
 public:
  virtual ~ReplicaObserver() = default;
  // A message for message.to (a SnapChunk's bytes are `attachment`).
  virtual void send(SimReplica& r, zkd::zab::Message message, std::string attachment) = 0;
  // The attachment bytes sent from `r` to `peer` not delivered yet.
  virtual uint64_t queued_bytes(SimReplica& r, zkd::zab::ServerId peer) = 0;
  virtual void appended(SimReplica& r, zkd::zab::Zxid zxid, std::string_view txn) = 0;
  // `whole`: the log was cleared for a leader's snapshot.
  virtual void truncated(SimReplica& r, zkd::zab::Zxid after, bool whole) = 0;
  // Before and after a committed txn is applied.
  virtual void applying(SimReplica& r, const zkd::tree::Txn& txn) = 0;
  virtual void applied(SimReplica& r, const zkd::tree::Txn& txn) = 0;
  // The tree was replaced (ReplicaEvents::state_replaced).
  virtual void replaced(SimReplica& r, bool installed) = 0;
  virtual void sync_done(SimReplica& r, uint64_t ticket) = 0;
  virtual void status_changed(SimReplica& r, const zkd::zab::Status& now) = 0;
  // The host stopped (a storage error, a snapshot that does not load) or
  // found its tree diverged from the leader's.
  virtual void failed(SimReplica& r, const std::string& why) = 0;
  virtual int64_t now_ms() = 0;
};

class SimReplica final : private zkd::server::ReplicaLog, private zkd::server::ReplicaEvents {
 public:
  // Every replica's data directory (zkd's default layout: snapshots and logs
  // in one version-2).
  static const zkd::server::StorageLayout kLayout;
  // Log segments this small roll often.
  static constexpr uint64_t kSegmentBytes = 4096;
  // Snapshots stream in chunks of two nodes, a few in flight at a time, so
  // that a stream spans several inputs, commits and faults (and still ends
  // well within initLimit, as an operator sets it for the tree's size).
  static constexpr zkd::server::SnapshotStreamLimits kStreamLimits{
      .chunk_nodes = 2, .queued_bytes = 512, .nodes_per_pump = 8};

  // `config.id` is this replica's id; its /zookeeper/config names every
  // voter and observer of `config` at the address sim_server_line() gives.
  SimReplica(zkd::zab::Config config, ReplicaObserver& observer);
  SimReplica(const SimReplica&) = delete;
  SimReplica& operator=(const SimReplica&) = delete;

  // Start-up from what the disk holds; the host is built but not started
  // (host().start() sends the first vote). Checks that every entry synced
  // before the last crash was recovered.
  void start(uint32_t incarnation);
  // A power loss: the host goes, and the disk keeps only what was synced.
  void crash();
  bool up() const { return host_ != nullptr; }
  // Syncs the log and reports it durable to the host.
  void sync();
  bool unsynced() const { return disk_.last() > disk_.durable; }
  // Writes a snapshot of the tree as zkd does (write_snapshot_now); the
  // Disk's base moves there. Errors (an injected one) are returned.
  zkd::Status snapshot();

  zkd::zab::ServerId id() const { return config_.id; }
  // The host, its Env's clocks first moved to the observer's now_ms(), so
  // that the time it reads (the txns' times) is the simulation's.
  zkd::server::ReplicaHost& host() {
    follow_clock();
    return *host_;
  }
  const zkd::zab::Zab& core() const { return host_->core(); }
  const zkd::zab::Status& status() const { return status_; }
  zkd::tree::Database& db() { return db_; }
  const zkd::tree::Database& db() const { return db_; }
  const Disk& disk() const { return disk_; }
  zkd::storage::MemoryEnv& env() { return env_; }

 private:
  // ReplicaLog
  void append(int64_t zxid, zkd::zab::Payload txn) override;
  zkd::Status truncate_after(int64_t zxid) override;
  zkd::Status clear() override;
  // ReplicaEvents
  void send(zkd::zab::Message message, std::string attachment) override;
  uint64_t queued_bytes(zkd::zab::ServerId peer) override;
  void logged(int64_t) override {}
  void abandon_snapshot() override {}
  void applying(const zkd::tree::Txn& txn) override;
  void applied(zkd::tree::Txn txn, zkd::tree::ApplyResult result) override;
  void state_replaced(bool installed) override;
  void touched(const std::vector<std::pair<int64_t, int32_t>>&) override {}
  void sync_done(uint64_t ticket) override;
  void status_changed(const zkd::zab::Status& old, const zkd::zab::Status& now) override;
  void diverged() override;
  void failed(const std::string& why) override;
  void settled() override {}

  [[noreturn]] void fail(const std::string& why) const;
  void truncate(zkd::zab::Zxid after, bool whole);

  zkd::zab::Config config_;
  zkd::tree::DatabaseOptions db_options_;  // /zookeeper/config of config_'s membership
  ReplicaObserver& observer_;
  void follow_clock();

  zkd::storage::MemoryEnv env_;  // the disk: it outlives crashes
  int64_t clock_ms_ = 0;         // the observer's time env_'s clocks were moved to
  Disk disk_;
  zkd::tree::Database db_;
  std::unique_ptr<zkd::storage::TxnLogWriter> writer_;  // null while down
  zkd::zab::Status status_;
  std::unique_ptr<zkd::server::ReplicaHost> host_;  // null while down; uses the above
};

}  // namespace zk::sim
