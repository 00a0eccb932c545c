// SPDX-License-Identifier: Apache-2.0
#include "zkbench/keeper_bench_runner.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <optional>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "zkbench/keeper_bench_send.h"
#include "zkbench/pool_tasks.h"
#include "zkbench/workload.h"

namespace zk::bench::keeper {

namespace {

namespace asio = boost::asio;
using zk::client::Client;
using zk::client::Task;
using zk::wire::Error;
using Clock = std::chrono::steady_clock;

constexpr int kSetupWindow = 64;  // requests in flight per session in the setup and cleanup
// Random streams (derive_seed): the setup's, then two per lane.
constexpr uint64_t kSetupStream = 0;
uint64_t generator_stream(size_t lane) { return 1 + 2 * static_cast<uint64_t>(lane); }
uint64_t session_stream(size_t lane) { return 2 + 2 * static_cast<uint64_t>(lane); }

// Where a lane's answer arrives: set on the lane's thread by the task that
// sent the request, which then cancels the lane's timer (while the lane
// still waits for this answer: `timer` is null once it stopped waiting).
struct Mailbox {
  std::optional<Answer> answer;
  asio::steady_timer* timer = nullptr;
};

// Sends `request` on its session's thread and hands the answer to the lane's.
Task<void> relay(std::shared_ptr<Client> client, Request request, std::shared_ptr<Mailbox> box,
                 asio::any_io_executor lane) {
  const Answer a = co_await send(*client, request);
  asio::post(lane, [box, a] {
    box->answer = a;
    if (box->timer != nullptr) box->timer->cancel();
  });
}

// What a failing setup step records: its first failure.
struct FirstFailure {
  std::mutex mu;
  std::string what;

  void note(const std::string& w) {
    std::lock_guard lock(mu);
    if (what.empty()) what = w;
  }
};

std::string failure(const std::string& what, const std::string& path, Error e) {
  return what + " " + path + ": " + std::string(zk::wire::error_name(e));
}

Task<Error> create_one(std::shared_ptr<Client> client, std::string path, std::string data,
                       FirstFailure* failed) {
  const auto r = co_await client->create(path, std::move(data));
  if (!r.ok()) failed->note(failure("create", path, r.error()));
  co_return r.error();
}

// The children of `path` into `out`, as paths; NONODE is no failure.
Task<Error> list_one(std::shared_ptr<Client> client, std::string path,
                     std::vector<std::string>* out, FirstFailure* failed) {
  auto r = co_await client->get_children(path);
  if (r.error() == Error::kNoNode) co_return Error::kOk;
  if (!r.ok()) {
    failed->note(failure("list", path, r.error()));
    co_return r.error();
  }
  for (const std::string& name : *r) out->push_back((path == "/" ? "" : path) + "/" + name);
  co_return Error::kOk;
}

// Removes `path`; NONODE is no failure.
Task<Error> remove_one(std::shared_ptr<Client> client, std::string path, FirstFailure* failed) {
  const auto r = co_await client->remove(path);
  if (r.ok() || r.error() == Error::kNoNode) co_return Error::kOk;
  failed->note(failure("remove", path, r.error()));
  co_return r.error();
}

// Runs `op` over items 0..count-1 on `pool`; empty, or the first failure
// (or why items were left: every session had ended).
std::string pipeline(toolkit::SessionPool& pool, size_t count, FirstFailure& failed,
                     const PipelineOp& op) {
  if (count == 0) return "";
  const PipelineOutcome o = pipelined(pool, count, kSetupWindow, op);
  std::lock_guard lock(failed.mu);
  if (!failed.what.empty()) return failed.what;
  if (o.untried > 0) return std::to_string(o.untried) + " request(s) not sent: every session ended";
  return "";
}

// Removes `root` and everything under it: lists it level by level, then
// removes the levels deepest first.
std::string remove_tree(toolkit::SessionPool& pool, const std::string& root) {
  std::vector<std::vector<std::string>> levels{{root}};
  while (!levels.back().empty()) {
    const std::vector<std::string>& level = levels.back();
    std::vector<std::vector<std::string>> children(level.size());
    FirstFailure failed;
    const std::string e = pipeline(pool, level.size(), failed, [&](size_t s, size_t i) {
      return list_one(pool.client(s), level[i], &children[i], &failed);
    });
    if (!e.empty()) return e;
    std::vector<std::string> next;
    for (auto& c : children) next.insert(next.end(), c.begin(), c.end());
    levels.push_back(std::move(next));
  }
  for (auto level = levels.rbegin(); level != levels.rend(); ++level) {
    FirstFailure failed;
    const std::string e = pipeline(pool, level->size(), failed, [&](size_t s, size_t i) {
      return remove_one(pool.client(s), (*level)[i], &failed);
    });
    if (!e.empty()) return e;
  }
  return "";
}

// One session of the run: its pool and its index there.
struct SessionRef {
  size_t pool = 0;
  size_t index = 0;
};

// What the lanes of one io thread record, under its lock.
struct alignas(64) Shard {
  std::mutex mu;
  std::array<KindFigures, kStatKinds> kinds;
};

// "get /a", "multi /a (+3)": a request, for a message.
std::string describe(const Request& r) {
  std::string out(stat_name(r.kind));
  if (!r.ops.empty()) out += " " + r.ops.front().path;
  if (r.ops.size() > 1) out += " (+" + std::to_string(r.ops.size() - 1) + ")";
  return out;
}

}  // namespace

struct Runner::State {
  explicit State(RunnerOptions o) : options(std::move(o)) {}

  toolkit::SessionPool& pool_of(size_t session) { return *pools[sessions[session].pool]; }
  const std::shared_ptr<Client>& client_of(size_t session) {
    return pool_of(session).client(sessions[session].index);
  }
  std::string name_of(size_t session) const {
    return "session " + std::to_string(session) + " (" +
           options.targets[sessions[session].pool].pool.addresses.front() + ")";
  }
  Shard& shard_of(size_t session) {
    const SessionRef& ref = sessions[session];
    return shards[shard_base[ref.pool] + pools[ref.pool]->thread_of(ref.index)];
  }

  // A session still usable, drawn uniformly; nothing when none is left.
  std::optional<size_t> pick(Rng& rng) {
    const size_t n = sessions.size();
    const size_t first = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
    for (size_t k = 0; k < n; ++k) {
      const size_t s = (first + k) % n;
      if (!dead[s].load(std::memory_order_relaxed)) return s;
    }
    return std::nullopt;
  }

  void record(Shard& shard, StatKind kind, bool measured, Clock::time_point start,
              const Answer& a) {
    if (!measured) {
      warmup.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    const auto latency = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
    {
      std::lock_guard lock(shard.mu);
      KindFigures& k = shard.kinds[static_cast<size_t>(kind)];
      if (a.counted()) {
        ++k.figures.ok;
        k.figures.latency.record(latency.count());
        k.bytes += a.bytes;
        if (a.tolerated) ++k.tolerated;
      } else {
        ++k.figures.errors[a.error];
      }
    }
    (is_read(kind) ? reads : writes).fetch_add(1, std::memory_order_relaxed);
    if (!a.counted()) errors.fetch_add(1, std::memory_order_relaxed);
  }

  void note(std::vector<std::string>& list, std::string what) {
    std::lock_guard lock(mu);
    list.push_back(std::move(what));
  }

  // One request loop (see keeper_bench_runner.h), on its home session's thread.
  Task<void> lane(size_t index) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    RequestGenerator generator(plan, derive_seed(options.seed, generator_stream(index)));
    Rng rng(derive_seed(options.seed, session_stream(index)));
    const Config& c = options.config;
    while (!stopping.load(std::memory_order_relaxed)) {
      const auto now = Clock::now();
      if (now >= send_end) break;
      const bool measured = now >= measure_start;
      if (measured && c.iterations > 0 && tickets.fetch_sub(1, std::memory_order_relaxed) <= 0) {
        break;
      }
      const std::optional<size_t> s = pick(rng);
      if (!s) {
        note(ended, "no session left to send on");
        break;
      }
      Request request = generator.next();
      const StatKind kind = request.kind;
      const std::string what = c.continue_on_error ? std::string() : describe(request);
      auto box = std::make_shared<Mailbox>();
      box->timer = &timer;
      const auto start = Clock::now();
      pool_of(*s).spawn(sessions[*s].index,
                        relay(client_of(*s), std::move(request), box, timer.get_executor()));
      timer.expires_after(options.targets[sessions[*s].pool].operation_timeout);
      while (!box->answer) {
        const auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        if (!ec) break;  // the operation timeout
      }
      box->timer = nullptr;
      const Answer a = box->answer.value_or(Answer{Error::kOperationTimeout, false, 0});
      record(shard_of(*s), kind, measured, start, a);
      if (a.counted()) continue;
      if (!c.continue_on_error) {
        {
          std::lock_guard lock(mu);
          if (stopped_by.empty())
            stopped_by = what + ": " + std::string(zk::wire::error_name(a.error));
        }
        stopping.store(true);
        break;
      }
      if (toolkit::session_over(a.error) && !dead[*s].exchange(true)) {
        note(ended, name_of(*s) + ": " + std::string(zk::wire::error_name(a.error)));
      }
    }
    std::lock_guard lock(mu);
    if (--lanes_running == 0) lanes_done.notify_all();
  }

  const RunnerOptions options;
  std::vector<SessionRef> sessions;           // every session of every pool
  std::unique_ptr<std::atomic<bool>[]> dead;  // per session: no longer drawn
  std::vector<size_t> shard_base;             // per pool: its first shard
  std::vector<Shard> shards;                  // one per io thread of every pool
  SetupTree tree;
  std::shared_ptr<GeneratorPlan> plan;
  bool connected = false;  // the owner's thread only
  bool prepared = false;
  bool ran = false;
  // Set by run() before any lane starts.
  Clock::time_point measure_start;
  Clock::time_point send_end = Clock::time_point::max();
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  std::atomic<bool> stopping{false};
  std::atomic<int64_t> tickets{0};
  std::atomic<int64_t> reads{0}, writes{0}, errors{0}, warmup{0};
  std::mutex mu;  // guards lanes_running, stopped_by, ended
  std::condition_variable lanes_done;
  size_t lanes_running = 0;
  std::string stopped_by;
  std::vector<std::string> ended;
  // Last: destroyed first (after ~Runner closed every one of them).
  std::vector<std::unique_ptr<toolkit::SessionPool>> pools;
};

Runner::Runner(RunnerOptions options) : state_(std::make_unique<State>(std::move(options))) {}

Runner::~Runner() {
  State& st = *state_;
  stop();
  // Every pool is closed (its tasks, the relays among them, have returned)
  // before any is destroyed: a relay posts to its lane's pool.
  const auto until = Clock::now() + st.options.stop_deadline;
  for (auto& pool : st.pools) pool->close(until);
  st.pools.clear();
}

std::string Runner::connect() {
  State& st = *state_;
  if (st.options.targets.empty()) return "no server";
  size_t threads = 0;
  for (const Target& t : st.options.targets) {
    st.shard_base.push_back(threads);
    st.pools.push_back(std::make_unique<toolkit::SessionPool>(t.pool));
    threads += st.pools.back()->threads();
  }
  st.shards = std::vector<Shard>(threads);
  for (size_t p = 0; p < st.pools.size(); ++p) {
    if (std::string e = st.pools[p]->connect(); !e.empty()) {
      return st.options.targets[p].pool.addresses.front() + ": " + e;
    }
    for (size_t i = 0; i < st.pools[p]->size(); ++i) st.sessions.push_back({p, i});
  }
  if (st.sessions.empty()) return "no session";
  st.dead = std::make_unique<std::atomic<bool>[]>(st.sessions.size());
  st.connected = true;
  return "";
}

std::string Runner::prepare() {
  State& st = *state_;
  if (!st.connected) return "not connected";
  toolkit::SessionPool& pool = *st.pools.front();
  Rng rng(derive_seed(st.options.seed, kSetupStream));
  st.tree = expand_setup(st.options.config.setup, rng);
  for (const std::string& root : st.tree.roots) {
    if (std::string e = remove_tree(pool, root); !e.empty()) return "setup: " + e;
  }
  const auto& znodes = st.tree.znodes;
  for (size_t begin = 0; begin < znodes.size();) {
    size_t end = begin;
    while (end < znodes.size() && znodes[end].depth == znodes[begin].depth) ++end;
    FirstFailure failed;
    const std::string e = pipeline(pool, end - begin, failed, [&](size_t s, size_t i) {
      const SetupZnode& z = znodes[begin + i];
      return create_one(pool.client(s), z.path, z.data, &failed);
    });
    if (!e.empty()) return "setup: " + e;
    begin = end;
  }
  std::vector<RequestSpec> specs = st.options.config.requests;
  std::map<std::string, std::vector<std::string>> listed;
  for (const std::string& parent : parents_to_list(specs)) {
    const auto r = run_on(pool, 0, pool.client(0)->get_children(parent));
    if (!r.ok()) return failure("list", parent, r.error());
    listed[parent] = *r;
  }
  if (std::string e = resolve_paths(specs, listed); !e.empty()) return e;
  st.plan = std::make_shared<GeneratorPlan>(std::move(specs));
  st.prepared = true;
  return "";
}

const SetupTree& Runner::setup_tree() const { return state_->tree; }

RunResult Runner::run(const Report& report, std::chrono::milliseconds every) {
  State& st = *state_;
  RunResult result;
  if (!st.prepared) result.error = "not prepared";
  if (st.ran) result.error = "run() was called before";
  if (!result.error.empty()) return result;
  st.ran = true;
  const Config& c = st.options.config;
  std::vector<std::string> addresses;
  for (const Target& t : st.options.targets) addresses.push_back(t.pool.addresses.front());
  const ServerCpu servers(addresses, {});  // found before the load starts

  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  const size_t lanes = c.concurrency * c.pipeline_depth;
  st.tickets.store(static_cast<int64_t>(c.iterations));
  const auto origin = Clock::now();
  st.measure_start = origin + seconds(c.warmup_s);
  if (c.timelimit_s > 0) st.send_end = st.measure_start + seconds(c.timelimit_s);
  st.lanes_running = lanes;
  st.started.store(true);
  for (size_t i = 0; i < lanes; ++i) {
    const size_t home = i % st.sessions.size();
    st.pool_of(home).spawn(st.sessions[home].index, st.lane(i));
  }

  std::optional<CpuTimes> cpu_from;
  ServerCpuTimes servers_from;
  Clock::time_point wall_from;
  std::chrono::system_clock::time_point unix_from;
  auto sample_start = [&] {
    cpu_from = process_cpu_times();
    servers_from = servers.sample();
    wall_from = Clock::now();
    unix_from = std::chrono::system_clock::now();
  };
  auto next_report = origin + every;
  {
    std::unique_lock lock(st.mu);
    while (st.lanes_running > 0) {
      auto until = Clock::time_point::max();
      if (!cpu_from) until = st.measure_start;
      if (report && every.count() > 0) until = std::min(until, next_report);
      const auto over = [&] { return st.lanes_running == 0; };
      if (until == Clock::time_point::max()) {
        st.lanes_done.wait(lock, over);
      } else {
        st.lanes_done.wait_until(lock, until, over);
      }
      const auto now = Clock::now();
      if (!cpu_from && now >= st.measure_start) sample_start();
      if (report && every.count() > 0 && now >= next_report && st.lanes_running > 0) {
        lock.unlock();
        report(progress());
        lock.lock();
        next_report += every;
      }
    }
  }
  if (!cpu_from) sample_start();  // the run ended in its warm-up
  const auto cpu_to = process_cpu_times();
  const auto servers_to = servers.sample();
  const auto wall_to = Clock::now();
  st.finished.store(true);

  for (Shard& shard : st.shards) {
    std::lock_guard lock(shard.mu);
    for (size_t k = 0; k < kStatKinds; ++k) {
      result.kinds[k].figures.merge(shard.kinds[k].figures);
      result.kinds[k].bytes += shard.kinds[k].bytes;
      result.kinds[k].tolerated += shard.kinds[k].tolerated;
    }
  }
  result.measured = std::chrono::duration_cast<std::chrono::nanoseconds>(wall_to - wall_from);
  result.start_unix_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(unix_from.time_since_epoch()).count();
  result.warmup_requests = st.warmup.load();
  result.cpu =
      cpu_usage(*cpu_from, cpu_to,
                std::chrono::duration_cast<std::chrono::microseconds>(wall_to - wall_from));
  result.server_cpu = servers.usage(servers_from, servers_to);
  std::lock_guard lock(st.mu);
  result.stopped_by = st.stopped_by;
  result.ended = st.ended;
  return result;
}

std::string Runner::cleanup() {
  State& st = *state_;
  if (!st.connected) return "not connected";
  for (const std::string& root : st.tree.roots) {
    if (std::string e = remove_tree(*st.pools.front(), root); !e.empty()) return e;
  }
  return "";
}

Progress Runner::progress() const {
  const State& st = *state_;
  Progress p;
  if (!st.started.load()) return p;
  const auto now = Clock::now();
  p.measuring = now >= st.measure_start;
  if (p.measuring) p.measured = now - st.measure_start;
  p.reads = st.reads.load(std::memory_order_relaxed);
  p.writes = st.writes.load(std::memory_order_relaxed);
  p.errors = st.errors.load(std::memory_order_relaxed);
  return p;
}

void Runner::stop() { state_->stopping.store(true); }

}  // namespace zk::bench::keeper
