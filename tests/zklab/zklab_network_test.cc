// SPDX-License-Identifier: Apache-2.0
// zklab's network faults as a user runs them: the real zklab binary on a lab
// of three real zkd daemons whose peer links go through the lab's relay
// daemon; writes with the real zkctl. Waits poll `zklab status --json` with
// deadlines.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/zklab/zklab_test_util.h"
#include "zklab/process/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using zk::lab::testing::count_role;
using zk::lab::testing::describe;
using zk::lab::testing::Outcome;
using zk::lab::testing::read_file;
using zk::lab::testing::Status;

class ZklabNetworkTest : public zk::lab::testing::ZklabFixture {
 protected:
  // zkctl with `args` against the node at `address`: its exit status and output.
  zk::lab::RunResult zkctl(const std::string& address, std::vector<std::string> args) {
    args.insert(args.begin(), {"-s", address});
    return zk::lab::run_zkd(ZKCTL_BINARY, args, 30s);
  }

  pid_t relay_pid() const {
    std::istringstream in(read_file(lab_ / "relay.pid"));
    pid_t pid = 0;
    in >> pid;
    return pid;
  }
};

bool serving(const Status& s, int id) {
  const auto& role = s.at(id).role;
  return role == "leader" || role == "follower";
}

int leader_of(const Status& s) {
  for (const auto& [id, n] : s) {
    if (n.role == "leader") return id;
  }
  return 0;
}

TEST_F(ZklabNetworkTest, IsolateHealPartitionSlow) {
  Outcome up = zklab({"up", "-n", "3"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_NE(up.output.find("relay daemon pid"), std::string::npos) << up.output;
  ASSERT_TRUE(runs_in_lab(relay_pid()));

  // Every node has the same 16-byte session key.
  const std::string key = read_file(lab_ / "n1/data/session.key");
  EXPECT_EQ(key.size(), 16u);
  for (const char* node : {"n2", "n3"}) {
    EXPECT_EQ(read_file(lab_ / node / "data/session.key"), key) << node;
  }

  auto [before, ready] =
      wait_status([](const Status& st) { return count_role(st, "leader") == 1; });
  ASSERT_TRUE(ready) << describe(before);
  const int old_leader = leader_of(before);

  // Isolate the leader: the other two elect one of them; it stops serving.
  Outcome isolated = zklab({"isolate", "leader"});
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_NE(isolated.output.find("isolated node " + std::to_string(old_leader)), std::string::npos)
      << isolated.output;
  auto [split, elected] = wait_status([&](const Status& st) {
    const int leader = leader_of(st);
    return st.at(old_leader).alive && st.at(old_leader).role == "not serving" && leader != 0 &&
           leader != old_leader && count_role(st, "follower") == 1;
  });
  ASSERT_TRUE(elected) << describe(split);

  // A write through a node of the majority.
  const int majority = leader_of(split);
  auto created = zkctl(split.at(majority).address(), {"create", "/net", "v1"});
  EXPECT_EQ(created.status, 0) << created.output;

  // Heal: every node serves again under one leader; the old one has the write.
  Outcome healed = zklab({"heal"});
  ASSERT_EQ(healed.exit_code, 0) << healed.output;
  auto [whole, rejoined] = wait_status([](const Status& st) {
    return count_role(st, "leader") == 1 && count_role(st, "follower") == 2;
  });
  ASSERT_TRUE(rejoined) << describe(whole);
  auto got = zkctl(whole.at(old_leader).address(), {"get", "/net"});
  EXPECT_EQ(got.status, 0) << got.output;
  EXPECT_NE(got.output.find("v1"), std::string::npos) << got.output;

  // Partition {1, 2} from {3}: node 3 stops serving, 1 and 2 serve.
  Outcome partitioned = zklab({"partition", "1,2", "3"});
  ASSERT_EQ(partitioned.exit_code, 0) << partitioned.output;
  EXPECT_NE(partitioned.output.find("cut 1-3 2-3"), std::string::npos) << partitioned.output;
  auto [parted, minority_out] = wait_status([](const Status& st) {
    return st.at(3).alive && st.at(3).role == "not serving" && serving(st, 1) && serving(st, 2) &&
           count_role(st, "leader") == 1;
  });
  ASSERT_TRUE(minority_out) << describe(parted);

  // Node 2's links slowed by 50 ms: status shows it, and a write through node
  // 2 still succeeds.
  Outcome slowed = zklab({"slow", "2", "50ms"});
  ASSERT_EQ(slowed.exit_code, 0) << slowed.output;
  Outcome text = zklab({"status"});
  EXPECT_NE(text.output.find("faults: cut 1-3 2-3; slow 2 +50ms"), std::string::npos)
      << text.output;
  Outcome json = zklab({"status", "--json"});
  EXPECT_NE(json.output.find(R"("cut":[[1,3],[2,3]],"slow":[{"node":2,"delay_ms":50}])"),
            std::string::npos)
      << json.output;
  auto slow_write = zkctl(parted.at(2).address(), {"create", "/slow", "v2"});
  EXPECT_EQ(slow_write.status, 0) << slow_write.output;

  // down stops the relay daemon with the nodes; up starts one again (no faults).
  const pid_t relay = relay_pid();
  Outcome down = zklab({"down"});
  ASSERT_EQ(down.exit_code, 0) << down.output;
  EXPECT_NE(down.output.find("stopped the relay daemon (pid " + std::to_string(relay) + ")"),
            std::string::npos)
      << down.output;
  EXPECT_FALSE(runs_in_lab(relay));
  Outcome again = zklab({"up"});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_TRUE(runs_in_lab(relay_pid()));
  Outcome fresh = zklab({"status"});
  EXPECT_NE(fresh.output.find("faults: none"), std::string::npos) << fresh.output;
}

TEST_F(ZklabNetworkTest, BadArgumentsExitTwoWithUsage) {
  Outcome up = zklab({"up", "-n", "3"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"partition", "1,9"},
                                               {"partition", "1,1", "2"},
                                               {"partition", "1,x"},
                                               {"partition", "1,", "2"},
                                               {"partition"},
                                               {"slow", "1", "fast"},
                                               {"slow", "1", "5m"},
                                               {"slow", "1"},
                                               {"isolate"}}) {
    Outcome r = zklab(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << r.output;
  }
  Outcome no_node = zklab({"isolate", "9"});
  EXPECT_EQ(no_node.exit_code, 1) << no_node.output;
  EXPECT_NE(no_node.output.find("no node 9"), std::string::npos) << no_node.output;
  // Nothing of that changed the faults.
  Outcome text = zklab({"status"});
  EXPECT_NE(text.output.find("faults: none"), std::string::npos) << text.output;
}

TEST_F(ZklabNetworkTest, WithoutARunningLabExitOne) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"partition", "1", "2"}, {"isolate", "1"}, {"heal"}}) {
    Outcome r = zklab(args);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("no lab"), std::string::npos) << r.output;
  }
  Outcome up = zklab({"up", "-n", "3"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  ASSERT_EQ(zklab({"down"}).exit_code, 0);
  Outcome heal = zklab({"heal"});
  EXPECT_EQ(heal.exit_code, 1) << heal.output;
  EXPECT_NE(heal.output.find("relay daemon"), std::string::npos) << heal.output;
  EXPECT_NE(zklab({"status"}).output.find("relay daemon not running"), std::string::npos);
}

// up --direct: peers dial each other's real quorum ports (no relay daemon, as
// Apache's ensembles run); the lab elects and replicates, and network faults
// fail with a message that says why.
TEST_F(ZklabNetworkTest, DirectLabHasNoRelaysAndRefusesFaults) {
  Outcome up = zklab({"up", "-n", "3", "--direct"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_EQ(up.output.find("relay daemon pid"), std::string::npos) << up.output;
  EXPECT_FALSE(std::filesystem::exists(lab_ / "relay.links"));
  // Every node names the same server lines: nothing in between.
  auto server_lines = [&](int id) {
    std::istringstream cfg(read_file(lab_ / ("n" + std::to_string(id)) / "zoo.cfg"));
    std::string line, out;
    while (std::getline(cfg, line)) {
      if (line.rfind("server.", 0) == 0) out += line + "\n";
    }
    return out;
  };
  EXPECT_EQ(server_lines(1), server_lines(2));
  EXPECT_EQ(server_lines(1), server_lines(3));
  auto [s, elected] = wait_status([](const Status& st) { return count_role(st, "leader") == 1; });
  ASSERT_TRUE(elected) << describe(s);
  const int follower = leader_of(s) == 1 ? 2 : 1;
  ASSERT_EQ(zkctl(s.at(follower).address(), {"create", "/direct", "x"}).status, 0);
  auto got = zkctl(s.at(leader_of(s)).address(), {"get", "/direct"});
  EXPECT_EQ(got.status, 0) << got.output;
  EXPECT_NE(got.output.find("x"), std::string::npos) << got.output;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"partition", "1,2", "3"},
                                               {"isolate", "1"},
                                               {"slow", "1", "50ms"},
                                               {"heal"}}) {
    Outcome r = zklab(args);
    EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.output;
    EXPECT_NE(r.output.find("no network faults"), std::string::npos) << r.output;
  }
}

}  // namespace
