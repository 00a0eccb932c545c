// SPDX-License-Identifier: Apache-2.0
// A scripted ensemble of simulated replicas (replica.h: zkd's own code on
// MemoryEnv disks) for scenario tests, such as the regressions of Apache
// ZooKeeper's data-loss bugs: nothing happens unless the test does it.
// Messages wait in per-link FIFO queues; a cut link drops what is in flight
// and everything sent over it until reconnected. A replica's log is synced
// after each of its inputs unless the test holds its syncs back. A failpoint
// armed with arm() crashes the replica that reaches it (it stays down until
// started).
//
// Single-threaded; the test owns the clock (ticks). ZK_ENSEMBLE_VERBOSE=1
// prints what happens.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/sim/replica.h"
#include "zkd/zab/zab.h"

namespace zk::sim {

class Ensemble final : public ReplicaObserver {
 public:
  // Voters 1..voters, with the simulator's timing (the core ticks; a
  // message takes no time) and `commit_window` entries kept for DIFFs.
  explicit Ensemble(size_t voters, size_t commit_window = 1000);
  ~Ensemble() override;

  SimReplica& replica(zkd::zab::ServerId id) { return *replicas_.at(id - 1); }
  void start(zkd::zab::ServerId id);
  void crash(zkd::zab::ServerId id);

  // The link between a and b, both ways.
  void cut(zkd::zab::ServerId a, zkd::zab::ServerId b);
  void reconnect(zkd::zab::ServerId a, zkd::zab::ServerId b);
  // Every link of `id`.
  void isolate(zkd::zab::ServerId id);
  void reconnect_all();

  // While held, `id`'s log is synced only by sync().
  void hold_syncs(zkd::zab::ServerId id, bool held);
  void sync(zkd::zab::ServerId id);

  // Arms a failpoint (failpoint.h syntax); the replica that reaches it
  // crashes there. Returns false (and the test fails) on a bad spec.
  bool arm(const std::string& spec);
  // The replica that died at a failpoint since the last call, if any.
  std::optional<zkd::zab::ServerId> died();

  // Delivers what is queued and ticks every replica that is up, until
  // `done` or `max_ticks`; returns whether `done` came true.
  bool run_until(const std::function<bool()>& done, int max_ticks = 400);
  // The one serving leader, once every started voter it can reach serves.
  std::optional<zkd::zab::ServerId> leader() const;
  bool serving(zkd::zab::ServerId id) const;

  // A client's create of `path` with `data` (persistent, open ACL), handed
  // to replica `via`, which must serve; it is proposed or forwarded.
  void create(zkd::zab::ServerId via, const std::string& path, const std::string& data = "");
  // Whether replica `id`'s tree has `path`.
  bool has(zkd::zab::ServerId id, const std::string& path);
  // The txns replica `id`'s tree reflects.
  zkd::zab::Zxid applied(zkd::zab::ServerId id) const;
  // What went wrong so far (a host failure, a digest mismatch): empty if nothing.
  const std::string& failure() const { return failure_; }

  // ReplicaObserver
  void send(SimReplica& r, zkd::zab::Message m, std::string attachment) override;
  uint64_t queued_bytes(SimReplica& r, zkd::zab::ServerId peer) override;
  void appended(SimReplica&, zkd::zab::Zxid, std::string_view) override {}
  void truncated(SimReplica&, zkd::zab::Zxid, bool) override {}
  void applying(SimReplica&, const zkd::tree::Txn&) override {}
  void applied(SimReplica&, const zkd::tree::Txn&) override {}
  void replaced(SimReplica&, bool) override {}
  void sync_done(SimReplica&, uint64_t) override {}
  void status_changed(SimReplica& r, const zkd::zab::Status& now) override;
  void failed(SimReplica& r, const std::string& why) override;
  int64_t now_ms() override { return ticks_ * 100; }

 private:
  struct InFlight {
    zkd::zab::Message m;
    std::string attachment;
  };
  // Runs `f` on replica `id`, then syncs its log unless held; a failpoint
  // crash inside crashes the replica.
  void input(zkd::zab::ServerId id, const std::function<void()>& f);
  bool connected(zkd::zab::ServerId a, zkd::zab::ServerId b) const;
  // With ZK_ENSEMBLE_VERBOSE set: every message but pings, every status,
  // crash and start, on stderr.
  void event(const std::string& line);
  // Delivers every queued message (and those they cause); true if any.
  bool deliver();

  const bool verbose_;
  std::vector<std::unique_ptr<SimReplica>> replicas_;
  std::map<std::pair<zkd::zab::ServerId, zkd::zab::ServerId>, std::deque<InFlight>> queues_;
  std::set<std::pair<zkd::zab::ServerId, zkd::zab::ServerId>> cut_;
  std::set<zkd::zab::ServerId> held_;
  std::map<zkd::zab::ServerId, uint32_t> starts_;
  std::optional<zkd::zab::ServerId> died_;
  int64_t ticks_ = 0;
  static constexpr int64_t kSession = 0x1000004c2160000;
  bool session_created_ = false;
  int32_t next_xid_ = 1;
  std::string failure_;
};

}  // namespace zk::sim
