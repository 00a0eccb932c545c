// SPDX-License-Identifier: Apache-2.0
// The Zab core's timing from zoo.cfg: how long a silent leader or follower is
// waited for, and how often the core ticks (so how often the leader pings).
#include <gtest/gtest.h>

#include "zkd/server/config.h"
#include "zkd/server/replication.h"

namespace zkd::server {
namespace {

ServerConfig ensemble(int tick_time_ms, int sync_limit, int peer_timeout_ms) {
  ServerConfig c;
  c.my_id = 1;
  c.tick_time_ms = tick_time_ms;
  c.init_limit = 10;
  c.sync_limit = sync_limit;
  c.peer_timeout_ms = peer_timeout_ms;
  for (int64_t id : {1, 2, 3}) c.quorum_servers[id] = QuorumServer{};
  return c;
}

std::chrono::milliseconds silence(const ReplicaTiming& t) { return t.config.sync_limit * t.tick; }

TEST(ReplicaTiming, ApacheDefaultsGiveUpOnASilentPeerAfterThePeerTimeout) {
  // tickTime 2000, syncLimit 5: Apache waits 10 s; zkd 500 ms, pinging every 50.
  const ReplicaTiming t = replica_timing(ensemble(2000, 5, 500));
  EXPECT_EQ(t.tick, std::chrono::milliseconds(50));
  EXPECT_EQ(silence(t), std::chrono::milliseconds(500));
  // A leader that said it is busy (building a snapshot) gets Apache's 10 s.
  EXPECT_EQ(t.config.busy_limit * t.tick, std::chrono::milliseconds(10000));
  EXPECT_EQ(t.config.init_limit * t.tick, std::chrono::milliseconds(20000));  // initLimit kept
  EXPECT_EQ(t.config.finalize_ticks * t.tick, std::chrono::milliseconds(200));
  EXPECT_EQ(t.touch_report_ticks * t.tick, std::chrono::milliseconds(1000));
  EXPECT_EQ(t.config.voters.size(), 3U);
}

TEST(ReplicaTiming, ZeroPeerTimeoutKeepsSyncLimitAlone) {
  const ReplicaTiming t = replica_timing(ensemble(2000, 5, 0));
  EXPECT_EQ(t.tick, std::chrono::milliseconds(200));
  EXPECT_EQ(silence(t), std::chrono::milliseconds(10000));
  EXPECT_LE(t.config.busy_limit, t.config.sync_limit);  // no busy pings, Snaps at once
}

TEST(ReplicaTiming, AShorterSyncLimitWins) {
  // tickTime 20, syncLimit 5: 100 ms of silence, below the peer timeout.
  const ReplicaTiming t = replica_timing(ensemble(20, 5, 500));
  EXPECT_EQ(t.tick, std::chrono::milliseconds(2));
  EXPECT_EQ(silence(t), std::chrono::milliseconds(100));
}

TEST(ReplicaTiming, TheTickIsAtLeastOneMillisecond) {
  const ReplicaTiming t = replica_timing(ensemble(5, 1, 500));
  EXPECT_EQ(t.tick, std::chrono::milliseconds(1));
  EXPECT_GE(t.config.sync_limit, 1);
  EXPECT_GE(t.touch_report_ticks, 1);
}

}  // namespace
}  // namespace zkd::server
