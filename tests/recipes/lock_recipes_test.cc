// SPDX-License-Identifier: Apache-2.0
// The lock recipes in-process against a real zkd, one session per contender:
// the herd-free lock wakes exactly one waiter per release and hands out
// increasing fencing tokens in queue order; mutual exclusion holds for the
// simple lock and the herd-free lock; the read/write lock lets readers hold
// together and a writer alone, in request order; a held lock whose session
// expires is reported lost; a create whose reply is lost is found again, never
// duplicated.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "recipes/leader_election.h"
#include "recipes/lock.h"
#include "recipes/protected_create.h"
#include "recipes/rw_lock.h"
#include "recipes/simple_lock.h"
#include "tests/common/tcp_proxy.h"
#include "tests/recipes/recipe_test_util.h"

namespace {

using namespace std::chrono_literals;
using zk::client::SyncClient;
using zk::recipes::LockHold;
using zk::recipes::LockOptions;
using zk::recipes::LossReason;
using namespace zk::recipes::testing;
using zk::test::TcpProxy;
using zk::wire::Error;

// Counts calls and lets a thread wait for a number of them.
class Counter {
 public:
  void add() {
    {
      std::lock_guard lock(mu_);
      ++count_;
    }
    cv_.notify_all();
  }
  bool wait_for(int n, std::chrono::milliseconds deadline) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, deadline, [&] { return count_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
};

TEST(HerdFreeLock, EachReleaseWakesExactlyOneWaiterAndTokensFollowTheQueue) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  auto first = connect(zkd->address());
  ASSERT_TRUE(first);
  zk::recipes::Lock first_lock(*first, "/herd/lock");
  auto first_hold = first_lock.acquire();
  ASSERT_TRUE(first_hold.ok()) << zk::wire::error_name(first_hold.error());

  constexpr int kWaiters = 5;
  Counter waiting;
  std::mutex mu;
  std::vector<int64_t> tokens;  // in acquisition order
  std::vector<std::unique_ptr<SyncClient>> clients;
  std::vector<std::unique_ptr<zk::recipes::Lock>> locks;
  for (int i = 0; i < kWaiters; ++i) {
    clients.push_back(connect(zkd->address()));
    ASSERT_TRUE(clients.back());
    LockOptions options;
    options.on_wait = [&](const std::string&) { waiting.add(); };
    locks.push_back(std::make_unique<zk::recipes::Lock>(*clients.back(), "/herd/lock", options));
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kWaiters; ++i) {
    threads.emplace_back([&, i] {
      auto hold = locks[i]->acquire(30s);
      if (!hold.ok()) {
        ++failures;
        return;
      }
      std::lock_guard lock(mu);
      tokens.push_back(hold->token().value());
    });  // released as the thread ends
  }
  ASSERT_TRUE(waiting.wait_for(kWaiters, 20s)) << "the waiters did not all queue";
  ASSERT_TRUE(first_hold->release().ok());
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);

  int64_t total_wakeups = 0;
  for (const auto& lock : locks) {
    EXPECT_EQ(lock->wakeups(), 1) << "a waiter woke more than once: a herd";
    total_wakeups += lock->wakeups();
  }
  EXPECT_EQ(total_wakeups, kWaiters);  // one per release
  ASSERT_EQ(tokens.size(), static_cast<size_t>(kWaiters));
  EXPECT_TRUE(std::is_sorted(tokens.begin(), tokens.end()));
  EXPECT_GT(tokens.front(), first_hold->token().value());
  auto left = first->get_children("/herd/lock");
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
}

// `acquire` run by `threads` threads, `rounds` times each, each with its own
// session; returns the largest number of simultaneous holders seen and
// checks a read-modify-write counter inside the critical section.
template <typename MakeLock>
void expect_mutual_exclusion(const std::string& address, MakeLock make_lock) {
  constexpr int kThreads = 4, kRounds = 8;
  std::atomic<int> holders{0}, max_holders{0}, failures{0};
  int counter = 0;  // guarded by the lock under test only
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      auto client = connect(address);
      if (!client) {
        ++failures;
        return;
      }
      auto lock = make_lock(*client);
      for (int r = 0; r < kRounds; ++r) {
        auto hold = lock->acquire(30s);
        if (!hold.ok()) {
          ++failures;
          return;
        }
        const int now = ++holders;
        int seen = max_holders.load();
        while (now > seen && !max_holders.compare_exchange_weak(seen, now)) {
        }
        const int read = counter;
        std::this_thread::yield();  // widen the window a second holder would hit
        counter = read + 1;
        --holders;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(max_holders.load(), 1);
  EXPECT_EQ(counter, kThreads * kRounds);
}

TEST(Locks, MutualExclusionHoldsForTheSimpleAndTheHerdFreeLock) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  expect_mutual_exclusion(zkd->address(), [](SyncClient& zk) {
    return std::make_unique<zk::recipes::SimpleLock>(zk, "/mx/simple");
  });
  expect_mutual_exclusion(zkd->address(), [](SyncClient& zk) {
    return std::make_unique<zk::recipes::Lock>(zk, "/mx/herdfree");
  });
}

TEST(ReadWriteLock, ReadersHoldTogetherAWriterAloneInRequestOrder) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  auto a = connect(zkd->address()), b = connect(zkd->address()), c = connect(zkd->address());
  ASSERT_TRUE(a && b && c);
  zk::recipes::ReadWriteLock lock_a(*a, "/rw"), lock_b(*b, "/rw");
  Counter writer_waiting;
  LockOptions writer_options;
  writer_options.on_wait = [&](const std::string&) { writer_waiting.add(); };
  zk::recipes::ReadWriteLock lock_c(*c, "/rw", writer_options);

  auto r1 = lock_a.acquire_read(0ms);
  auto r2 = lock_b.acquire_read(0ms);
  ASSERT_TRUE(r1.ok() && r2.ok()) << "two readers must hold together";
  EXPECT_EQ(lock_c.acquire_write(0ms).error(), Error::kOperationTimeout);

  auto writer = std::async(std::launch::async, [&] { return lock_c.acquire_write(30s); });
  // The try above waited once already; the second wait is the writer's.
  ASSERT_TRUE(writer_waiting.wait_for(2, 20s));
  // A reader behind a waiting writer waits too.
  EXPECT_EQ(lock_b.acquire_read(0ms).error(), Error::kOperationTimeout);
  ASSERT_TRUE(r1->release().ok());
  ASSERT_TRUE(r2->release().ok());
  auto w = writer.get();
  ASSERT_TRUE(w.ok()) << zk::wire::error_name(w.error());
  EXPECT_GT(w->token(), r1->token());
  EXPECT_EQ(lock_a.acquire_read(0ms).error(), Error::kOperationTimeout);
  EXPECT_EQ(lock_b.acquire_write(0ms).error(), Error::kOperationTimeout);
  ASSERT_TRUE(w->release().ok());
  auto r3 = lock_a.acquire_read(0ms);
  ASSERT_TRUE(r3.ok());
  EXPECT_GT(r3->token(), w->token());
  auto names = a->get_children("/rw");
  ASSERT_TRUE(names.ok());
  ASSERT_EQ(names->size(), 1u);
  EXPECT_NE(names->front().find("-__READ__"), std::string::npos) << names->front();
  EXPECT_TRUE(names->front().starts_with("_c_")) << names->front();
}

// A zkd with a TcpProxy in front of it, a client through the proxy
// (session timeout `session_timeout`) and one straight to the zkd.
struct Proxied {
  std::unique_ptr<zk::lab::ZkdProcess> zkd;
  std::unique_ptr<TcpProxy> proxy;
  std::unique_ptr<SyncClient> through, direct;
  bool ok() const { return zkd && proxy && through && direct; }
};

Proxied start_proxied(std::chrono::milliseconds session_timeout) {
  Proxied p;
  p.zkd = start_zkd(recipe_zkd());
  if (!p.zkd) return p;
  p.proxy = std::make_unique<TcpProxy>(p.zkd->port());
  p.through = connect(p.proxy->address(), session_timeout);
  p.direct = connect(p.zkd->address());
  return p;
}

TEST(LockLoss, AHeldLockWhoseSessionExpiresIsReportedLostAndGoesToTheNextWaiter) {
  auto setup = start_proxied(2000ms);
  ASSERT_TRUE(setup.ok());
  auto& zkd = setup.zkd;
  auto &holder = setup.through, &other = setup.direct;
  TcpProxy& proxy = *setup.proxy;
  std::promise<LossReason> reported;
  LockOptions options;
  options.on_lost = [&](LossReason r) { reported.set_value(r); };
  zk::recipes::Lock holder_lock(*holder, "/expiry", options);
  auto hold = holder_lock.acquire();
  ASSERT_TRUE(hold.ok());
  zk::recipes::Lock other_lock(*other, "/expiry");
  EXPECT_EQ(other_lock.acquire(0ms).error(), Error::kOperationTimeout);

  // Cut the holder off, then end its session from elsewhere (as the server
  // does when the holder stays away past the timeout).
  proxy.set_refusing(true);
  zk::client::ClientOptions resume;
  resume.resume = holder->credentials();
  auto impostor = connect(zkd->address(), 2000ms, resume);
  ASSERT_TRUE(impostor);
  ASSERT_TRUE(impostor->close().ok());

  auto next = other_lock.acquire(20s);
  ASSERT_TRUE(next.ok()) << zk::wire::error_name(next.error());
  EXPECT_GT(next->token(), hold->token());
  EXPECT_TRUE(hold->held()) << "the holder cannot know while cut off";

  proxy.set_refusing(false);
  ASSERT_TRUE(hold->wait_lost(20s));
  EXPECT_EQ(hold->loss(), LossReason::kSessionExpired);
  auto future = reported.get_future();
  ASSERT_EQ(future.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(future.get(), LossReason::kSessionExpired);
  EXPECT_FALSE(hold->held());
  EXPECT_TRUE(hold->release().ok());
}

TEST(LockLoss, DeletingTheHoldersNodeIsReportedAsLost) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  auto holder = connect(zkd->address()), admin = connect(zkd->address());
  ASSERT_TRUE(holder && admin);
  zk::recipes::LeaderElection election(*holder, "/elect", "alpha");
  auto leadership = election.await_leadership(0ms);
  ASSERT_TRUE(leadership.ok());
  auto leader = zk::recipes::LeaderElection::leader_id(*admin, "/elect");
  ASSERT_TRUE(leader.ok());
  EXPECT_EQ(*leader, std::optional<std::string>("alpha"));
  ASSERT_TRUE(admin->remove(leadership->node()).ok());
  ASSERT_TRUE(leadership->wait_lost(10s));
  EXPECT_EQ(leadership->loss(), LossReason::kNodeDeleted);
}

// The reply to the lock node's create is lost after the server applied it:
// the recipe finds its node again and holds the lock with it, and no second
// node exists.
TEST(LockConnectionLoss, ALostCreateReplyLeavesNoDuplicateNode) {
  auto setup = start_proxied(10000ms);
  ASSERT_TRUE(setup.ok());
  auto &client = setup.through, &observer = setup.direct;
  TcpProxy& proxy = *setup.proxy;
  ASSERT_TRUE(zk::recipes::ensure_path(*observer, "/dup/queue").ok());

  proxy.cut_next_reply();
  zk::recipes::Lock lock(*client, "/dup/queue");
  auto hold = lock.acquire(20s);
  ASSERT_TRUE(hold.ok()) << zk::wire::error_name(hold.error());
  EXPECT_EQ(proxy.cuts(), 1);
  auto names = observer->get_children("/dup/queue");
  ASSERT_TRUE(names.ok());
  ASSERT_EQ(names->size(), 1u) << "a duplicate lock node";
  EXPECT_EQ("/dup/queue/" + names->front(), hold->node());

  // The simple lock, whose node has a fixed name: found by its owner.
  proxy.cut_next_reply();
  zk::recipes::SimpleLock simple(*client, "/dup/simple");
  auto simple_hold = simple.acquire(20s);
  ASSERT_TRUE(simple_hold.ok()) << zk::wire::error_name(simple_hold.error());
  EXPECT_EQ(proxy.cuts(), 2);
  auto stat = observer->exists("/dup/simple");
  ASSERT_TRUE(stat.ok() && stat->has_value());
  EXPECT_EQ((*stat)->ephemeral_owner, client->session_id());
  zk::recipes::SimpleLock rival_lock(*observer, "/dup/simple");
  EXPECT_EQ(rival_lock.acquire(0ms).error(), Error::kOperationTimeout);
}

}  // namespace
