// SPDX-License-Identifier: Apache-2.0
// The coordination recipes through the library, several sessions (threads)
// against real zkd: counter values and layouts, the ready-znode configuration
// never read as a mix of versions, rendezvous, group membership with session
// expiry, the simple barrier, the queue's FIFO order and item format.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "recipes/barrier.h"
#include "recipes/config.h"
#include "recipes/counter.h"
#include "recipes/group.h"
#include "recipes/queue.h"
#include "recipes/rendezvous.h"
#include "tests/recipes/recipe_test_util.h"

namespace {

using namespace std::chrono_literals;
using namespace zk::recipes::testing;
using zk::wire::Error;

TEST(CounterRecipe, EncodesCuratorLayouts) {
  EXPECT_EQ(zk::recipes::encode_counter(258, 8), std::string("\0\0\0\0\0\0\x01\x02", 8));
  EXPECT_EQ(zk::recipes::encode_counter(-1, 4), std::string("\xff\xff\xff\xff", 4));
  auto v = zk::recipes::decode_counter(std::string("\xff\xff\xff\xfe", 4));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->value, -2);
  EXPECT_EQ(v->width, 4);
  EXPECT_EQ(zk::recipes::decode_counter(std::nullopt)->value, 0);
  EXPECT_FALSE(zk::recipes::decode_counter(std::string("abc")));
}

TEST(CounterRecipe, ConcurrentAddsEndAtTheSumAndKeepTheWidth) {
  auto ensemble = start_ensemble();
  ASSERT_TRUE(ensemble);
  constexpr int kThreads = 4, kAdds = 25;
  std::vector<std::thread> threads;
  std::vector<std::vector<int64_t>> seen(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto zk = connect(ensemble->connect_string());
      for (int i = 0; i < kAdds; ++i) {
        auto r = zk::recipes::add_to_counter(*zk, "/counters/c", 1);
        ASSERT_TRUE(r.ok()) << zk::wire::error_name(r.error());
        seen[t].push_back(*r);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<int64_t> values;
  for (const auto& s : seen) values.insert(s.begin(), s.end());
  EXPECT_EQ(values.size(), size_t{kThreads * kAdds});  // every add saw its own result
  auto zk = connect(ensemble->connect_string());
  EXPECT_EQ(*zk::recipes::read_counter(*zk, "/counters/c"), kThreads * kAdds);
  auto node = zk->get_data("/counters/c");
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(node->data->size(), 8u);
  auto children = zk->get_children("/counters/c");
  ASSERT_TRUE(children.ok());
  EXPECT_TRUE(children->empty());  // receipts are gone

  // A SharedCount-style 4-byte counter stays 4 bytes, and refuses to overflow.
  ASSERT_TRUE(zk->create("/counters/shared", std::string("\x7f\xff\xff\xfe", 4)).ok());
  EXPECT_EQ(*zk::recipes::add_to_counter(*zk, "/counters/shared", 1), 0x7fffffff);
  EXPECT_EQ(zk->get_data("/counters/shared")->data->size(), 4u);
  EXPECT_EQ(zk::recipes::add_to_counter(*zk, "/counters/shared", 1).error(), Error::kBadArguments);
}

// Version v of the configuration: keys k0..k(v % 4), each holding "v<v>".
zk::recipes::ConfigMap version(int v) {
  zk::recipes::ConfigMap map;
  for (int k = 0; k <= v % 4; ++k) map["k" + std::to_string(k)] = "v" + std::to_string(v);
  return map;
}

TEST(ConfigRecipe, ReadersNeverSeeAMixWhileAWriterAppliesVersions) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  constexpr int kVersions = 40;
  auto writer = connect(zkd->address());
  ASSERT_TRUE(zk::recipes::apply_config(*writer, "/app/config", version(0)).ok());
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      auto zk = connect(zkd->address());
      int last = -1;
      while (!done || last < kVersions) {
        auto snapshot = zk::recipes::read_config(*zk, "/app/config", 20s);
        ASSERT_TRUE(snapshot.ok()) << zk::wire::error_name(snapshot.error());
        ASSERT_FALSE(snapshot->values.empty());
        const int v = std::stoi(snapshot->values.begin()->second.substr(1));
        ASSERT_EQ(snapshot->values, version(v)) << "a mix of versions";
        EXPECT_GE(v, last);  // a reader never goes back in time
        last = v;
        ++reads;
      }
    });
  }
  for (int v = 1; v <= kVersions; ++v) {
    ASSERT_TRUE(zk::recipes::apply_config(*writer, "/app/config", version(v)).ok());
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_GE(reads.load(), 3);
}

TEST(ConfigRecipe, WaitsForTheReadyNodeAndTimesOut) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  auto zk = connect(zkd->address());
  EXPECT_EQ(zk::recipes::read_config(*zk, "/none", 0ms).error(), Error::kOperationTimeout);
  EXPECT_EQ(zk::recipes::apply_config(*zk, "/c", {{"ready", "x"}}).error(), Error::kBadArguments);
  std::thread reader([&] {
    auto other = connect(zkd->address());
    auto snapshot = zk::recipes::read_config(*other, "/c", 20s);
    ASSERT_TRUE(snapshot.ok());
    const zk::recipes::ConfigMap first{{"a", "1"}, {"b", "2"}}, second{{"a", "1"}};
    EXPECT_TRUE(snapshot->values == first || snapshot->values == second);
  });
  auto applied = zk::recipes::apply_config(*zk, "/c", {{"a", "1"}, {"b", "2"}});
  ASSERT_TRUE(applied.ok());
  auto second = zk::recipes::apply_config(*zk, "/c", {{"a", "1"}});  // b is removed
  ASSERT_TRUE(second.ok());
  EXPECT_GT(*second, *applied);
  reader.join();
}

TEST(RendezvousRecipe, TheFirstFillReachesTheWaiter) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  auto zk = connect(zkd->address());
  ASSERT_TRUE(zk::recipes::create_rendezvous(*zk, "/jobs/j1/master").ok());
  EXPECT_EQ(zk::recipes::await_rendezvous(*zk, "/jobs/j1/master", 0ms).error(),
            Error::kOperationTimeout);
  std::string got;
  std::thread worker([&] {
    auto other = connect(zkd->address());
    auto data = zk::recipes::await_rendezvous(*other, "/jobs/j1/master", 20s);
    ASSERT_TRUE(data.ok()) << zk::wire::error_name(data.error());
    got = *data;
  });
  ASSERT_TRUE(zk::recipes::fill_rendezvous(*zk, "/jobs/j1/master", "10.0.0.1:9000").ok());
  worker.join();
  EXPECT_EQ(got, "10.0.0.1:9000");
  EXPECT_EQ(zk::recipes::fill_rendezvous(*zk, "/jobs/j1/master", "other").error(),
            Error::kBadVersion);
  EXPECT_EQ(zk::recipes::create_rendezvous(*zk, "/jobs/j1/master").error(), Error::kNodeExists);
}

TEST(GroupRecipe, MembersJoinLeaveAndGoWithTheirSession) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  auto observer = connect(zkd->address());
  auto a = connect(zkd->address());
  auto b = connect(zkd->address(), 1000ms);
  ASSERT_TRUE(zk::recipes::join_group(*a, "/svc/members", "a", "host-a").ok());
  ASSERT_TRUE(zk::recipes::join_group(*a, "/svc/members", "a", "host-a").ok());  // own node
  EXPECT_EQ(zk::recipes::join_group(*b, "/svc/members", "a", "x").error(), Error::kNodeExists);
  ASSERT_TRUE(zk::recipes::join_group(*b, "/svc/members", "b", "").ok());
  auto members = zk::recipes::list_members(*observer, "/svc/members");
  ASSERT_TRUE(members.ok());
  EXPECT_EQ(*members, (std::vector<zk::recipes::GroupMember>{{"a", "host-a"}, {"b", ""}}));

  ASSERT_TRUE(zk::recipes::leave_group(*a, "/svc/members", "a").ok());
  auto after = zk::recipes::await_membership_change(*observer, "/svc/members", {"a", "b"}, 20s);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, (std::vector<zk::recipes::GroupMember>{{"b", ""}}));
  // b's client goes silent (destroyed without closing): the session expires.
  b.reset();
  auto gone = zk::recipes::await_membership_change(*observer, "/svc/members", {"b"}, 20s);
  ASSERT_TRUE(gone.ok()) << zk::wire::error_name(gone.error());
  EXPECT_TRUE(gone->empty());
}

TEST(BarrierRecipe, WaitersPassOnlyOnceTheBarrierIsRemoved) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  auto zk = connect(zkd->address());
  ASSERT_TRUE(zk::recipes::set_barrier(*zk, "/gate").ok());
  EXPECT_EQ(zk::recipes::wait_on_barrier(*zk, "/gate", 0ms).error(), Error::kOperationTimeout);
  std::atomic<int> passed{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&] {
      auto other = connect(zkd->address());
      ASSERT_TRUE(zk::recipes::wait_on_barrier(*other, "/gate", 20s).ok());
      ++passed;
    });
  }
  ASSERT_TRUE(zk::recipes::remove_barrier(*zk, "/gate").ok());
  for (auto& t : waiters) t.join();
  EXPECT_EQ(passed.load(), 3);
  EXPECT_TRUE(zk::recipes::wait_on_barrier(*zk, "/gate", 0ms).ok());
}

TEST(QueueRecipe, ItemFormatIsCuratorsItemSerializer) {
  const std::string encoded = zk::recipes::encode_queue_items({"ab"});
  EXPECT_EQ(encoded, std::string("\x00\x01\x00\x01\x01\x00\x00\x00\x02"
                                 "ab\x02",
                                 12));
  auto two = zk::recipes::decode_queue_items(zk::recipes::encode_queue_items({"x", ""}));
  ASSERT_TRUE(two);
  EXPECT_EQ(*two, (std::vector<std::string>{"x", ""}));
  EXPECT_FALSE(zk::recipes::decode_queue_items(std::string("plain")));
}

TEST(QueueRecipe, OneProducerIsFifoAndForeignItemsAreTakenInSequenceOrder) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  auto producer = connect(zkd->address());
  auto consumer = connect(zkd->address());
  for (int i = 0; i < 10; ++i) {
    auto put = zk::recipes::queue_put(*producer, "/work/q", "item" + std::to_string(i));
    ASSERT_TRUE(put.ok());
    EXPECT_NE(put->find("/work/q/_c_"), std::string::npos);
  }
  // An unprotected (Curator-named) item and a raw one, after the others.
  zk::recipes::QueuePutOptions curator_style;
  curator_style.protect = false;
  auto plain = zk::recipes::queue_put(*producer, "/work/q", "item10", curator_style);
  ASSERT_TRUE(plain.ok());
  EXPECT_NE(plain->find("/work/q/queue-"), std::string::npos);
  ASSERT_TRUE(producer
                  ->create("/work/q/queue-", std::string("item11"),
                           zk::wire::CreateMode::kPersistentSequential)
                  .ok());
  for (int i = 0; i < 12; ++i) {
    auto item = zk::recipes::queue_take(*consumer, "/work/q", 20s);
    ASSERT_TRUE(item.ok());
    EXPECT_EQ(item->items, std::vector<std::string>{"item" + std::to_string(i)});
  }
  auto empty = zk::recipes::queue_poll(*consumer, "/work/q");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
  EXPECT_EQ(zk::recipes::queue_take(*consumer, "/work/q", 0ms).error(), Error::kOperationTimeout);
  // A take that waits is woken by the next put.
  std::thread later(
      [&] { ASSERT_TRUE(zk::recipes::queue_put(*producer, "/work/q", "late").ok()); });
  auto late = zk::recipes::queue_take(*consumer, "/work/q", 20s);
  later.join();
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(late->items, std::vector<std::string>{"late"});
}

}  // namespace
