// SPDX-License-Identifier: Apache-2.0
#include "zkbench/engine.h"
#include "zkbench/pool_tasks.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <mutex>
#include <optional>
#include <random>
#include <tuple>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

namespace zk::bench {

namespace {

namespace asio = boost::asio;
using zk::client::Client;
using zk::client::Error;
using zk::client::Status;
using zk::client::Task;
using Clock = std::chrono::steady_clock;

// The error of a multi: the request's own, else the failing operation's
// (the one result of type kError whose code is not kOk), else kOk.
Error transaction_error(const zk::client::Result<std::vector<zk::wire::MultiResult>>& r) {
  if (!r.ok()) return r.error();
  for (const zk::wire::MultiResult& result : *r) {
    if (result.type == zk::wire::OpCode::kError && result.err != Error::kOk) return result.err;
  }
  return Error::kOk;
}

// One multi of a setData of `value` on each of `paths`; its error code.
Task<Error> issue_multi(Client& client, const std::vector<std::string>& paths,
                        const zk::wire::Buffer& value) {
  std::vector<zk::wire::MultiOp> txn;
  for (const std::string& path : paths) txn.push_back(zk::wire::multi_set_data(path, value));
  co_return transaction_error(co_await client.multi(std::move(txn)));
}

// One request of type `op` on `paths` (a multi: on each; the other types: on
// the first); its error code.
Task<Error> issue(Client& client, OpType op, const std::vector<std::string>& paths,
                  const zk::wire::Buffer& value) {
  std::string path = paths.front();
  switch (op) {
    case OpType::kGet:
      co_return (co_await client.get_data(std::move(path))).error();
    case OpType::kExists:
      co_return (co_await client.exists(std::move(path))).error();
    case OpType::kChildren:
      co_return (co_await client.get_children(std::move(path))).error();
    case OpType::kSet: {
      zk::wire::Buffer data = value;
      co_return (co_await client.set_data(std::move(path), std::move(data))).error();
    }
    case OpType::kCreate: {
      zk::wire::Buffer data = value;
      co_return (co_await client.create(std::move(path), std::move(data))).error();
    }
    case OpType::kDelete:
      co_return (co_await client.remove(std::move(path))).error();
    case OpType::kMulti:
      co_return co_await issue_multi(client, paths, value);
  }
  co_return Error::kBadArguments;
}

// What one thread recorded; its lanes record under its lock.
struct alignas(64) Shard {
  std::mutex mu;  // guards figures and last_done
  Figures figures;
  std::optional<Clock::time_point> last_done;  // of a measured request
  std::atomic<int64_t> requests{0};            // measured, answered
  std::atomic<int64_t> errors{0};              // of those, failed
  std::atomic<int64_t> warmup{0};              // warm-up, answered
};

}  // namespace

std::string Engine::key_path(const std::string& root, int64_t k) {
  return root + "/k" + std::to_string(k);
}

struct Engine::State {
  explicit State(EngineOptions o)
      : options(std::move(o)),
        ops(options.workload.mix),
        keys(options.workload.keys),
        value(make_value(options.workload.value_bytes)),
        shards(static_cast<size_t>(std::max(options.pool.threads, 1))),
        run_tag(std::to_string(std::random_device{}() % 1000000)),
        pool(options.pool) {}

  bool timed() const { return options.ops <= 0; }

  bool take_ticket() { return tickets.fetch_sub(1, std::memory_order_relaxed) > 0; }

  Task<Status> setup_share(size_t session, size_t first, size_t step) {
    const auto& client = pool.client(session);
    for (size_t k = first; k < static_cast<size_t>(options.workload.keys.znodes); k += step) {
      const Status s = co_await toolkit::create_if_missing(
          client, key_path(options.root, static_cast<int64_t>(k)), value);
      if (!s.ok()) co_return s;
    }
    co_return Error::kOk;
  }

  void record(Shard& shard, OpType op, bool measured, Clock::time_point start,
              Clock::time_point done, Error e) {
    if (!measured) {
      shard.warmup.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    {
      std::lock_guard lock(shard.mu);
      OpFigures& f = shard.figures.of(op);
      if (e == Error::kOk) {
        ++f.ok;
        f.latency.record(
            std::chrono::duration_cast<std::chrono::nanoseconds>(done - start).count());
      } else {
        ++f.errors[e];
      }
      if (!shard.last_done || *shard.last_done < done) shard.last_done = done;
    }
    shard.requests.fetch_add(1, std::memory_order_relaxed);
    if (e != Error::kOk) shard.errors.fetch_add(1, std::memory_order_relaxed);
  }

  void note_ended(size_t session, Error e) {
    std::lock_guard lock(mu);
    ended.push_back("session " + std::to_string(session) + ": " +
                    std::string(zk::wire::error_name(e)));
  }

  // One request loop of session `session` (see engine.h).
  Task<void> lane(size_t session, int index) {
    std::shared_ptr<Client> client = pool.client(session);
    Shard& shard = shards[pool.thread_of(session)];
    Rng rng(derive_seed(options.workload.seed, session * 4096 + static_cast<uint64_t>(index)));
    asio::steady_timer timer(pool.executor(session));
    const std::string prefix = options.root + "/new/r" + run_tag + "-s" + std::to_string(session) +
                               "-" + std::to_string(index) + "-";
    uint64_t created = 0;
    while (!stopping.load(std::memory_order_relaxed)) {
      Clock::time_point start;
      if (options.rate > 0) {
        start = origin + slot_interval * slots[session]++;
        if (timed() && start >= measure_end) break;
        if (start > Clock::now()) {
          timer.expires_at(start);
          (void)co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
          if (stopping.load(std::memory_order_relaxed)) break;
        }
      } else {
        start = Clock::now();
        if (timed() && start >= measure_end) break;
      }
      const bool measured = start >= measure_start;
      if (measured && !timed() && !take_ticket()) break;
      const OpType op = ops.draw(rng);
      std::vector<std::string> paths;  // a fresh znode, multi_ops keys or one key
      if (op == OpType::kCreate) {
        paths.push_back(prefix + std::to_string(created++));
      } else {
        const int n = op == OpType::kMulti ? std::max(options.workload.multi_ops, 1) : 1;
        for (int i = 0; i < n; ++i) paths.push_back(key_path(options.root, keys.draw(rng)));
      }
      Error e = co_await issue(*client, op, paths, value);
      if (e != Error::kOk && stopping.load()) break;  // an effect of stopping
      record(shard, op, measured, start, Clock::now(), e);
      if (op == OpType::kCreate && e == Error::kOk && (!measured || timed() || take_ticket())) {
        const auto sent = Clock::now();
        e = co_await issue(*client, OpType::kDelete, paths, value);
        if (e != Error::kOk && stopping.load()) break;
        record(shard, OpType::kDelete, measured, sent, Clock::now(), e);
      }
      if (toolkit::session_over(e)) {
        note_ended(session, e);
        break;
      }
    }
  }

  const EngineOptions options;
  const OpChooser ops;
  const KeyChooser keys;
  const zk::wire::Buffer value;
  std::vector<Shard> shards;   // one per thread
  std::vector<int64_t> slots;  // per session: its next open-loop slot (its thread only)
  Clock::duration slot_interval{0};
  bool connected = false;  // the owner's thread only
  bool ran = false;        // the owner's thread only
  // Set by run() before any lane starts.
  Clock::time_point origin, measure_start, measure_end;
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  std::atomic<bool> stopping{false};
  std::atomic<int64_t> tickets{0};
  std::mutex mu;  // guards ended
  std::vector<std::string> ended;
  // In the names of this run's creates, so that they never collide with
  // znodes an earlier run left under <root>/new.
  const std::string run_tag;
  // Last: destroyed first, so that no lane outlives what it uses.
  toolkit::SessionPool pool;
};

Engine::Engine(EngineOptions options) : state_(std::make_unique<State>(std::move(options))) {}

Engine::~Engine() {
  stop();
  state_->pool.close(Clock::now() + state_->options.stop_deadline);
}

const EngineOptions& Engine::options() const { return state_->options; }

std::string Engine::connect() {
  State& st = *state_;
  if (st.options.in_flight < 1) return "nothing in flight";
  const std::string error = st.pool.connect();
  st.connected = error.empty();
  return error;
}

std::string Engine::setup() {
  State& st = *state_;
  if (!st.connected) return "not connected";
  const std::string& root = st.options.root;
  for (const std::string& path : {root, root + "/new"}) {
    if (std::string e = ensure_znode(st.pool, path); !e.empty()) return e;
  }
  const size_t sessions = st.pool.size();
  const size_t window = static_cast<size_t>(std::max(st.options.setup_window, 1));
  std::vector<std::future<Status>> pending;
  for (size_t s = 0; s < sessions; ++s) {
    for (size_t w = 0; w < window; ++w) {
      pending.push_back(asio::co_spawn(st.pool.executor(s),
                                       st.setup_share(s, s + w * sessions, sessions * window),
                                       asio::use_future));
    }
  }
  std::string error;
  for (auto& p : pending) {
    const Status s = p.get();
    if (!s.ok() && error.empty()) {
      error = "create the keys under " + root + ": " + std::string(zk::wire::error_name(s.error()));
    }
  }
  return error;
}

RunResult Engine::run() {
  State& st = *state_;
  RunResult result;
  if (!st.connected) result.error = "not connected";
  if (st.ran) result.error = "run() was called before";
  if (!result.error.empty()) return result;
  st.ran = true;
  const EngineOptions& o = st.options;
  const ServerCpu servers(o.pool.addresses, o.server_pids);  // found before the load starts
  const size_t sessions = st.pool.size();
  st.slots.assign(sessions, 0);
  if (o.rate > 0) {
    st.slot_interval = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(static_cast<double>(sessions) / o.rate));
    st.slot_interval = std::max(st.slot_interval, Clock::duration(1));
  }
  st.tickets.store(o.ops);
  st.origin = Clock::now();
  st.measure_start = st.origin + o.warmup;
  st.measure_end = st.measure_start + o.duration;
  st.started.store(true);
  for (size_t s = 0; s < sessions; ++s) {
    for (int lane = 0; lane < o.in_flight; ++lane) st.pool.spawn(s, st.lane(s, lane));
  }

  // Waiting here is the warm-up itself (it ends early only when every lane
  // has ended).
  st.pool.wait_idle(st.measure_start);
  const auto cpu_from = process_cpu_times();
  const auto servers_from = servers.sample();
  const auto wall_from = Clock::now();
  if (st.timed()) {
    result.drained = st.pool.wait_idle(st.measure_end + o.stop_deadline);
  } else {
    while (!st.pool.wait_idle(Clock::now() + std::chrono::hours(1))) {
    }
  }
  const auto cpu_to = process_cpu_times();
  const auto servers_to = servers.sample();
  const auto wall_to = Clock::now();
  st.stopping.store(true);
  st.pool.close(Clock::now() + o.stop_deadline);
  st.finished.store(true);

  std::optional<Clock::time_point> last;
  for (Shard& shard : st.shards) {
    std::lock_guard lock(shard.mu);
    result.figures.merge(shard.figures);
    if (shard.last_done && (!last || *last < *shard.last_done)) last = shard.last_done;
    result.warmup_requests += shard.warmup.load();
  }
  if (last && *last > st.measure_start) result.measured = *last - st.measure_start;
  result.cpu = cpu_usage(
      cpu_from, cpu_to, std::chrono::duration_cast<std::chrono::microseconds>(wall_to - wall_from));
  result.server_cpu = servers.usage(servers_from, servers_to);
  std::lock_guard lock(st.mu);
  result.ended = st.ended;
  return result;
}

Progress Engine::progress() const {
  const State& st = *state_;
  Progress p;
  if (!st.started.load()) return p;
  for (const Shard& shard : st.shards) {
    p.requests += shard.requests.load(std::memory_order_relaxed);
    p.errors += shard.errors.load(std::memory_order_relaxed);
  }
  const auto now = Clock::now();
  p.phase = st.finished.load()       ? Phase::kDone
            : now < st.measure_start ? Phase::kWarmup
                                     : Phase::kMeasure;
  if (now > st.measure_start) p.measured = now - st.measure_start;
  return p;
}

void Engine::stop() { state_->stopping.store(true); }

}  // namespace zk::bench
