// SPDX-License-Identifier: Apache-2.0
#include "zkbench/create_bench.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <random>
#include <vector>

#include "zkbench/pool_tasks.h"
#include "zkbench/workload.h"

namespace zk::bench {

namespace {

using zk::client::Client;
using zk::client::Task;
using zk::wire::Error;
using Clock = std::chrono::steady_clock;

constexpr auto kCloseDeadline = std::chrono::seconds(10);

std::string name_of(Error e) { return std::string(zk::wire::error_name(e)); }

struct CreatesRun {
  CreatesRun(const CreatesOptions& options, toolkit::SessionPool& p)
      : o(options),
        pool(p),
        value(make_value(options.value_bytes)),
        steps(p.threads(), {"create"}),
        next(p.size(), 0),
        created(p.size()),
        ended(p.size(), Error::kOk) {}

  std::string run_path() const { return o.root + "/r" + tag; }
  std::string worker_path(size_t w) const { return run_path() + "/w" + std::to_string(w); }

  // One of worker w's `window` request loops; the worker's loops share its
  // thread, and with it next[w], created[w] and ended[w].
  Task<void> lane(size_t w) {
    const std::shared_ptr<Client> client = pool.client(w);
    const size_t thread = pool.thread_of(w);
    const std::string prefix = worker_path(w) + "/c";
    const auto mode = o.sequential ? zk::wire::CreateMode::kPersistentSequential
                                   : zk::wire::CreateMode::kPersistent;
    while (ended[w] == Error::kOk && next[w] < o.creates) {
      const int64_t i = next[w]++;
      std::string path = o.sequential ? prefix : prefix + std::to_string(i);
      zk::wire::Buffer data = value;
      const auto start = Clock::now();
      auto r = co_await client->create(std::move(path), std::move(data), mode);
      steps.record(thread, 0, start, r.error());
      if (r.ok()) {
        created[w].push_back(std::move(*r));
      } else if (toolkit::session_over(r.error())) {
        ended[w] = r.error();
      }
    }
  }

  // Deletes what worker w's znode still holds, then the znode. kOk once gone.
  Task<Error> remove_worker(size_t session, size_t w) {
    Client& client = *pool.client(session);
    const std::string dir = worker_path(w);
    Error e = (co_await client.remove(dir)).error();
    if (e != Error::kNotEmpty) co_return e == Error::kNoNode ? Error::kOk : e;
    auto children = co_await client.get_children(dir);
    if (!children.ok()) co_return children.error();
    for (const std::string& name : *children) {
      e = (co_await client.remove(dir + "/" + name)).error();
      if (e != Error::kOk && e != Error::kNoNode) co_return e;
      ++stragglers;
    }
    e = (co_await client.remove(dir)).error();
    co_return e == Error::kNoNode ? Error::kOk : e;
  }

  // Deletes every znode of the run; an empty string, or what is left.
  std::string clean_up(ScenarioResult& result) {
    std::vector<const std::string*> paths;
    for (const auto& worker : created) {
      for (const std::string& p : worker) paths.push_back(&p);
    }
    const auto start = Clock::now();
    const PipelineOutcome deleted =
        pipelined(pool, paths.size(), o.cleanup_window, [&](size_t s, size_t k) -> Task<Error> {
          const Error e = (co_await pool.client(s)->remove(*paths[k])).error();
          co_return e == Error::kNoNode ? Error::kOk : e;
        });
    const PipelineOutcome workers = pipelined(
        pool, pool.size(), 1,
        [&](size_t s, size_t w) -> Task<Error> { co_return co_await remove_worker(s, w); });
    std::string left;
    if (deleted.ok < static_cast<int64_t>(paths.size()) || workers.ok < workers_count()) {
      left = "the cleanup left znodes under " + run_path();
    } else {
      const Error e = run_on(pool, 0, remove_run(pool.client(0), run_path()));
      if (e != Error::kOk) left = "the cleanup could not delete " + run_path() + ": " + name_of(e);
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f",
                  std::chrono::duration<double>(Clock::now() - start).count());
    result.notes.push_back("cleanup: deleted " + std::to_string(deleted.ok + stragglers) +
                           " znodes in " + seconds + " s (not measured)");
    result.counts.emplace_back("deleted", deleted.ok + stragglers);
    return left;
  }

  static Task<Error> remove_run(std::shared_ptr<Client> client, std::string path) {
    co_return (co_await client->remove(path)).error();
  }

  int64_t workers_count() const { return static_cast<int64_t>(pool.size()); }

  const CreatesOptions& o;
  toolkit::SessionPool& pool;
  const zk::wire::Buffer value;
  StepFigures steps;
  std::vector<int64_t> next;                      // per worker: its next create's number
  std::vector<std::vector<std::string>> created;  // per worker: the paths it created
  std::vector<Error> ended;                       // per worker: what ended its session
  std::atomic<int64_t> stragglers{0};             // found by the cleanup's getChildren
  // In the run's znode name, so that no run collides with an earlier one.
  const std::string tag = std::to_string(std::random_device{}() % 1000000);
};

}  // namespace

ScenarioResult create_bench(const CreatesOptions& o) {
  ScenarioResult result;
  result.unit = "creates";
  toolkit::SessionPool pool(o.pool);
  if (std::string e = pool.connect(); !e.empty()) {
    result.error = e;
    return result;
  }
  CreatesRun run(o, pool);
  for (const std::string& path : {o.root, run.run_path()}) {
    if (std::string e = ensure_znode(pool, path); !e.empty()) {
      result.error = e;
      return result;
    }
  }
  const PipelineOutcome setup =
      pipelined(pool, pool.size(), 1, [&](size_t s, size_t w) -> Task<Error> {
        zk::wire::Buffer empty = std::string();
        co_return (co_await toolkit::create_if_missing(pool.client(s), run.worker_path(w),
                                                       std::move(empty)))
            .error();
      });
  if (!setup.errors.empty()) {
    result.error = "create the workers' znodes under " + run.run_path() + ": " +
                   name_of(setup.errors.begin()->first);
    return result;
  }

  Measurement m;
  m.start();
  for (size_t w = 0; w < pool.size(); ++w) {
    for (int k = 0; k < std::max(o.window, 1); ++k) pool.spawn(w, run.lane(w));
  }
  wait_until_idle(pool);
  m.stop(result);

  result.steps = run.steps.merged();
  const OpFigures& creates = result.steps[0].figures;
  result.done = creates.ok;
  result.counts = {{"created", creates.ok}, {"failed", creates.error_count()}};
  if (o.keep) {
    result.notes.push_back("kept: the znodes created are under " + run.run_path());
  } else if (std::string left = run.clean_up(result); !left.empty()) {
    result.problems.push_back(left);
  }
  pool.close(toolkit::SessionPool::Clock::now() + kCloseDeadline);

  for (size_t w = 0; w < run.ended.size(); ++w) {
    if (run.ended[w] != Error::kOk) {
      result.ended.push_back("worker " + std::to_string(w) + ": " + name_of(run.ended[w]));
    }
  }
  const int64_t wanted = run.workers_count() * o.creates;
  if (creates.requests() < wanted) {
    result.problems.push_back(std::to_string(creates.requests()) + " of " + std::to_string(wanted) +
                              " creates sent");
  }
  return result;
}

}  // namespace zk::bench
