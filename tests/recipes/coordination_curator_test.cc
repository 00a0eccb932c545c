// SPDX-License-Identifier: Apache-2.0
// Curator 5 (Apache's Java recipes, tests/recipes/curator/
// CuratorCoordinationPeer.java) and zk::recipes' coordination recipes on the
// same znodes of a real zkd, where the layouts are compatible:
// DistributedAtomicLong and our counter add to one node and end at the exact
// sum; DistributedDoubleBarrier members and ours enter and leave one barrier
// together; a DistributedQueue producer's items are taken by our queue, in
// order. And the documented limit: our protected queue items
// ("_c_<uuid>-queue-<seq>") are invisible to Curator's consumer, which takes
// only "queue-" items.
//
// The parent paths are created before Curator runs: Curator creates missing
// parents as container nodes (createContainer, opcode 19).
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <future>
#include <thread>

#include "recipes/counter.h"
#include "recipes/double_barrier.h"
#include "recipes/protected_create.h"
#include "recipes/queue.h"
#include "tests/recipes/recipe_test_util.h"

namespace {

using namespace std::chrono_literals;
using namespace zk::recipes::testing;
using zk::wire::Error;

std::vector<std::string> peer(const std::vector<std::string>& args) {
  return curator_peer(CURATOR_PEER_SOURCE, args);
}

size_t occurrences(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

class CuratorCoordination : public CuratorTest {
 protected:
  // The children of `path`; empty when unreadable.
  std::vector<std::string> children(const std::string& path) {
    auto names = admin_->get_children(path);
    return names.ok() ? *names : std::vector<std::string>{};
  }
};

TEST_F(CuratorCoordination, DistributedAtomicLongAndOurCounterEndAtTheExactSum) {
  constexpr int kRounds = 40, kOurThreads = 2;
  ASSERT_TRUE(zk::recipes::ensure_path(*admin_, "/interop").ok());
  const auto d = dir_.path();
  const pid_t java = spawn(
      peer({"counter", zkd_->address(), "/interop/count", std::to_string(kRounds), d.string()}),
      d / "java.log");
  ASSERT_TRUE(
      wait_until([&] { return read_text(d / "java.log").find("ready") != std::string::npos; }, 60s))
      << read_text(d / "java.log");
  std::ofstream(d / "go").close();

  std::atomic<int> failures{0};
  std::vector<std::thread> ours;
  for (int t = 0; t < kOurThreads; ++t) {
    ours.emplace_back([&] {
      auto zk = connect(zkd_->address());
      for (int r = 0; zk && r < kRounds; ++r) {
        if (!zk::recipes::add_to_counter(*zk, "/interop/count", 1).ok()) ++failures;
      }
      if (!zk) ++failures;
    });
  }
  for (auto& t : ours) t.join();
  auto status = wait_exit(java, 120s);
  ASSERT_TRUE(status);
  EXPECT_EQ(exit_code(*status), 0) << read_text(d / "java.log");
  EXPECT_NE(read_text(d / "java.log").find("added " + std::to_string(kRounds)), std::string::npos);
  EXPECT_EQ(failures.load(), 0);
  auto total = zk::recipes::read_counter(*admin_, "/interop/count");
  ASSERT_TRUE(total.ok()) << zk::wire::error_name(total.error());
  EXPECT_EQ(*total, (kOurThreads + 1) * kRounds);
}

TEST_F(CuratorCoordination, DistributedDoubleBarrierMembersAndOursEnterAndLeaveTogether) {
  constexpr int kMembers = 4;  // two Curator members, two of ours
  const std::string path = "/interop/barrier";
  ASSERT_TRUE(zk::recipes::ensure_path(*admin_, path).ok());
  const auto d = dir_.path();
  const auto log = [&] { return read_text(d / "java.log"); };
  const pid_t java = spawn(peer({"barrier", zkd_->address(), path, std::to_string(kMembers), "2"}),
                           d / "java.log");
  ASSERT_TRUE(wait_until([&] { return children(path).size() == 2; }, 60s)) << log();

  // Three of four have arrived: nobody has entered.
  auto first_client = connect(zkd_->address()), second_client = connect(zkd_->address());
  ASSERT_TRUE(first_client && second_client);
  zk::recipes::DoubleBarrier first(*first_client, path, kMembers);
  zk::recipes::DoubleBarrier second(*second_client, path, kMembers);
  auto first_entered = std::async(std::launch::async, [&] { return first.enter(30s); });
  ASSERT_TRUE(wait_until([&] { return children(path).size() == 3; }, 20s));
  EXPECT_EQ(first_entered.wait_for(0ms), std::future_status::timeout);
  EXPECT_EQ(occurrences(log(), "entered"), 0u) << log();
  auto ready = admin_->exists(path + "/" + zk::recipes::kDoubleBarrierReadyNode);
  ASSERT_TRUE(ready.ok());
  EXPECT_FALSE(ready->has_value());

  // The fourth arrives: everyone enters.
  ASSERT_TRUE(second.enter(30s).ok());
  EXPECT_TRUE(first_entered.get().ok());
  ASSERT_TRUE(wait_until([&] { return occurrences(log(), "leaving") == 2; }, 30s)) << log();
  EXPECT_EQ(occurrences(log(), "entered"), 2u);

  // Three leave; nobody has left while the fourth is still inside.
  auto first_left = std::async(std::launch::async, [&] { return first.leave(30s); });
  auto still_inside = admin_->exists(second.member_path());
  ASSERT_TRUE(still_inside.ok());
  EXPECT_TRUE(still_inside->has_value());
  EXPECT_EQ(first_left.wait_for(0ms), std::future_status::timeout);
  EXPECT_EQ(occurrences(log(), "left"), 0u) << log();

  ASSERT_TRUE(second.leave(30s).ok());
  EXPECT_TRUE(first_left.get().ok());
  auto status = wait_exit(java, 60s);
  ASSERT_TRUE(status);
  EXPECT_EQ(exit_code(*status), 0) << log();
  EXPECT_EQ(occurrences(log(), "left"), 2u) << log();
  EXPECT_TRUE(children(path).empty()) << "members or the ready node left behind";
}

TEST_F(CuratorCoordination, DistributedQueueProducerItemsAreTakenByOursInOrder) {
  const std::string path = "/interop/queue";
  ASSERT_TRUE(zk::recipes::ensure_path(*admin_, path).ok());
  const auto produce = peer({"produce", zkd_->address(), path, "alpha", "beta", "gamma"});
  auto produced = zk::lab::run_zkd(produce.front(), {produce.begin() + 1, produce.end()}, 60s);
  ASSERT_EQ(exit_code(produced.status), 0) << produced.output;
  EXPECT_NE(produced.output.find("put 3"), std::string::npos) << produced.output;

  for (const char* expected : {"alpha", "beta", "gamma"}) {
    auto taken = zk::recipes::queue_take(*admin_, path, 10s);
    ASSERT_TRUE(taken.ok()) << zk::wire::error_name(taken.error());
    EXPECT_EQ(taken->items, std::vector<std::string>{expected});
    EXPECT_EQ(taken->path.rfind(path + "/queue-", 0), 0u) << taken->path;
  }
  auto empty = zk::recipes::queue_poll(*admin_, path);
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
}

// queue.h's documented limit: a Curator consumer takes "queue-" items only.
TEST_F(CuratorCoordination, OurProtectedItemsAreInvisibleToCuratorsConsumer) {
  const std::string path = "/interop/protected";
  ASSERT_TRUE(zk::recipes::ensure_path(*admin_, path).ok());
  auto protected_item = zk::recipes::queue_put(*admin_, path, "protected");
  ASSERT_TRUE(protected_item.ok());
  EXPECT_NE(protected_item->find("/_c_"), std::string::npos) << *protected_item;
  zk::recipes::QueuePutOptions plain;
  plain.protect = false;
  auto plain_item = zk::recipes::queue_put(*admin_, path, "plain", plain);
  ASSERT_TRUE(plain_item.ok());

  // The consumer takes one item and exits: the plain one, put after the
  // protected one.
  const auto consume = peer({"consume", zkd_->address(), path, "1"});
  auto consumed = zk::lab::run_zkd(consume.front(), {consume.begin() + 1, consume.end()}, 60s);
  ASSERT_EQ(exit_code(consumed.status), 0) << consumed.output;
  EXPECT_NE(consumed.output.find("took plain"), std::string::npos) << consumed.output;
  EXPECT_EQ(consumed.output.find("took protected"), std::string::npos) << consumed.output;
  auto still_there = admin_->exists(*protected_item);
  ASSERT_TRUE(still_there.ok());
  EXPECT_TRUE(still_there->has_value()) << "Curator took a protected item";

  auto taken = zk::recipes::queue_take(*admin_, path, 10s);
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->items, std::vector<std::string>{"protected"});
}

}  // namespace
