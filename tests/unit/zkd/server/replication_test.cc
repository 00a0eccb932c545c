// SPDX-License-Identifier: Apache-2.0
// Replication (zkd/server/replication.h) as an operator checks it, on three
// whole Servers without sockets or real time (tests/sim/server's
// SimEnsemble): each on its own in-memory disk with simulated time, its
// peer links a simulated network, its clients socket-less connections
// (whole_server.h). Time moves 1 ms at a time and every wait is bounded in
// simulated time, so each test replays the same run.
#include <gtest/gtest.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "tests/common/request_bodies.h"
#include "tests/common/temp_dir.h"
#include "tests/sim/server/sim_ensemble.h"
#include "tests/unit/zkd/server/whole_server.h"
#include "zkd/server/replication.h"
#include "zkd/zab/zab.h"

namespace zkd::server {
namespace {

using std::chrono::milliseconds;
using test_support::ClientCalls;
using test_support::TestConnection;
using zab::Role;
using zk::wire::Error;
using zk::wire::OpCode;

// tickTime 100 ms, syncLimit 5 (kSilence below); log segments of 64 KiB,
// not 64 MiB, on the in-memory disks.
constexpr const char* kZooCfg =
    "tickTime=100\ninitLimit=10\nsyncLimit=5\ndataDir=/data\nclientPort=2181\n"
    "admin.enableServer=false\n4lw.commands.whitelist=srvr,isro\npreAllocSize=64\n";
constexpr size_t kServers = 3;
// syncLimit x tickTime: how long a leader and a follower go without a word
// from each other before they give up (zkd.peerTimeoutMs is 500 too).
constexpr milliseconds kSilence{500};
// Every wait's bound in simulated time: elections take well under a second.
constexpr milliseconds kBound{10000};
constexpr int32_t kSessionMs = 2000;

class ReplicationTest : public ::testing::Test, protected ClientCalls {
 protected:
  // Server i (myid i + 1) draws its election timeouts from seed 100 + i;
  // `configure`, when given, changes each node's configuration first.
  using Configure = std::function<void(size_t i, ServerConfig& config)>;
  explicit ReplicationTest(const Configure& configure = nullptr)
      : ensemble_(kZooCfg, kServers, /*seed=*/1) {
    for (size_t i = 0; i < kServers; ++i) {
      if (configure) configure(i, ensemble_.node(i).config);
      ensemble_.start(i, 100 + i);
    }
  }

  bool run_until(const std::function<bool()>& done) override { return within(kBound, done); }
  // Simulated time passes, 1 ms at a time, until `done` holds or `bound`
  // has passed; whether it holds.
  bool within(milliseconds bound, const std::function<bool()>& done) {
    ensemble_.settle();
    for (milliseconds waited{0}; !done(); waited += milliseconds(1)) {
      if (waited >= bound) return false;
      ensemble_.advance(milliseconds(1));
    }
    return true;
  }

  zab::ServerId id(size_t i) { return ensemble_.node(i).id; }
  bool runs(size_t i) { return ensemble_.node(i).server != nullptr; }
  const zab::Status& status(size_t i) {
    return ensemble_.node(i).server->replication()->host().status();
  }
  bool serves(size_t i) { return ensemble_.serves(i); }
  // The last zxid server i's replica logged (proposed or accepted).
  int64_t last_zxid(size_t i) {
    return ensemble_.node(i).server->replication()->host().core().last_zxid();
  }
  // srvr, as an operator asks it.
  std::string srvr(size_t i) {
    TestConnection probe(ensemble_.io(), ensemble_.node(i).server->client_handler(), 0);
    return ensemble_.node(i).server->client_handler().four_letter_word(probe, "srvr", "");
  }
  // The running servers whose replica serves in `role`.
  std::vector<size_t> in_role(Role role) {
    std::vector<size_t> found;
    for (size_t i = 0; i < kServers; ++i) {
      if (runs(i) && status(i).serving && status(i).role == role) found.push_back(i);
    }
    return found;
  }
  // Waits until every server serves; the one that leads.
  size_t wait_for_leader() {
    EXPECT_TRUE(run_until([&] { return serves(0) && serves(1) && serves(2); }));
    const std::vector<size_t> leaders = in_role(Role::kLeading);
    EXPECT_EQ(leaders.size(), 1u);
    return leaders.empty() ? 0 : leaders.front();
  }
  // A client with a new session on server i.
  std::shared_ptr<TestConnection> client(size_t i) {
    auto c = ensemble_.open(i);
    EXPECT_NE(connect(*c, kSessionMs).session_id, 0) << "no session on server " << id(i);
    return c;
  }

  // The leader cut off from its followers (its links down) just as a
  // client's create of /lost reached it, and the two others' new leader.
  struct Cut {
    size_t old_leader = 0;
    zab::Epoch old_epoch = 0;
    std::shared_ptr<TestConnection> stranded;  // the client of /lost
    // Within kSilence of the cut, the old leader stopped serving and the two
    // others serve, one leading and one following.
    bool settled = false;
    size_t new_leader = 0;
    size_t follower = 0;  // of the new leader
  };
  Cut cut_off_leader() {
    Cut cut;
    cut.old_leader = wait_for_leader();
    cut.old_epoch = status(cut.old_leader).epoch;
    cut.stranded = client(cut.old_leader);
    const int64_t before = last_zxid(cut.old_leader);
    send(*cut.stranded, 7, OpCode::kCreate, zk::test::create_body("/lost", "never-committed"));
    ensemble_.network().isolate(id(cut.old_leader), true);
    // The leader had proposed it: it is in its log, not in another's.
    EXPECT_GT(last_zxid(cut.old_leader), before);
    // Every end of the broken links is told at once, as by a reset TCP
    // connection: none waits out a silence.
    cut.settled = within(kSilence, [&] {
      const auto leaders = in_role(Role::kLeading);
      const auto followers = in_role(Role::kFollowing);
      if (status(cut.old_leader).serving || leaders.size() != 1 || followers.size() != 1) {
        return false;
      }
      cut.new_leader = leaders[0];
      cut.follower = followers[0];
      return true;
    });
    return cut;
  }

  zk::sim::SimEnsemble ensemble_;
};

TEST_F(ReplicationTest, ThreeServersElectOneLeaderAndTwoFollowersOnOneEpoch) {
  const size_t leader = wait_for_leader();
  EXPECT_EQ(in_role(Role::kLeading).size(), 1u);
  EXPECT_EQ(in_role(Role::kFollowing).size(), 2u);
  const zab::Epoch epoch = status(leader).epoch;
  EXPECT_GT(epoch, 0);
  for (size_t i = 0; i < kServers; ++i) {
    EXPECT_EQ(status(i).leader, id(leader)) << "server " << id(i);
    EXPECT_EQ(status(i).epoch, epoch) << "server " << id(i);
    EXPECT_NE(srvr(i).find(i == leader ? "Mode: leader\n" : "Mode: follower\n"), std::string::npos)
        << srvr(i);
  }
  // A healthy ensemble keeps its leader: 3 s is six silence limits.
  ensemble_.advance(milliseconds(3000));
  for (size_t i = 0; i < kServers; ++i) {
    EXPECT_TRUE(serves(i)) << "server " << id(i);
    EXPECT_EQ(status(i).leader, id(leader)) << "server " << id(i);
    EXPECT_EQ(status(i).epoch, epoch) << "server " << id(i);
  }
}

TEST_F(ReplicationTest, AWriteOnTheLeaderIsReadOnEveryFollowerAfterSync) {
  const size_t leader = wait_for_leader();
  auto writer = client(leader);
  const auto created = create(*writer, "/a", "on-the-leader");
  ASSERT_EQ(created.err, Error::kOk);
  // Its zxid is of the leader's epoch.
  EXPECT_EQ(created.zxid >> 32, status(leader).epoch);
  for (size_t i = 0; i < kServers; ++i) {
    if (i == leader) continue;
    auto reader = client(i);
    EXPECT_EQ(synced_read(*reader, "/a"), "on-the-leader") << "server " << id(i);
  }
}

TEST_F(ReplicationTest, AWriteSentToAFollowerIsCommittedThroughTheLeader) {
  const size_t leader = wait_for_leader();
  const size_t follower = (leader + 1) % kServers;
  auto writer = client(follower);
  const auto created = create(*writer, "/b", "via-a-follower");
  ASSERT_EQ(created.err, Error::kOk);
  EXPECT_EQ(created.zxid >> 32, status(leader).epoch);
  for (size_t i = 0; i < kServers; ++i) {
    if (i == follower) continue;
    auto reader = client(i);
    EXPECT_EQ(synced_read(*reader, "/b"), "via-a-follower") << "server " << id(i);
  }
}

TEST_F(ReplicationTest, AWatchSetOnAFollowerFiresForAWriteOnTheLeader) {
  const size_t leader = wait_for_leader();
  const size_t follower = (leader + 1) % kServers;
  auto watcher = client(follower);
  send(*watcher, 1, OpCode::kExists, zk::test::path_body("/w", /*watch=*/true));
  ASSERT_EQ(next(*watcher).first.err, Error::kNoNode);
  auto writer = client(leader);
  const auto created = create(*writer, "/w", "");
  ASSERT_EQ(created.err, Error::kOk);
  const auto [header, body] = next(*watcher);
  EXPECT_EQ(header.xid, zk::wire::kNotificationXid);
  EXPECT_EQ(header.zxid, created.zxid);
  zk::wire::WatcherEvent event;
  ASSERT_TRUE(zk::wire::decode(body, event));
  EXPECT_EQ(event.type, zk::wire::EventType::kNodeCreated);
  EXPECT_EQ(event.path, "/w");
}

TEST_F(ReplicationTest, AFollowersClientKeepsItsSessionByPingsAndLosesItBySilence) {
  const size_t leader = wait_for_leader();
  const size_t follower = (leader + 1) % kServers;
  auto owner = client(follower);
  send(*owner, 1, OpCode::kCreate, zk::test::create_body("/eph", "", /*ephemeral*/ 1));
  ASSERT_EQ(next(*owner).first.err, Error::kOk);
  // Pinged at the follower for three session timeouts: the follower
  // reports the session to the leader, which decides expiry, and keeps it.
  for (int i = 0; i < 3 * kSessionMs / 500; ++i) {
    ensemble_.advance(milliseconds(500));
    send(*owner, zk::wire::kPingXid, OpCode::kPing, "");
    EXPECT_EQ(next(*owner).first.xid, zk::wire::kPingXid);
  }
  auto looker = client(leader);
  EXPECT_EQ(exists(*looker, "/eph"), Error::kOk);
  // Silent past its timeout: the leader expires it, its follower closes its
  // connection, and no server keeps its ephemeral.
  ensemble_.advance(milliseconds(kSessionMs + 1000));
  EXPECT_FALSE(owner->accepting_sends());
  for (size_t i = 0; i < kServers; ++i) {
    auto c = client(i);
    EXPECT_EQ(exists(*c, "/eph"), Error::kNoNode) << "server " << id(i);
  }
}

TEST_F(ReplicationTest, ACutOffLeaderStepsDownAndTheOthersElectOneOnAHigherEpoch) {
  const Cut cut = cut_off_leader();
  ASSERT_TRUE(cut.settled) << "no new leader, or the old one still serves";
  const zab::Epoch epoch = status(cut.new_leader).epoch;
  EXPECT_GT(epoch, cut.old_epoch);
  EXPECT_EQ(status(cut.follower).leader, id(cut.new_leader));
  EXPECT_EQ(status(cut.follower).epoch, epoch);

  // The old leader lost its quorum: it stepped down (cut.settled: it does
  // not serve), dropped its clients without answering the write, and takes
  // no new session.
  EXPECT_NE(status(cut.old_leader).role, Role::kLeading);
  EXPECT_FALSE(serves(cut.old_leader));
  EXPECT_NE(srvr(cut.old_leader).find("not currently serving"), std::string::npos)
      << srvr(cut.old_leader);
  EXPECT_FALSE(cut.stranded->accepting_sends());
  for (const std::string& frame : cut.stranded->sent) {
    zk::wire::ReplyHeader header;
    ASSERT_TRUE(zk::wire::decode(frame, header));
    EXPECT_NE(header.xid, 7) << "the uncommitted create was answered";
  }
  auto late = ensemble_.open(cut.old_leader);
  zk::wire::ConnectRequest request;
  request.timeout_ms = kSessionMs;
  late->receive(zk::wire::encode(request));
  EXPECT_FALSE(within(milliseconds(1000), [&] { return !late->sent.empty(); }));

  // The majority serves writes, through either of its servers, on its epoch.
  for (size_t i : {cut.new_leader, cut.follower}) {
    auto writer = client(i);
    const auto created = create(*writer, "/after-" + std::to_string(id(i)), "majority");
    EXPECT_EQ(created.err, Error::kOk) << "server " << id(i);
    EXPECT_EQ(created.zxid >> 32, epoch) << "server " << id(i);
  }
}

TEST_F(ReplicationTest, ACutOffLeaderRejoinsAsAFollowerWithoutWhatItDidNotCommit) {
  const Cut cut = cut_off_leader();
  ASSERT_TRUE(cut.settled) << "no new leader, or the old one still serves";
  auto writer = client(cut.new_leader);
  ASSERT_EQ(create(*writer, "/during", "while-cut-off").err, Error::kOk);

  ensemble_.network().isolate(id(cut.old_leader), false);
  ASSERT_TRUE(run_until([&] { return serves(cut.old_leader); }));
  EXPECT_EQ(status(cut.old_leader).role, Role::kFollowing);
  EXPECT_EQ(status(cut.old_leader).leader, id(cut.new_leader));
  EXPECT_EQ(status(cut.old_leader).epoch, status(cut.new_leader).epoch);
  EXPECT_EQ(last_zxid(cut.old_leader), last_zxid(cut.new_leader));
  auto reader = client(cut.old_leader);
  EXPECT_EQ(synced_read(*reader, "/during"), "while-cut-off");
  // Its proposal of /lost was cut from its log: no server has the node.
  for (size_t i = 0; i < kServers; ++i) {
    auto looker = client(i);
    EXPECT_EQ(synced_read(*looker, "/lost"), std::nullopt) << "server " << id(i);
  }
  // Nor from its disk: restarted, it replays no /lost.
  ensemble_.crash(cut.old_leader);
  ensemble_.start(cut.old_leader, 300);
  ASSERT_TRUE(run_until([&] { return serves(cut.old_leader); }));
  auto restarted = client(cut.old_leader);
  EXPECT_EQ(synced_read(*restarted, "/lost"), std::nullopt);
  EXPECT_EQ(synced_read(*restarted, "/during"), "while-cut-off");
}

TEST_F(ReplicationTest, AFollowerThatWasDownCatchesUpWhenItRejoins) {
  const size_t leader = wait_for_leader();
  const size_t follower = (leader + 1) % kServers;
  const zab::Epoch epoch = status(leader).epoch;
  ensemble_.crash(follower);

  // Two of three are a quorum: writes go on without it.
  auto writer = client(leader);
  for (int k = 0; k < 5; ++k) {
    ASSERT_EQ(create(*writer, "/missed-" + std::to_string(k), std::to_string(k)).err, Error::kOk);
  }

  ensemble_.start(follower, 200);
  ASSERT_TRUE(run_until([&] { return serves(follower); }));
  EXPECT_EQ(status(follower).role, Role::kFollowing);
  EXPECT_EQ(status(follower).leader, id(leader));
  // Its return cost no election: the leader kept its epoch.
  EXPECT_EQ(status(leader).epoch, epoch);
  EXPECT_EQ(status(follower).epoch, epoch);
  EXPECT_EQ(last_zxid(follower), last_zxid(leader));
  auto reader = client(follower);
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(synced_read(*reader, "/missed-" + std::to_string(k)), std::to_string(k));
  }
}

// The audit logs of AuditReplicationTest's servers: real files in a temp
// dir, beside the in-memory disks. A base of the fixture made before
// ReplicationTest starts the servers, which open the files.
struct AuditFiles {
  zk::test::TempDir dir{"zkd-audit-replication"};
  std::string audit_file(size_t i) const { return dir.at("audit-" + std::to_string(i) + ".log"); }
  std::string audit_log(size_t i) const {
    std::ifstream in(audit_file(i));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

// audit.enable on every server, each writing its own file.
class AuditReplicationTest : protected AuditFiles, public ReplicationTest {
 protected:
  AuditReplicationTest()
      : ReplicationTest([this](size_t i, ServerConfig& config) {
          config.audit_enabled = true;
          config.audit_log_file = audit_file(i);
        }) {}
};

TEST_F(AuditReplicationTest, AClientsWriteIsAuditedWhereItIsAnsweredItsEphemeralsEverywhere) {
  const size_t leader = wait_for_leader();
  const size_t follower = (leader + 1) % kServers;
  auto writer = client(follower);
  ASSERT_EQ(create(*writer, "/a", "x").err, Error::kOk);
  EXPECT_EQ(create(*writer, "/a", "x").err, Error::kNodeExists);
  send(*writer, 20, OpCode::kCreate, zk::test::create_body("/a/e", "", /*flags=*/1));
  ASSERT_EQ(next(*writer).first.err, Error::kOk);
  send(*writer, 21, OpCode::kCloseSession, "");
  ASSERT_EQ(next(*writer).first.err, Error::kOk);
  const std::string deletion =
      "operation=ephemeralZNodeDeletionOnSessionCloseOrExpire\tznode=/a/e\tresult=success\n";
  ASSERT_TRUE(run_until([&] {
    for (size_t i = 0; i < kServers; ++i) {
      if (audit_log(i).find(deletion) == std::string::npos) return false;
    }
    return true;
  })) << "every server audits the ephemeral's deletion";

  const std::string on_follower = audit_log(follower);
  EXPECT_NE(on_follower.find("INFO o.a.z.a.Slf4jAuditLogger: session=0x"), std::string::npos);
  EXPECT_NE(on_follower.find("\toperation=create\tznode=/a\tznode_type=persistent\t"
                             "result=success\n"),
            std::string::npos)
      << on_follower;
  EXPECT_NE(on_follower.find("ERROR o.a.z.a.Slf4jAuditLogger: "), std::string::npos);
  EXPECT_NE(on_follower.find("\toperation=create\tznode=/a\tznode_type=persistent\t"
                             "result=failure\n"),
            std::string::npos);
  EXPECT_NE(on_follower.find("\toperation=create\tznode=/a/e\tznode_type=ephemeral\t"),
            std::string::npos);
  for (size_t i = 0; i < kServers; ++i) {
    EXPECT_NE(audit_log(i).find("\toperation=serverStart\tresult=success\n"), std::string::npos);
    if (i == follower) continue;
    EXPECT_EQ(audit_log(i).find("operation=create"), std::string::npos)
        << "server " << id(i) << " audited a write its client did not send there";
  }
}

// reconfigEnabled (super:secret may reconfig) and a zoo.cfg on every
// disk, /conf/zoo.cfg, but on server 3's: its /conf cannot be written, so
// its dynamic files fail.
class DynamicFilesReplicationTest : public ReplicationTest {
 protected:
  DynamicFilesReplicationTest()
      : ReplicationTest([this](size_t i, ServerConfig& config) {
          config.reconfig_enabled = true;
          config.digest.super_digest = "super:lK75jTNcA+U9vtVEw5vB51mj/w4=";
          config.source = "/conf/zoo.cfg";
          if (i == 2) return;
          std::string text = kZooCfg;
          for (const auto& [id, line] : config.servers) {
            text += "server." + std::to_string(id) + "=" + line + "\n";
          }
          storage::Env& env = *ensemble_.node(i).env;
          EXPECT_TRUE(env.create_dirs("/conf").ok());
          auto file = env.new_writable_file("/conf/zoo.cfg", 0);
          ASSERT_TRUE(file.ok());
          EXPECT_TRUE((*file)->append(text).ok());
          EXPECT_TRUE((*file)->sync().ok());
          EXPECT_TRUE((*file)->close().ok());
        }) {}
  std::string file(size_t i, const std::string& path) {
    auto text = ensemble_.node(i).env->read_file(path);
    return text.ok() ? *text : "(" + text.status().message() + ")";
  }
};

TEST_F(DynamicFilesReplicationTest, ACommittedReconfigIsWrittenWhereItCanBeAndServingGoesOn) {
  const size_t leader = wait_for_leader();
  for (size_t i = 0; i < 2; ++i) {
    const std::string bak = file(i, "/conf/zoo.cfg.bak");
    EXPECT_TRUE(bak.starts_with(kZooCfg) && bak.ends_with("server.3=127.0.0.1:2883:3883\n")) << bak;
  }
  // A follower leaves; not server 3, which stays to show it serves on.
  const size_t leaving = leader == 0 ? 1 : 0;
  auto admin = client(leader);
  zk::wire::AuthPacket super;
  super.scheme = "digest";
  super.auth = "super:secret";
  send(*admin, -4, OpCode::kAuth, zk::wire::encode(super));
  ASSERT_EQ(next(*admin).first.err, Error::kOk);
  zk::wire::ReconfigRequest remove;
  remove.leaving = std::to_string(id(leaving));
  send(*admin, 9, OpCode::kReconfig, zk::wire::encode(remove));
  const auto [header, body] = next(*admin);
  ASSERT_EQ(header.err, Error::kOk);
  char hex[17];
  auto end = std::to_chars(hex, hex + sizeof hex, static_cast<uint64_t>(header.zxid), 16).ptr;
  const std::string dynamic = "/conf/zoo.cfg.dynamic." + std::string(hex, end);
  const std::string gone = "server." + std::to_string(id(leaving)) + "=";
  for (size_t i = 0; i < 2; ++i) {  // the one removed too
    EXPECT_TRUE(run_until([&] { return ensemble_.node(i).env->file_exists(dynamic); }))
        << "server " << id(i);
    const std::string text = file(i, dynamic);
    EXPECT_NE(text.find("server.3="), std::string::npos) << text;
    EXPECT_EQ(text.find(gone), std::string::npos) << text;
    EXPECT_EQ(text.find("version"), std::string::npos) << text;
    const std::string cfg = file(i, "/conf/zoo.cfg");
    EXPECT_TRUE(cfg.ends_with("\ndynamicConfigFile=" + dynamic + "\n")) << cfg;
    EXPECT_EQ(cfg.find("server."), std::string::npos) << cfg;
  }
  // Server 3 could write nothing: it logged that and serves on.
  EXPECT_FALSE(ensemble_.node(2).env->file_exists(dynamic));
  EXPECT_TRUE(serves(2));
  auto writer = client(2);
  EXPECT_EQ(create(*writer, "/after", "x").err, Error::kOk);

  // Its conf directory back, it writes the membership once it serves again
  // (as after a crash between a commit and the write).
  storage::Env& env = *ensemble_.node(2).env;
  ASSERT_TRUE(env.create_dirs("/conf").ok());
  {
    auto cfg = env.new_writable_file("/conf/zoo.cfg", 0);
    ASSERT_TRUE(cfg.ok());
    ASSERT_TRUE((*cfg)->append(std::string(kZooCfg) + "server.3=127.0.0.1:2883:3883\n").ok());
    ASSERT_TRUE((*cfg)->close().ok());
  }
  ensemble_.network().isolate(id(2), true);
  EXPECT_TRUE(run_until([&] { return !serves(2); }));
  ensemble_.network().isolate(id(2), false);
  EXPECT_TRUE(run_until([&] { return serves(2); }));
  EXPECT_TRUE(env.file_exists(dynamic));
  EXPECT_TRUE(file(2, "/conf/zoo.cfg").ends_with("\ndynamicConfigFile=" + dynamic + "\n"));
}

}  // namespace
}  // namespace zkd::server
