// SPDX-License-Identifier: Apache-2.0
// Replication as a client sees it, on real ensembles of 3 and 5 processes
// (zklab/process/ensemble.h) driven by zk::client:
//   * an ensemble elects exactly one leader; a write through any node, a
//     follower included, is readable on every node after sync;
//   * SIGKILL of the leader under concurrent writers: a new leader appears,
//     writes resume, and every acknowledged write is on every node once the
//     killed node is back (as a follower);
//   * a 5-node ensemble writes with 3 nodes up, not with 2, and again once a
//     third node is back;
//   * a restarted follower catches up; a follower whose dataDir was wiped
//     (myid kept) gets the whole tree from the leader;
//   * a session outlives the server it was connected to: its ephemeral node
//     and its watch survive, and the watch fires;
//   * sessions are global: one held through a follower outlives several of
//     its timeouts, an abandoned one is expired by the leader everywhere;
//   * an observer serves reads and writes but never counts toward a quorum.
//
// Flavour: zkd by default (the binary this tree built; ZK_ENSEMBLE_ZKD names
// another). ZK_ENSEMBLE_FLAVOUR=apache runs the same tests against Apache
// ZooKeeper 3.8 from Debian's `zookeeper` package, the reference behaviour.
// ZK_ENSEMBLE_KEEP=1 keeps the ensemble's directory (it is always kept when a
// test fails; its path is printed with the nodes' logs).
//
// Every wait has a deadline. Operations that may meet an election are retried
// while they fail with connection loss; a create retried after a lost reply
// counts as done when the node exists with the data it was given.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>

#include "libzk/client/sync_client.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/sync_client_util.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/four_letter_word.h"

namespace zk::lab {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using zk::client::ClientOptions;
using zk::client::Error;
using zk::client::Result;
using zk::client::SessionState;
using zk::client::Status;
using zk::client::SyncClient;
using zk::wire::CreateMode;
using zk::wire::EventType;

// What connect_to and retrying (sync_client_util.h) use.
constexpr auto kSessionTimeout = kClientSessionTimeout;
constexpr auto kConnectDeadline = kClientConnectDeadline;
constexpr auto kOpDeadline = kClientOpDeadline;
constexpr auto kElectionDeadline = 30s;  // for a new leader to be seen through srvr
constexpr auto kServeDeadline = 30s;     // for a restarted node to serve
// After the loss of its majority, how long writes are tried and must all fail.
constexpr auto kOutageWindow = 5s;

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// Creates `path` with `data`, retried across connection loss. After a lost
// reply the create may have been applied: kNodeExists with the same data
// then counts as success.
Status create_retrying(SyncClient& c, const std::string& path, const std::string& data) {
  const auto until = Clock::now() + kOpDeadline;
  bool reply_lost = false;
  while (true) {
    auto r = c.create(path, data);
    if (r.ok()) return Error::kOk;
    if (r.error() == Error::kNodeExists && reply_lost) {
      auto d = retrying([&] { return c.get_data(path); });
      return d.ok() && d->data == data ? Error::kOk : Error::kNodeExists;
    }
    if (r.error() != Error::kConnectionLoss || Clock::now() >= until) return r.error();
    reply_lost = true;
  }
}

// A create sent on c's session whose reply is awaited until `until` at most;
// nothing when no reply came by then (the create stays in flight).
std::optional<Result<std::string>> create_until(SyncClient& c, const std::string& path,
                                                const std::string& data, Clock::time_point until) {
  auto reply = asio::co_spawn(c.executor(), c.async_client().create(path, data), asio::use_future);
  if (reply.wait_until(until) != std::future_status::ready) return std::nullopt;
  return reply.get();
}

std::string value_of(int i) { return "value-" + std::to_string(i); }

// Creates parent/n<i> = value_of(i) for i in [from, to) on c's session,
// pipelined (up to 256 in flight). The first error, or kOk.
Error create_many(SyncClient& c, const std::string& parent, int from, int to) {
  std::vector<std::future<Result<std::string>>> in_flight;
  for (int i = from; i < to; ++i) {
    in_flight.push_back(asio::co_spawn(
        c.executor(), c.async_client().create(parent + "/n" + std::to_string(i), value_of(i)),
        asio::use_future));
    if (in_flight.size() < 256 && i + 1 < to) continue;
    for (auto& reply : in_flight) {
      auto r = reply.get();
      if (!r.ok()) return r.error();
    }
    in_flight.clear();
  }
  return Error::kOk;
}

// parent/n<i> = value_of(i) for i in [from, to), as read_children returns it.
std::map<std::string, std::string> expected_children(int from, int to) {
  std::map<std::string, std::string> out;
  for (int i = from; i < to; ++i) out["n" + std::to_string(i)] = value_of(i);
  return out;
}

// The children of `parent` and their data as node `id` alone serves them,
// after a sync (so the node has applied every write committed before the
// call). Nothing (and a test failure) when the node cannot be read.
std::optional<std::map<std::string, std::string>> read_children(const Ensemble& e, int id,
                                                                const std::string& parent) {
  auto c = connect_to(e.address(id));
  if (!c) return std::nullopt;
  auto where = " on node " + std::to_string(id);
  auto synced = retrying([&] { return c->sync(parent); });
  if (!synced.ok()) {
    ADD_FAILURE() << "sync " << parent << where << ": " << error_text(synced.error());
    return std::nullopt;
  }
  auto names = retrying([&] { return c->get_children(parent); });
  if (!names.ok()) {
    ADD_FAILURE() << "getChildren " << parent << where << ": " << error_text(names.error());
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (const auto& name : *names) {
    auto d = retrying([&] { return c->get_data(parent + "/" + name); });
    if (!d.ok()) {
      ADD_FAILURE() << "getData " << parent << "/" << name << where << ": "
                    << error_text(d.error());
      return std::nullopt;
    }
    out[name] = d->data.value_or("");
  }
  (void)c->close();
  return out;
}

// Node ids of `e` other than those in `except`.
std::vector<int> others(const Ensemble& e, const std::set<int>& except) {
  std::vector<int> out;
  for (int id : e.ids()) {
    if (except.count(id) == 0) out.push_back(id);
  }
  return out;
}

class EnsembleTest : public ::testing::Test {
 protected:
  void start(int voters, std::vector<std::string> extra_lines = {}, int observers = 0) {
    EnsembleOptions options = flavoured_ensemble_options();
    options.voters = voters;
    options.observers = observers;
    options.extra_lines = std::move(extra_lines);
    options.temp_dir_prefix = "zk_ensemble_test";
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
    if (!env("ZK_ENSEMBLE_KEEP").empty()) ensemble_->keep_directory();
  }

  void TearDown() override {
    if (!ensemble_) return;
    if (HasFailure() || !env("ZK_ENSEMBLE_KEEP").empty()) {
      ensemble_->keep_directory();
      std::cerr << "ensemble (" << flavour_name(ensemble_->flavour()) << ") kept in "
                << ensemble_->directory() << "\n";
    }
    if (HasFailure()) std::cerr << ensemble_->logs();
  }

  // The current leader (waiting for one); fails the test when none appears.
  int leader() {
    auto id = ensemble_->wait_for_leader(kElectionDeadline);
    EXPECT_TRUE(id) << "no unique leader";
    return id.value_or(1);
  }

  // Every node holds exactly `expected` under `parent`.
  void expect_everywhere(const std::string& parent,
                         const std::map<std::string, std::string>& expected) {
    for (int id : ensemble_->ids()) {
      auto seen = read_children(*ensemble_, id, parent);
      if (!seen) continue;
      EXPECT_EQ(seen->size(), expected.size()) << parent << " on node " << id;
      EXPECT_TRUE(*seen == expected) << parent << " on node " << id << " differs";
    }
  }

  std::unique_ptr<Ensemble> ensemble_;
};

// ---------------------------------------------------------------------------

TEST_F(EnsembleTest, ElectsOneLeaderAndEveryNodeServesEveryWrite) {
  ASSERT_NO_FATAL_FAILURE(start(3));
  const int lead = leader();
  int leaders = 0;
  int followers = 0;
  for (int id : ensemble_->ids()) {
    ServerMode m = ensemble_->mode(id);
    leaders += m == ServerMode::kLeader ? 1 : 0;
    followers += m == ServerMode::kFollower ? 1 : 0;
  }
  EXPECT_EQ(leaders, 1);
  EXPECT_EQ(followers, 2);
  auto figures = ensemble_->mntr(lead);
  EXPECT_EQ(figures["zk_server_state"], "leader");
  EXPECT_EQ(figures["zk_synced_followers"], "2");
  for (int id : others(*ensemble_, {lead})) {
    EXPECT_EQ(ensemble_->mntr(id)["zk_server_state"], "follower") << "node " << id;
  }

  // A write through each node, followers included, each on a session that
  // knows that node only.
  {
    auto setup = connect_to(ensemble_->connect_string());
    ASSERT_TRUE(setup);
    ASSERT_TRUE(create_retrying(*setup, "/replicated", "").ok());
  }
  std::map<std::string, std::string> expected;
  for (int id : ensemble_->ids()) {
    auto c = connect_to(ensemble_->address(id));
    ASSERT_TRUE(c);
    std::string name = "via-" + std::to_string(id);
    std::string data =
        "written through node " + std::to_string(id) + (id == lead ? " (leader)" : " (follower)");
    auto created = c->create("/replicated/" + name, data);
    ASSERT_TRUE(created.ok()) << "create through node " << id << ": "
                              << error_text(created.error());
    expected[name] = data;
  }
  expect_everywhere("/replicated", expected);

  // Apache's replica metrics (docs/metrics.md) moved with the election and the writes.
  auto number = [](std::map<std::string, std::string>& f, const std::string& key) {
    return f.count(key) ? std::stoll(f[key]) : -1;
  };
  auto led = ensemble_->mntr(lead);
  EXPECT_GE(number(led, "zk_looking_count"), 1);
  EXPECT_GE(number(led, "zk_cnt_election_time"), 1);
  EXPECT_GE(number(led, "zk_cnt_leader_unavailable_time"), 1);
  EXPECT_GE(number(led, "zk_proposal_count"), 4);
  EXPECT_GE(number(led, "zk_commit_count"), 4);
  EXPECT_GE(number(led, "zk_cnt_quorum_ack_latency"), 4);
  EXPECT_GT(number(led, "zk_max_proposal_size"), 0);
  EXPECT_EQ(number(led, "zk_quorum_size"), 3);
  for (int id : others(*ensemble_, {lead})) {
    auto f = ensemble_->mntr(id);
    EXPECT_GE(number(f, "zk_cnt_follower_sync_time"), 1) << "node " << id;
    EXPECT_GE(number(f, "zk_learner_proposal_received_count"), 4) << "node " << id;
    EXPECT_GE(number(f, "zk_learner_commit_received_count"), 4) << "node " << id;
    EXPECT_GE(number(f, "zk_cnt_proposal_ack_creation_latency"), 4) << "node " << id;
    EXPECT_GE(number(f, "zk_cnt_commit_propagation_latency"), 4) << "node " << id;
  }
}

TEST_F(EnsembleTest, LeaderKilledUnderWritesLosesNoAcknowledgedWrite) {
  ASSERT_NO_FATAL_FAILURE(start(3));
  const int old_leader = leader();
  {
    auto setup = connect_to(ensemble_->connect_string());
    ASSERT_TRUE(setup);
    ASSERT_TRUE(create_retrying(*setup, "/acked", "").ok());
  }

  constexpr int kWriters = 3;
  struct Writer {
    std::vector<std::string> acked;  // names under /acked whose create was acknowledged
    int acked_after_kill = 0;
    std::vector<std::string> problems;
  };
  std::vector<Writer> writers(kWriters);
  std::mutex mu;
  std::condition_variable progress;
  std::atomic<bool> stop{false};
  bool killed = false;  // guarded by mu
  int total_acked = 0;  // guarded by mu

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      Writer& me = writers[w];
      auto c = connect_to(ensemble_->connect_string());
      if (!c) return;
      for (int n = 0; !stop.load(); ++n) {
        std::string name = "w" + std::to_string(w) + "-" + std::to_string(n);
        auto r = c->create("/acked/" + name, name);
        if (r.ok()) {
          std::lock_guard lock(mu);
          me.acked.push_back(name);
          if (killed) ++me.acked_after_kill;
          ++total_acked;
          progress.notify_all();
        } else if (r.error() != Error::kConnectionLoss) {
          // Connection loss leaves the create in doubt: it may or may not be
          // applied. Anything else is wrong during a failover.
          std::lock_guard lock(mu);
          me.problems.push_back("create " + name + ": " + error_text(r.error()));
          return;
        }
      }
    });
  }
  auto wait_for = [&](auto condition, std::chrono::milliseconds deadline) {
    std::unique_lock lock(mu);
    return progress.wait_for(lock, deadline, condition);
  };

  const bool wrote_before = wait_for([&] { return total_acked >= 60; }, 30s);
  EXPECT_TRUE(wrote_before) << "the writers made no progress before the kill";
  {
    std::lock_guard lock(mu);
    killed = true;
  }
  ASSERT_TRUE(ensemble_->kill(old_leader));
  auto new_leader = ensemble_->wait_for_leader(kElectionDeadline, {old_leader});
  EXPECT_TRUE(new_leader) << "no new leader after the leader was killed";

  const bool resumed = wait_for(
      [&] {
        for (const auto& w : writers) {
          if (w.acked_after_kill < 20 && w.problems.empty()) return false;
        }
        return true;
      },
      kOpDeadline);
  EXPECT_TRUE(resumed) << "writes did not resume on every writer's session after the kill";

  auto restarted = ensemble_->restart(old_leader, kServeDeadline);
  EXPECT_TRUE(restarted.empty()) << restarted;
  EXPECT_EQ(ensemble_->mode(old_leader), ServerMode::kFollower)
      << "the old leader did not rejoin as a follower";
  stop.store(true);
  for (auto& t : threads) t.join();

  std::set<std::string> acked;
  for (int w = 0; w < kWriters; ++w) {
    for (const auto& p : writers[w].problems) ADD_FAILURE() << "writer " << w << ": " << p;
    acked.insert(writers[w].acked.begin(), writers[w].acked.end());
  }
  std::cout << acked.size() << " acknowledged creates; node " << old_leader
            << " killed as leader, new leader " << new_leader.value_or(0) << std::endl;
  for (int id : ensemble_->ids()) {
    auto seen = read_children(*ensemble_, id, "/acked");
    if (!seen) continue;
    int missing = 0;
    for (const auto& name : acked) {
      auto it = seen->find(name);
      if (it != seen->end() && it->second == name) continue;
      if (++missing <= 5) {
        ADD_FAILURE() << "LOST ACKNOWLEDGED WRITE: /acked/" << name << " on node " << id;
      }
    }
    EXPECT_EQ(missing, 0) << "acknowledged creates missing on node " << id;
  }
}

TEST_F(EnsembleTest, FiveNodesWriteWithAMajorityAndOnlyWithAMajority) {
  ASSERT_NO_FATAL_FAILURE(start(5));
  const int lead = leader();
  const std::vector<int> followers = others(*ensemble_, {lead});
  ASSERT_EQ(followers.size(), 4u);

  // Two of five down: three remain, a majority.
  ASSERT_TRUE(ensemble_->kill(followers[0]));
  ASSERT_TRUE(ensemble_->kill(followers[1]));
  {
    auto c =
        connect_to(ensemble_->connect_string(others(*ensemble_, {followers[0], followers[1]})));
    ASSERT_TRUE(c);
    auto created = create_retrying(*c, "/majority", "three of five");
    EXPECT_TRUE(created.ok()) << "write with 3 of 5 nodes up: " << error_text(created.error());
  }

  // Three of five down: no write may succeed. The client's session is opened
  // while a majority still serves; then writes are tried for kOutageWindow,
  // and each either fails or gets no reply within the window.
  const std::vector<int> alive = {lead, followers[3]};
  {
    auto c = connect_to(ensemble_->connect_string(alive));
    ASSERT_TRUE(c);
    ASSERT_TRUE(ensemble_->kill(followers[2]));
    const auto until = Clock::now() + kOutageWindow;
    int attempts = 0;
    int failed = 0;
    while (Clock::now() < until) {
      std::string path = "/majority-lost-" + std::to_string(++attempts);
      auto r = create_until(*c, path, "two of five", until);
      if (!r) break;  // no reply within the window: it did not succeed
      EXPECT_FALSE(r->ok()) << "create " << path << " succeeded with 2 of 5 nodes up";
      if (r->ok()) break;
      ++failed;
    }
    std::cout << "with 2 of 5 up: " << attempts << " creates tried, " << failed
              << " failed, the others unanswered within " << kOutageWindow.count() << " s"
              << std::endl;
  }
  // Without a majority no node serves (the leader gives up within syncLimit).
  for (int id : alive) {
    const auto until = Clock::now() + 15s;
    ServerMode m = ensemble_->mode(id);
    while (m != ServerMode::kNotServing && Clock::now() < until) {
      ensemble_->node(id).wait_for_exit(50ms);  // a pause that ends early if the node dies
      m = ensemble_->mode(id);
    }
    EXPECT_EQ(m, ServerMode::kNotServing) << "node " << id << " still serves with 2 of 5 up";
  }

  // A third node back: a majority again.
  auto restarted = ensemble_->restart(followers[2], kServeDeadline);
  ASSERT_TRUE(restarted.empty()) << restarted;
  EXPECT_TRUE(ensemble_->wait_for_leader(kElectionDeadline)) << "no leader with 3 of 5 up";
  {
    auto c = connect_to(ensemble_->connect_string({lead, followers[2], followers[3]}));
    ASSERT_TRUE(c);
    auto created = create_retrying(*c, "/majority-back", "three of five again");
    EXPECT_TRUE(created.ok()) << "write once 3 of 5 are up again: " << error_text(created.error());
    auto before = retrying([&] { return c->get_data("/majority"); });
    ASSERT_TRUE(before.ok()) << error_text(before.error());
    EXPECT_EQ(before->data, "three of five");
  }
}

// Three voters and an observer: the observer says so in srvr, takes writes
// (through the leader) and serves every write; with two voters down nothing
// is written, although the observer and one voter still run.
TEST_F(EnsembleTest, ObserverServesButNeverCounts) {
  ASSERT_NO_FATAL_FAILURE(start(3, {}, 1));
  const int observer = 4;
  ASSERT_TRUE(ensemble_->is_observer(observer));
  EXPECT_EQ(ensemble_->mode(observer), ServerMode::kObserver);
  {
    auto c = connect_to(ensemble_->address(observer));
    ASSERT_TRUE(c);
    ASSERT_TRUE(create_retrying(*c, "/observed", "").ok());
    ASSERT_EQ(create_many(*c, "/observed", 0, 200), Error::kOk);
  }
  expect_everywhere("/observed", expected_children(0, 200));

  // The observer down: the voters go on.
  ASSERT_TRUE(ensemble_->kill(observer));
  {
    auto c = connect_to(ensemble_->connect_string(others(*ensemble_, {observer})));
    ASSERT_TRUE(c);
    EXPECT_TRUE(create_retrying(*c, "/observed/without-observer", "x").ok());
  }
  auto restarted = ensemble_->restart(observer, kServeDeadline);
  ASSERT_TRUE(restarted.empty()) << restarted;

  // Two voters down: the observer is not a majority's member.
  const int lead = leader();
  const std::vector<int> followers = others(*ensemble_, {lead, observer});
  ASSERT_EQ(followers.size(), 2u);
  auto c = connect_to(ensemble_->address(observer));
  ASSERT_TRUE(c);
  ASSERT_TRUE(ensemble_->kill(followers[0]));
  ASSERT_TRUE(ensemble_->kill(followers[1]));
  const auto until = Clock::now() + kOutageWindow;
  int attempt = 0;
  while (Clock::now() < until) {
    std::string path = "/observed/minority-" + std::to_string(++attempt);
    auto r = create_until(*c, path, "one voter and an observer", until);
    if (!r) break;  // no reply within the window: it did not succeed
    EXPECT_FALSE(r->ok()) << "create " << path << " succeeded with 1 of 3 voters up";
    if (r->ok()) break;
  }
}

// ydld (zkd's, ClickHouse Keeper's word): a follower refuses it; the leader
// answers, then hands its leadership to a follower that has every write, with
// no election timeout: another node leads, the old leader follows it, and
// every acknowledged write is on every node.
TEST_F(EnsembleTest, YdldHandsLeadershipToAFollowerWithEveryWrite) {
  if (env("ZK_ENSEMBLE_FLAVOUR") == "apache") GTEST_SKIP() << "ydld is zkd's, not Apache's";
  ASSERT_NO_FATAL_FAILURE(start(3));
  const int lead = leader();
  {
    auto c = connect_to(ensemble_->connect_string());
    ASSERT_TRUE(c);
    ASSERT_TRUE(create_retrying(*c, "/handed", "").ok());
    ASSERT_EQ(create_many(*c, "/handed", 0, 200), Error::kOk);
  }
  auto ydld = [&](int id) {
    return four_letter_word(ensemble_->node(id).host(), ensemble_->node(id).port(), "ydld", 5s)
        .value_or("<no answer>");
  };
  const int follower = others(*ensemble_, {lead}).front();
  EXPECT_EQ(ydld(follower), "Failed to yield leadership: this server is not the serving leader\n");
  EXPECT_EQ(ydld(lead), "Sent yield leadership request to leader.\n");
  auto next = ensemble_->wait_for_leader(kElectionDeadline, {lead});
  ASSERT_TRUE(next) << "no other leader after ydld";
  EXPECT_NE(*next, lead);
  EXPECT_EQ(ensemble_->wait_all_serving(kServeDeadline), "");
  EXPECT_EQ(ensemble_->mode(lead), ServerMode::kFollower);
  expect_everywhere("/handed", expected_children(0, 200));
}

// rqld (ClickHouse Keeper's): the follower that asks becomes the leader,
// with every acknowledged write, and the old leader follows it; csnp writes
// a snapshot at the zxid it names; lgif names the log's zxids in Keeper's
// keys.
TEST_F(EnsembleTest, RqldMakesTheAskingFollowerLeadAndCsnpLgifAnswerInKeepersWords) {
  if (env("ZK_ENSEMBLE_FLAVOUR") == "apache") GTEST_SKIP() << "rqld is ClickHouse Keeper's";
  ASSERT_NO_FATAL_FAILURE(start(3));
  const int lead = leader();
  {
    auto c = connect_to(ensemble_->connect_string());
    ASSERT_TRUE(c);
    ASSERT_TRUE(create_retrying(*c, "/asked", "").ok());
    ASSERT_EQ(create_many(*c, "/asked", 0, 100), Error::kOk);
  }
  auto word = [&](int id, const std::string& w) {
    return four_letter_word(ensemble_->node(id).host(), ensemble_->node(id).port(), w, 5s)
        .value_or("<no answer>");
  };
  const int asking = others(*ensemble_, {lead}).back();
  EXPECT_EQ(word(asking, "rqld"), "Sent leadership request to leader.\n");
  auto next = ensemble_->wait_for_leader(kElectionDeadline, {lead});
  ASSERT_TRUE(next) << "no other leader after rqld";
  EXPECT_EQ(*next, asking);
  EXPECT_EQ(ensemble_->wait_all_serving(kServeDeadline), "");
  EXPECT_EQ(ensemble_->mode(lead), ServerMode::kFollower);
  expect_everywhere("/asked", expected_children(0, 100));
  EXPECT_EQ(word(asking, "rqld"), "Sent leadership request to leader.\n");  // leads already

  const std::string info = word(asking, "lgif");
  for (const char* key :
       {"first_log_idx\t", "first_log_term\t", "last_log_idx\t", "last_log_term\t",
        "last_committed_log_idx\t", "leader_committed_log_idx\t", "target_committed_log_idx\t",
        "last_snapshot_idx\t"}) {
    EXPECT_NE(info.find(key), std::string::npos) << key << " in " << info;
  }
  const std::string taken = word(lead, "csnp");
  ASSERT_FALSE(taken.empty());
  const int64_t zxid = std::stoll(taken);
  EXPECT_GT(zxid, 100) << taken;
  // The snapshot lands: lgif's last_snapshot_idx reaches the zxid csnp named.
  const auto until = Clock::now() + kServeDeadline;
  int64_t snapshot = -1;
  while (Clock::now() < until && snapshot < zxid) {
    const std::string text = word(lead, "lgif");
    const size_t at = text.find("last_snapshot_idx\t");
    if (at != std::string::npos) snapshot = std::stoll(text.substr(at + 18));
    if (snapshot < zxid) std::this_thread::yield();
  }
  EXPECT_GE(snapshot, zxid);
}

// /zookeeper/config holds the membership as Apache writes it from zoo.cfg's
// static server.N lines (configuration version 0), on every node, observers
// included, and `conf` ends with the same text after "membership: ".
TEST_F(EnsembleTest, EveryNodeHoldsTheMembershipInZookeeperConfig) {
  ASSERT_NO_FATAL_FAILURE(start(3, {}, 1));
  // zklab writes "server.N=host:quorum:election[:observer];host:client";
  // Apache names the type always.
  std::string expected;
  {
    std::ifstream cfg(ensemble_->directory() / "node1" / "zoo.cfg");
    ASSERT_TRUE(cfg) << "no zoo.cfg for node 1";
    for (std::string line; std::getline(cfg, line);) {
      if (!line.starts_with("server.")) continue;
      if (line.find(":observer;") == std::string::npos) {
        line.replace(line.find(';'), 1, ":participant;");
      }
      expected += line + "\n";
    }
  }
  expected += "version=0";
  for (int id : ensemble_->ids()) {
    auto c = connect_to(ensemble_->address(id));
    ASSERT_TRUE(c);
    auto config = c->get_data("/zookeeper/config");
    ASSERT_TRUE(config.ok()) << "node " << id << ": " << error_text(config.error());
    EXPECT_EQ(config->data.value_or("<null>"), expected) << "node " << id;
    EXPECT_EQ(config->stat.version, -1) << "node " << id;
    EXPECT_EQ(config->stat.mzxid, 0) << "node " << id;
    EXPECT_EQ(config->stat.aversion, -1) << "node " << id;
    auto conf =
        four_letter_word(ensemble_->node(id).host(), ensemble_->node(id).port(), "conf", 5s);
    ASSERT_TRUE(conf) << "node " << id << " did not answer conf";
    EXPECT_TRUE(conf->ends_with("\nmembership: \n" + expected)) << "node " << id << ":\n" << *conf;
    EXPECT_NE(conf->find(id == 4 ? "\npeerType=1\n" : "\npeerType=0\n"), std::string::npos)
        << "node " << id << ":\n"
        << *conf;
  }
}

// Sessions are global: one held only through a follower stays alive past
// several of its timeouts (the follower reports its pings to the leader,
// which alone expires sessions), and once its client is gone the leader
// expires it and its ephemeral node goes on every server.
TEST_F(EnsembleTest, OnlyTheLeaderExpiresSessionsAndOnlyAbandonedOnes) {
  ASSERT_NO_FATAL_FAILURE(start(3));
  const int lead = leader();
  const int follower = others(*ensemble_, {lead})[0];
  constexpr auto kShortTimeout = 1200ms;  // 6 ticks of 200 ms
  ClientOptions options;
  options.shuffle_hosts = false;
  auto holder = std::make_unique<SyncClient>(options);
  ASSERT_TRUE(holder->connect(ensemble_->address(follower), kShortTimeout, kConnectDeadline).ok());
  ASSERT_TRUE(holder->create("/held", "", CreateMode::kEphemeral).ok());

  auto watcher = connect_to(ensemble_->address(lead));
  ASSERT_TRUE(watcher);
  // Five timeouts long, the session must live: its node stays, its client
  // works. (A window in which nothing may happen, not a timed assertion.)
  auto deleted = watcher->exists("/held", true);
  ASSERT_TRUE(deleted.ok() && deleted->has_value());
  EXPECT_FALSE(watcher->next_watch_event(5 * kShortTimeout))
      << "the session held through a follower expired";
  ASSERT_TRUE(holder->set_data("/held", "alive").ok());
  auto changed = watcher->next_watch_event(kOpDeadline);
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->type, EventType::kNodeDataChanged);
  auto rearmed = watcher->exists("/held", true);
  ASSERT_TRUE(rearmed.ok() && rearmed->has_value());

  // The client goes away without closing: the leader expires the session.
  holder.reset();
  auto event = watcher->next_watch_event(kOpDeadline);
  ASSERT_TRUE(event) << "the abandoned session's ephemeral node was not deleted";
  EXPECT_EQ(event->type, EventType::kNodeDeleted);
  for (int id : ensemble_->ids()) {
    auto reader = connect_to(ensemble_->address(id));
    ASSERT_TRUE(reader);
    ASSERT_TRUE(retrying([&] { return reader->sync("/held"); }).ok());
    auto stat = retrying([&] { return reader->exists("/held"); });
    ASSERT_TRUE(stat.ok());
    EXPECT_FALSE(stat->has_value()) << "the expired session's node is still on node " << id;
  }
}

TEST_F(EnsembleTest, RestartedFollowerCatchesUp) {
  ASSERT_NO_FATAL_FAILURE(start(3));
  const int lead = leader();
  const int follower = others(*ensemble_, {lead}).front();
  auto c = connect_to(ensemble_->connect_string(others(*ensemble_, {follower})));
  ASSERT_TRUE(c);
  ASSERT_TRUE(create_retrying(*c, "/catchup", "").ok());
  ASSERT_EQ(create_many(*c, "/catchup", 0, 50), Error::kOk);

  ASSERT_TRUE(ensemble_->kill(follower));
  ASSERT_EQ(create_many(*c, "/catchup", 50, 300), Error::kOk) << "writes with one follower down";
  auto restarted = ensemble_->restart(follower, kServeDeadline);
  ASSERT_TRUE(restarted.empty()) << restarted;
  EXPECT_EQ(ensemble_->mode(follower), ServerMode::kFollower);

  // Writes through the restarted follower reach the others too.
  auto via_follower = connect_to(ensemble_->address(follower));
  ASSERT_TRUE(via_follower);
  ASSERT_EQ(create_many(*via_follower, "/catchup", 300, 310), Error::kOk);
  expect_everywhere("/catchup", expected_children(0, 310));
}

TEST_F(EnsembleTest, WipedFollowerGetsTheWholeTree) {
  // Snapshots every 100 txns, and more txns than a leader keeps in memory for
  // a diff (Apache: 500), so a follower without data is sent a snapshot.
  ASSERT_NO_FATAL_FAILURE(start(3, {"snapCount=100"}));
  const int lead = leader();
  const int follower = others(*ensemble_, {lead}).front();
  auto c = connect_to(ensemble_->connect_string(others(*ensemble_, {follower})));
  ASSERT_TRUE(c);
  ASSERT_TRUE(create_retrying(*c, "/tree", "").ok());
  ASSERT_EQ(create_many(*c, "/tree", 0, 1000), Error::kOk);

  ASSERT_TRUE(ensemble_->kill(follower));
  auto wiped = ensemble_->wipe_data(follower);
  ASSERT_TRUE(wiped.empty()) << wiped;
  std::vector<std::string> left;
  for (const auto& entry :
       std::filesystem::directory_iterator(ensemble_->node(follower).data_dir())) {
    left.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"myid"});
  ASSERT_EQ(create_many(*c, "/tree", 1000, 1100), Error::kOk) << "writes with one follower down";

  auto restarted = ensemble_->restart(follower, kServeDeadline);
  ASSERT_TRUE(restarted.empty()) << restarted;
  EXPECT_EQ(ensemble_->mode(follower), ServerMode::kFollower);
  auto seen = read_children(*ensemble_, follower, "/tree");
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->size(), 1100u);
  EXPECT_TRUE(*seen == expected_children(0, 1100)) << "the wiped follower's /tree differs";
}

// True when node `id` lists a connection of this session in its `cons`.
bool connected_to(const Ensemble& e, int id, int64_t session_id) {
  char sid[32];
  std::snprintf(sid, sizeof sid, "sid=0x%llx", static_cast<unsigned long long>(session_id));
  auto cons = four_letter_word(e.node(id).host(), e.node(id).port(), "cons", 2s);
  return cons && cons->find(sid) != std::string::npos;
}

TEST_F(EnsembleTest, SessionEphemeralAndWatchSurviveTheirServerDying) {
  ASSERT_NO_FATAL_FAILURE(start(3));
  const int lead = leader();
  const std::vector<int> followers = others(*ensemble_, {lead});
  const int first = followers[0];
  auto other = connect_to(ensemble_->address(lead));
  ASSERT_TRUE(other);
  ASSERT_TRUE(create_retrying(*other, "/watched", "before").ok());

  // The session starts on `first` (hosts in order, first listed first).
  auto c = connect_to(ensemble_->connect_string({first, followers[1], lead}), false);
  ASSERT_TRUE(c);
  const int64_t session = c->session_id();
  ASSERT_TRUE(connected_to(*ensemble_, first, session)) << "the session is not on node " << first;
  ASSERT_TRUE(c->create("/owned", "ephemeral", CreateMode::kEphemeral).ok());
  auto watched = c->get_data("/watched", true);
  ASSERT_TRUE(watched.ok()) << error_text(watched.error());
  while (c->next_session_event(0ms)) {
  }

  ASSERT_TRUE(ensemble_->kill(first));
  // The client loses its server, then resumes the same session elsewhere.
  bool disconnected = false;
  bool reconnected = false;
  const auto until = Clock::now() + kConnectDeadline;
  while (!reconnected && Clock::now() < until) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    auto event = c->next_session_event(std::max(left, 1ms));
    if (!event) break;
    if (*event == SessionState::kDisconnected) disconnected = true;
    if (*event == SessionState::kConnected && disconnected) reconnected = true;
    ASSERT_TRUE(*event == SessionState::kDisconnected || *event == SessionState::kConnected)
        << "session event " << zk::client::session_state_name(*event);
  }
  ASSERT_TRUE(reconnected) << "the session did not move to another server";
  EXPECT_EQ(c->session_id(), session);

  // The watch set through the dead server fires for a change made elsewhere.
  ASSERT_TRUE(retrying([&] { return other->set_data("/watched", "after"); }).ok());
  auto event = c->next_watch_event(10s);
  ASSERT_TRUE(event) << "the watch did not fire after the session moved";
  EXPECT_EQ(event->type, EventType::kNodeDataChanged);
  EXPECT_EQ(event->path, "/watched");

  // The ephemeral node is still the session's, on every remaining node.
  for (int id : others(*ensemble_, {first})) {
    auto reader = connect_to(ensemble_->address(id));
    ASSERT_TRUE(reader);
    ASSERT_TRUE(retrying([&] { return reader->sync("/owned"); }).ok());
    auto stat = retrying([&] { return reader->exists("/owned"); });
    ASSERT_TRUE(stat.ok()) << error_text(stat.error());
    ASSERT_TRUE(stat->has_value()) << "the ephemeral node is gone on node " << id;
    EXPECT_EQ((*stat)->ephemeral_owner, session) << "on node " << id;
  }

  // Closing the session on its new server removes the ephemeral node.
  ASSERT_TRUE(c->close().ok());
  ASSERT_TRUE(retrying([&] { return other->sync("/owned"); }).ok());
  auto gone = retrying([&] { return other->exists("/owned"); });
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value()) << "the ephemeral node outlived its closed session";
}

TEST_F(EnsembleTest, SessionResumedOnAnotherServerKeepsItsEphemeral) {
  ASSERT_NO_FATAL_FAILURE(start(3));
  const int lead = leader();
  const std::vector<int> followers = others(*ensemble_, {lead});
  zk::client::SessionCredentials credentials;
  {
    auto a = connect_to(ensemble_->address(followers[0]));
    ASSERT_TRUE(a);
    ASSERT_TRUE(a->create("/resumed", "ephemeral", CreateMode::kEphemeral).ok());
    credentials = a->credentials();
    // `a` goes away without closing its session, like a client process that
    // dies and comes back with the session id and password it saved.
  }

  // The same session (id and password), now through the other follower.
  ClientOptions options;
  options.resume = credentials;
  SyncClient b(options);
  auto st = b.connect(ensemble_->address(followers[1]), kSessionTimeout, kConnectDeadline);
  ASSERT_TRUE(st.ok()) << "resuming the session on node " << followers[1] << ": "
                       << error_text(st.error());
  EXPECT_EQ(b.session_id(), credentials.session_id);
  ASSERT_TRUE(connected_to(*ensemble_, followers[1], credentials.session_id));

  // Its first server goes away; the session and its node stay.
  ASSERT_TRUE(ensemble_->kill(followers[0]));
  auto stat = retrying([&] { return b.exists("/resumed"); });
  ASSERT_TRUE(stat.ok()) << error_text(stat.error());
  ASSERT_TRUE(stat->has_value()) << "the ephemeral node is gone";
  EXPECT_EQ((*stat)->ephemeral_owner, credentials.session_id);
  auto own = b.create("/resumed-child-of-session", "", CreateMode::kEphemeral);
  EXPECT_TRUE(own.ok()) << "the resumed session cannot write: " << error_text(own.error());

  ASSERT_TRUE(b.close().ok());
  auto reader = connect_to(ensemble_->address(lead));
  ASSERT_TRUE(reader);
  ASSERT_TRUE(retrying([&] { return reader->sync("/"); }).ok());
  for (const char* path : {"/resumed", "/resumed-child-of-session"}) {
    auto gone = retrying([&] { return reader->exists(path); });
    ASSERT_TRUE(gone.ok());
    EXPECT_FALSE(gone->has_value()) << path << " outlived its closed session";
  }
}

}  // namespace
}  // namespace zk::lab
