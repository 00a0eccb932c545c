// SPDX-License-Identifier: Apache-2.0
#include "zkbench/double_barrier.h"

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

#include <boost/asio/this_coro.hpp>

#include "zkbench/client_group.h"
#include "zkbench/pool_tasks.h"
#include "zkbench/watch_wait.h"

namespace zk::bench {

namespace {

namespace asio = boost::asio;
using zk::client::Client;
using zk::client::Task;
using zk::wire::CreateMode;
using zk::wire::Error;
using Clock = std::chrono::steady_clock;

constexpr size_t kEnter = 0;
constexpr size_t kLeave = 1;
constexpr auto kCloseDeadline = std::chrono::seconds(10);
const std::string kReady = "ready";

std::string name_of(Error e) { return std::string(zk::wire::error_name(e)); }

// Why a watch fired without a node event: the session closed or expired.
Error session_end(const zk::client::WatchedEvent& e) {
  return e.state == zk::wire::KeeperState::kExpired ? Error::kSessionExpired : Error::kClosing;
}

struct BarrierRun {
  BarrierRun(const BarrierOptions& options, toolkit::SessionPool& pool)
      : o(options), group(pool, {"enter", "leave"}), completed(pool.size(), 0) {}

  std::string round_path(size_t round) const {
    return o.path + "/r" + tag + "-" + std::to_string(round);
  }

  // The children of `node`, ready apart, sorted; or the error.
  Task<zk::client::Result<std::vector<std::string>>> members(Client& client, size_t c, size_t step,
                                                             const std::string& node) {
    for (;;) {
      const auto start = Clock::now();
      auto children = co_await client.get_children(node);
      if (!children.ok()) {
        if (children.error() == Error::kNoNode) co_return children.error();
        if (!group.retry(c, step, start, children.error())) co_return children.error();
        continue;
      }
      std::vector<std::string> names;
      for (std::string& name : *children) {
        if (name != kReady) names.push_back(std::move(name));
      }
      std::sort(names.begin(), names.end());
      co_return names;
    }
  }

  // Sets an exists watch on `path` and waits for it unless the znode is
  // gone. kOk once it fired with a node event or the znode is gone.
  Task<Error> wait_for_change(Client& client, size_t c, size_t step, const std::string& path) {
    WatchWait watch(co_await asio::this_coro::executor, group.notifications());
    zk::client::WatchCallback callback = watch.callback();
    const auto start = Clock::now();
    auto stat = co_await client.exists(path, std::move(callback));
    if (!stat.ok()) co_return group.retry(c, step, start, stat.error()) ? Error::kOk : stat.error();
    if (!stat->has_value()) co_return Error::kOk;
    const auto event = co_await watch.wait();
    co_return event.type == zk::wire::EventType::kNone ? session_end(event) : Error::kOk;
  }

  Task<Error> enter(Client& client, size_t c, const std::string& node) {
    const std::string ready = node + "/" + kReady;
    std::optional<WatchWait> ready_watch;
    bool ready_seen = false;
    while (!ready_watch) {
      WatchWait watch(co_await asio::this_coro::executor, group.notifications());
      zk::client::WatchCallback callback = watch.callback();
      const auto start = Clock::now();
      auto stat = co_await client.exists(ready, std::move(callback));
      if (stat.ok()) {
        ready_seen = stat->has_value();
        ready_watch.emplace(std::move(watch));
      } else if (!group.retry(c, kEnter, start, stat.error())) {
        co_return stat.error();
      }
    }
    const Error created = co_await group.create(client, c, kEnter, node + "/c" + std::to_string(c),
                                                CreateMode::kEphemeral, false);
    if (created != Error::kOk || ready_seen) co_return created;
    auto names = co_await members(client, c, kEnter, node);
    if (!names.ok()) co_return names.error();
    if (names->size() >= pool_size()) {
      co_return co_await group.create(client, c, kEnter, ready, CreateMode::kPersistent, true);
    }
    const auto event = co_await ready_watch->wait();
    co_return event.type == zk::wire::EventType::kNone ? session_end(event) : Error::kOk;
  }

  Task<Error> leave(Client& client, size_t c, const std::string& node) {
    const std::string own = "c" + std::to_string(c);
    bool deleted = false;
    for (;;) {
      auto names = co_await members(client, c, kLeave, node);
      if (!names.ok()) co_return names.error() == Error::kNoNode ? Error::kOk : names.error();
      if (names->empty()) co_return Error::kOk;
      const bool present = std::find(names->begin(), names->end(), own) != names->end();
      if (present && names->size() == 1) {
        co_return co_await group.remove(client, c, kLeave, node + "/" + own);
      }
      std::string target;
      if (names->front() == own) {
        target = names->back();
      } else {
        if (present && !deleted) {
          if (const Error e = co_await group.remove(client, c, kLeave, node + "/" + own);
              e != Error::kOk) {
            co_return e;
          }
          deleted = true;
        }
        target = names->front();
      }
      if (const Error e = co_await wait_for_change(client, c, kLeave, node + "/" + target);
          e != Error::kOk) {
        co_return e;
      }
    }
  }

  // The paper's order: enter every barrier, then leave every barrier.
  Task<void> client_enter_all_first(size_t c) {
    const std::shared_ptr<Client> client = group.pool().client(c);
    const size_t thread = group.pool().thread_of(c);
    for (int r = 0; r < o.rounds && !group.failed(); ++r) {
      const auto start = Clock::now();
      if (const Error e = co_await enter(*client, c, round_path(static_cast<size_t>(r)));
          e != Error::kOk) {
        group.fail(c, "enter round " + std::to_string(r) + ": " + name_of(e));
        co_return;
      }
      group.steps().record(thread, kEnter, start, Error::kOk);
    }
    for (int r = 0; r < o.rounds && !group.failed(); ++r) {
      const auto start = Clock::now();
      if (const Error e = co_await leave(*client, c, round_path(static_cast<size_t>(r)));
          e != Error::kOk) {
        group.fail(c, "leave round " + std::to_string(r) + ": " + name_of(e));
        co_return;
      }
      group.steps().record(thread, kLeave, start, Error::kOk);
      ++completed[c];
    }
  }

  Task<void> client_loop(size_t c) {
    if (o.enter_all_first) {
      co_await client_enter_all_first(c);
      co_return;
    }
    const std::shared_ptr<Client> client = group.pool().client(c);
    const size_t thread = group.pool().thread_of(c);
    for (int r = 0; r < o.rounds && !group.failed(); ++r) {
      const std::string node = round_path(static_cast<size_t>(r));
      auto start = Clock::now();
      if (const Error e = co_await enter(*client, c, node); e != Error::kOk) {
        group.fail(c, "enter round " + std::to_string(r) + ": " + name_of(e));
        co_return;
      }
      group.steps().record(thread, kEnter, start, Error::kOk);
      start = Clock::now();
      if (const Error e = co_await leave(*client, c, node); e != Error::kOk) {
        group.fail(c, "leave round " + std::to_string(r) + ": " + name_of(e));
        co_return;
      }
      group.steps().record(thread, kLeave, start, Error::kOk);
      ++completed[c];
    }
  }

  size_t pool_size() { return group.pool().size(); }

  const BarrierOptions& o;
  ClientGroup group;
  // In the round znodes' names: this run's, so that no round is one of an earlier run.
  const std::string tag = std::to_string(std::random_device{}() % 1000000);
  std::vector<int> completed;  // rounds per client; client c's entry written by its task only
};

}  // namespace

ScenarioResult double_barrier(const BarrierOptions& o) {
  ScenarioResult result;
  result.unit = "rounds";
  toolkit::SessionPool pool(o.pool);
  if (std::string e = connect_and_ensure(pool, o.path); !e.empty()) {
    result.error = e;
    return result;
  }
  BarrierRun run(o, pool);
  const auto rounds = static_cast<size_t>(o.rounds);
  const PipelineOutcome setup =
      pipelined(pool, rounds, o.setup_window, [&](size_t s, size_t r) -> Task<Error> {
        zk::wire::Buffer empty = std::string();
        co_return (co_await toolkit::create_if_missing(pool.client(s), run.round_path(r),
                                                       std::move(empty)))
            .error();
      });
  if (!setup.errors.empty()) {
    result.error =
        "create the round znodes under " + o.path + ": " + name_of(setup.errors.begin()->first);
    return result;
  }

  Measurement m;
  m.start();
  for (size_t c = 0; c < pool.size(); ++c) pool.spawn(c, run.client_loop(c));
  wait_until_idle(pool);
  m.stop(result);

  if (!run.group.failed()) {
    // Cleanup, not measured: each round's ready child, then the round znode.
    int64_t left = 0;
    for (const bool ready : {true, false}) {
      const PipelineOutcome removed =
          pipelined(pool, rounds, o.setup_window, [&](size_t s, size_t r) -> Task<Error> {
            const std::string path = run.round_path(r) + (ready ? "/" + kReady : "");
            const Error e = (co_await pool.client(s)->remove(path)).error();
            co_return e == Error::kNoNode ? Error::kOk : e;
          });
      left = static_cast<int64_t>(rounds) - removed.ok;
    }
    if (left > 0) {
      result.notes.push_back("cleanup: " + std::to_string(left) + " round znodes left under " +
                             o.path);
    }
  }
  pool.close(toolkit::SessionPool::Clock::now() + kCloseDeadline);

  result.steps = run.group.steps().merged();
  result.done = *std::min_element(run.completed.begin(), run.completed.end());
  const int64_t notifications = run.group.notifications()->load();
  result.counts = {{"rounds", result.done}, {"notifications", notifications}};
  if (const std::string f = run.group.failure(); !f.empty()) {
    result.ended.push_back(f);
    result.problems.push_back("the run stopped when " + f);
  }
  if (result.done < o.rounds) {
    result.problems.push_back(std::to_string(result.done) + " of " + std::to_string(o.rounds) +
                              " rounds completed");
  }
  return result;
}

}  // namespace zk::bench
