// SPDX-License-Identifier: Apache-2.0
#include "zkbench/lock_contention.h"

#include <optional>
#include <random>
#include <string_view>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "libzk/wire/path.h"
#include "zkbench/client_group.h"
#include "zkbench/pool_tasks.h"
#include "zkbench/report.h"
#include "zkbench/watch_wait.h"

namespace zk::bench {

namespace {

namespace asio = boost::asio;
using zk::client::Client;
using zk::client::Task;
using zk::wire::Error;
using Clock = std::chrono::steady_clock;

constexpr size_t kAcquire = 0;
constexpr size_t kRelease = 1;
constexpr size_t kSequenceDigits = 10;
constexpr auto kCloseDeadline = std::chrono::seconds(10);

// The sequence number of a lock child: its last 10 characters, when digits.
std::optional<int64_t> sequence_of(std::string_view name) {
  if (name.size() < kSequenceDigits) return std::nullopt;
  int64_t n = 0;
  for (char ch : name.substr(name.size() - kSequenceDigits)) {
    if (ch < '0' || ch > '9') return std::nullopt;
    n = n * 10 + (ch - '0');
  }
  return n;
}

std::string name_of(Error e) { return std::string(zk::wire::error_name(e)); }

struct LockRun {
  LockRun(const LockOptions& options, toolkit::SessionPool& pool)
      : o(options), group(pool, {"acquire", "release"}) {}

  // Creates client `c`'s child; its name in `mine`. kOk, or why the client stops.
  Task<Error> enqueue(Client& client, size_t c, const std::string& prefix, std::string& mine) {
    bool maybe_created = false;  // a create failed and may have been done
    for (;;) {
      if (maybe_created) {
        const auto start = Clock::now();
        auto children = co_await client.get_children(o.path);
        children_reads.fetch_add(1, std::memory_order_relaxed);
        if (!children.ok()) {
          if (!group.retry(c, kAcquire, start, children.error())) co_return children.error();
          continue;
        }
        for (const std::string& name : *children) {
          if (name.starts_with(prefix)) {
            mine = name;
            co_return Error::kOk;
          }
        }
      }
      zk::wire::Buffer empty = std::string();
      const auto start = Clock::now();
      auto created = co_await client.create(o.path + "/" + prefix, std::move(empty),
                                            zk::wire::CreateMode::kEphemeralSequential);
      if (created.ok()) {
        mine = std::string(zk::wire::base_name(*created));
        co_return Error::kOk;
      }
      if (!group.retry(c, kAcquire, start, created.error())) co_return created.error();
      maybe_created = true;
    }
  }

  // Waits until `mine` is the lowest child. kOk once it is, or why the client stops.
  Task<Error> wait_turn(Client& client, size_t c, const std::string& mine) {
    const int64_t my_sequence = sequence_of(mine).value_or(0);
    for (;;) {
      const auto start = Clock::now();
      auto children = co_await client.get_children(o.path);
      children_reads.fetch_add(1, std::memory_order_relaxed);
      if (!children.ok()) {
        if (!group.retry(c, kAcquire, start, children.error())) co_return children.error();
        continue;
      }
      bool present = false;
      std::optional<std::pair<int64_t, std::string>> predecessor;
      for (const std::string& name : *children) {
        const auto sequence = sequence_of(name);
        if (!sequence) continue;
        if (name == mine) {
          present = true;
        } else if (*sequence < my_sequence && (!predecessor || *sequence > predecessor->first)) {
          predecessor.emplace(*sequence, name);
        }
      }
      if (!present) co_return Error::kNoNode;  // its child is gone
      if (!predecessor) co_return Error::kOk;
      WatchWait watch(co_await asio::this_coro::executor, group.notifications());
      zk::client::WatchCallback callback = watch.callback();
      const auto sent = Clock::now();
      auto stat = co_await client.exists(o.path + "/" + predecessor->second, std::move(callback));
      if (!stat.ok()) {
        if (!group.retry(c, kAcquire, sent, stat.error())) co_return stat.error();
        continue;
      }
      if (stat->has_value()) (void)co_await watch.wait();  // deleted (or the session ended)
    }
  }

  // Holds the lock for o.hold, or for a turn of the thread's queue.
  Task<void> hold() {
    const auto executor = co_await asio::this_coro::executor;
    if (o.hold.count() > 0) {
      asio::steady_timer timer(executor, o.hold);
      (void)co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    } else {
      co_await asio::post(executor, asio::use_awaitable);
    }
  }

  void note_holders() {
    const int now = holders.fetch_add(1) + 1;
    if (now > 1) violations.fetch_add(1);
    int seen = max_holders.load();
    while (now > seen && !max_holders.compare_exchange_weak(seen, now)) {
    }
  }

  Task<void> client_loop(size_t c) {
    const std::shared_ptr<Client> client = group.pool().client(c);
    const std::string prefix = "r" + tag + "-c" + std::to_string(c) + "-";
    for (int h = 0; h < o.holds && !group.failed(); ++h) {
      const auto start = Clock::now();
      std::string mine;
      if (const Error e = co_await enqueue(*client, c, prefix, mine); e != Error::kOk) {
        group.fail(c, "create: " + name_of(e));
        co_return;
      }
      if (const Error e = co_await wait_turn(*client, c, mine); e != Error::kOk) {
        group.fail(c, "waiting for the lock: " + name_of(e));
        co_return;
      }
      group.steps().record(group.pool().thread_of(c), kAcquire, start, Error::kOk);
      acquisitions.fetch_add(1, std::memory_order_relaxed);
      note_holders();
      co_await hold();
      holders.fetch_sub(1);
      const auto released = Clock::now();
      if (const Error e = co_await group.remove(*client, c, kRelease, o.path + "/" + mine);
          e != Error::kOk) {
        group.fail(c, "delete: " + name_of(e));
        co_return;
      }
      group.steps().record(group.pool().thread_of(c), kRelease, released, Error::kOk);
      releases.fetch_add(1, std::memory_order_relaxed);
    }
  }

  const LockOptions& o;
  ClientGroup group;
  // In the children's names: this run's, so that a client never takes the
  // child of an earlier run for its own.
  const std::string tag = std::to_string(std::random_device{}() % 1000000);
  std::atomic<int64_t> acquisitions{0}, releases{0}, children_reads{0}, violations{0};
  std::atomic<int> holders{0}, max_holders{0};
};

std::string per_release(int64_t notifications, int64_t releases) {
  return format_double(
      "%.2f",
      releases > 0 ? static_cast<double>(notifications) / static_cast<double>(releases) : 0.0);
}

}  // namespace

ScenarioResult lock_contention(const LockOptions& o) {
  ScenarioResult result;
  result.unit = "acquisitions";
  toolkit::SessionPool pool(o.pool);
  if (std::string e = connect_and_ensure(pool, o.path); !e.empty()) {
    result.error = e;
    return result;
  }
  LockRun run(o, pool);
  Measurement m;
  m.start();
  for (size_t c = 0; c < pool.size(); ++c) pool.spawn(c, run.client_loop(c));
  wait_until_idle(pool);
  m.stop(result);
  pool.close(toolkit::SessionPool::Clock::now() + kCloseDeadline);

  const int64_t notifications = run.group.notifications()->load();
  const int64_t releases = run.releases.load();
  const int64_t wanted = static_cast<int64_t>(pool.size()) * o.holds;
  result.steps = run.group.steps().merged();
  result.done = run.acquisitions.load();
  result.counts = {
      {"acquisitions", result.done},           {"releases", releases},
      {"notifications", notifications},        {"children_reads", run.children_reads.load()},
      {"max_holders", run.max_holders.load()}, {"violations", run.violations.load()}};
  result.notes.push_back("watch notifications: " + std::to_string(notifications) + " for " +
                         std::to_string(releases) +
                         " releases = " + per_release(notifications, releases) +
                         " per release (herd-free: at most 1)");
  if (run.violations.load() > 0) {
    result.problems.push_back(
        "MUTUAL EXCLUSION VIOLATED: " + std::to_string(run.violations.load()) +
        " acquisitions while another client held the lock (" +
        std::to_string(run.max_holders.load()) + " holders at once)");
  } else {
    result.notes.push_back("mutual exclusion: held by at most " +
                           std::to_string(run.max_holders.load()) + " client at a time");
  }
  if (const std::string f = run.group.failure(); !f.empty()) {
    result.ended.push_back(f);
    result.problems.push_back("the run stopped when " + f);
  }
  if (result.done < wanted) {
    result.problems.push_back(std::to_string(result.done) + " of " + std::to_string(wanted) +
                              " acquisitions done");
  }
  return result;
}

}  // namespace zk::bench
