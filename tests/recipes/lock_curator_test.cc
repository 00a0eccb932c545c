// SPDX-License-Identifier: Apache-2.0
// Curator 5 (Apache's Java recipes, tests/recipes/curator/CuratorLockPeer.java)
// and zk::recipes / zkctl on the same paths of a real zkd: InterProcessMutex
// holders and `zkctl lock` holders exclude each other (the external marker
// and counter), each side's holder blocks the other side's try, the node
// layouts are the same, and LeaderLatch candidates and `zkctl elect`
// candidates elect one leader at a time and hand over to each other.
//
// The lock paths are created before the exclusion tests run; Curator creates
// missing parents as container nodes (createContainer, opcode 19), which
// MissingLockParentsAreContainersTheServerRemoves checks.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <future>
#include <memory>
#include <regex>

#include "recipes/lock.h"
#include "recipes/protected_create.h"
#include "tests/recipes/recipe_test_util.h"

namespace {

using namespace std::chrono_literals;
using namespace zk::recipes::testing;

std::vector<std::string> peer(const std::vector<std::string>& args) {
  return curator_peer(CURATOR_PEER_SOURCE, args);
}

class CuratorInterop : public CuratorTest {};

TEST_F(CuratorInterop, InterProcessMutexAndZkctlLockExcludeEachOther) {
  ASSERT_TRUE(zk::recipes::ensure_path(*admin_, "/interop/mutex").ok());
  const auto& d = dir_.path();
  constexpr int kJavaRounds = 15, kZkctlRounds = 6;
  std::vector<pid_t> javas;
  for (int j = 0; j < 2; ++j) {
    javas.push_back(spawn(
        peer({"mutex", zkd_->address(), "/interop/mutex", std::to_string(kJavaRounds), d.string()}),
        d / ("java" + std::to_string(j) + ".log")));
  }
  ASSERT_TRUE(wait_until(
      [&] {
        return read_text(d / "java0.log").find("ready") != std::string::npos &&
               read_text(d / "java1.log").find("ready") != std::string::npos;
      },
      60s))
      << read_text(d / "java0.log");
  {
    std::ofstream script(d / "cs.sh");
    script << "mkdir '" << d.string() << "/held' 2>/dev/null || echo overlap >> '" << d.string()
           << "/violations'; n=$(cat '" << d.string() << "/counter' 2>/dev/null || echo 0); "
           << "echo $((n+1)) > '" << d.string() << "/counter'; rmdir '" << d.string() << "/held'\n";
  }
  std::ofstream(d / "go").close();  // the Java peers start their rounds
  std::vector<pid_t> loops;
  for (int p = 0; p < 2; ++p) {
    loops.push_back(spawn(
        {"/bin/sh", "-c",
         "i=0; while [ $i -lt " + std::to_string(kZkctlRounds) + " ]; do '" + zkctl_binary() +
             "' -s " + zkd_->address() + " lock /interop/mutex -- sh '" + (d / "cs.sh").string() +
             "' || echo failed >> '" + d.string() + "/failures'; i=$((i+1)); done"},
        d / ("loop" + std::to_string(p) + ".log")));
  }
  for (pid_t pid : loops) {
    auto status = wait_exit(pid, 120s);
    ASSERT_TRUE(status);
    EXPECT_EQ(exit_code(*status), 0);
  }
  for (size_t j = 0; j < javas.size(); ++j) {
    auto status = wait_exit(javas[j], 120s);
    ASSERT_TRUE(status);
    EXPECT_EQ(exit_code(*status), 0) << read_text(d / ("java" + std::to_string(j) + ".log"));
  }
  EXPECT_EQ(read_text(d / "violations"), "") << "a Curator and a zkctl holder at once";
  EXPECT_EQ(read_text(d / "failures"), "");
  EXPECT_EQ(read_text(d / "counter"), std::to_string(2 * kJavaRounds + 2 * kZkctlRounds) + "\n");
}

TEST_F(CuratorInterop, EachSidesHolderBlocksTheOtherAndTheLayoutsMatch) {
  ASSERT_TRUE(zk::recipes::ensure_path(*admin_, "/interop/layout").ok());
  const auto& d = dir_.path();
  const pid_t holder =
      spawn(peer({"hold", zkd_->address(), "/interop/layout", d.string()}), d / "hold.log");
  ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(d / "java-holds"); }, 60s))
      << read_text(d / "hold.log");
  auto names = admin_->get_children("/interop/layout");
  ASSERT_TRUE(names.ok());
  ASSERT_EQ(names->size(), 1u);
  const std::regex curator_layout(
      "_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
      "-lock-[0-9]{10}");
  EXPECT_TRUE(std::regex_match(names->front(), curator_layout)) << names->front();

  zk::recipes::Lock ours(*admin_, "/interop/layout");
  EXPECT_EQ(ours.acquire(0ms).error(), zk::wire::Error::kOperationTimeout);
  std::ofstream(d / "java-release").close();
  auto status = wait_exit(holder, 60s);
  ASSERT_TRUE(status);
  EXPECT_EQ(exit_code(*status), 0) << read_text(d / "hold.log");

  auto hold = ours.acquire(20s);
  ASSERT_TRUE(hold.ok());
  EXPECT_TRUE(std::regex_match(hold->node().substr(hold->node().rfind('/') + 1), curator_layout))
      << hold->node();
  const auto try_peer = peer({"try", zkd_->address(), "/interop/layout"});
  auto tried = zk::lab::run_zkd(try_peer.front(), {try_peer.begin() + 1, try_peer.end()}, 60s);
  EXPECT_EQ(exit_code(tried.status), 0) << tried.output;
  EXPECT_NE(tried.output.find("busy"), std::string::npos) << tried.output;
}

// InterProcessMutex on a missing path creates its parents as containers
// (creatingParentContainersIfNeeded): once the lock is released they are
// empty and zkd's container manager removes them, innermost first, as
// Apache's does. Persistent parents would stay.
TEST_F(CuratorInterop, MissingLockParentsAreContainersTheServerRemoves) {
  const auto try_peer = peer({"try", zkd_->address(), "/containers/a/lock"});
  auto tried = zk::lab::run_zkd(try_peer.front(), {try_peer.begin() + 1, try_peer.end()}, 60s);
  EXPECT_EQ(exit_code(tried.status), 0) << tried.output;
  ASSERT_NE(tried.output.find("acquired"), std::string::npos) << tried.output;
  auto deleted = std::make_shared<std::promise<zk::wire::EventType>>();
  auto outer = admin_->exists(
      "/containers", [deleted](const zk::client::WatchedEvent& e) { deleted->set_value(e.type); });
  ASSERT_TRUE(outer.ok());
  if (outer->has_value()) {  // else already swept
    auto event = deleted->get_future();
    ASSERT_EQ(event.wait_for(30s), std::future_status::ready) << "/containers is still there";
    EXPECT_EQ(event.get(), zk::wire::EventType::kNodeDeleted);
  }
  auto after = admin_->exists("/containers");
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
}

TEST_F(CuratorInterop, LeaderLatchAndZkctlElectHandOverToEachOther) {
  ASSERT_TRUE(zk::recipes::ensure_path(*admin_, "/interop/election").ok());
  const auto& d = dir_.path();
  auto elect = [&](const std::string& id) {
    return spawn({zkctl_binary(), "-s", zkd_->address(), "elect", "/interop/election", "--id", id},
                 d / (id + ".log"));
  };
  auto is_leader = [&](const std::string& id) {
    return read_text(d / (id + ".log")).find("leader " + id) != std::string::npos;
  };
  const pid_t ours_first = elect("ours1");
  ASSERT_TRUE(wait_until([&] { return is_leader("ours1"); }, 30s));
  const pid_t latch =
      spawn(peer({"latch", zkd_->address(), "/interop/election", "curator"}), d / "curator.log");
  const pid_t ours_second = [&] {
    // The latch queues before ours2: wait for its node.
    EXPECT_TRUE(wait_until(
        [&] {
          auto c = admin_->get_children("/interop/election");
          return c.ok() && c->size() == 2;
        },
        60s))
        << read_text(d / "curator.log");
    return elect("ours2");
  }();
  ASSERT_TRUE(wait_until(
      [&] {
        auto c = admin_->get_children("/interop/election");
        return c.ok() && c->size() == 3;
      },
      30s));
  EXPECT_FALSE(is_leader("curator"));
  EXPECT_FALSE(is_leader("ours2"));

  kill(ours_first, SIGTERM);  // steps down: the latch is next
  ASSERT_TRUE(wait_exit(ours_first, 20s));
  ASSERT_TRUE(wait_until([&] { return is_leader("curator"); }, 30s))
      << read_text(d / "curator.log");
  EXPECT_FALSE(is_leader("ours2"));

  kill(latch, SIGTERM);  // the latch closes: ours2 is next
  ASSERT_TRUE(wait_exit(latch, 30s));
  ASSERT_TRUE(wait_until([&] { return is_leader("ours2"); }, 30s));
  kill(ours_second, SIGTERM);
  auto status = wait_exit(ours_second, 20s);
  ASSERT_TRUE(status);
  EXPECT_EQ(exit_code(*status), 0);
}

}  // namespace
