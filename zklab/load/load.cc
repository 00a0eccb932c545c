// SPDX-License-Identifier: Apache-2.0
#include "zklab/load/load.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <future>
#include <limits>
#include <mutex>
#include <random>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>

#include "libzk/client/client.h"
#include "toolkit/session_pool.h"

namespace zk::lab {

namespace {

namespace asio = boost::asio;
using zk::client::Client;
using zk::client::Error;
using zk::client::Status;
using zk::client::Task;
using zk::toolkit::create_if_missing;
using zk::toolkit::session_over;
using zk::toolkit::SessionPool;
using zk::toolkit::SessionPoolOptions;
using Clock = std::chrono::steady_clock;

constexpr Clock::rep kNoMark = std::numeric_limits<Clock::rep>::max();

// One io thread's share of the buckets.
struct Shard {
  mutable std::mutex mu;  // guards buckets
  std::vector<LoadBucket> buckets;
};

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

toolkit::SessionPoolOptions pool_options(const LoadOptions& o) {
  toolkit::SessionPoolOptions p;
  p.addresses = o.addresses;
  p.sessions = o.sessions;
  p.threads = o.threads;
  p.session_timeout = o.session_timeout;
  p.connect_deadline = o.connect_deadline;
  p.reconnect_backoff = o.reconnect_backoff;
  p.tls_context = o.security.tls_context;
  p.tls_verify_host = o.security.tls_verify_host;
  p.sasl = o.security.sasl;
  return p;
}

}  // namespace

struct Load::State {
  explicit State(LoadOptions o)
      : options(std::move(o)),
        value(std::string(static_cast<size_t>(std::max(options.value_bytes, 0)), 'v')),
        pool(pool_options(options)) {
    shards = std::vector<Shard>(pool.threads());
  }

  Shard& shard(size_t session) { return shards[pool.thread_of(session)]; }
  std::string path(size_t session) const { return options.root + "/s" + std::to_string(session); }

  // One request loop of session `session`.
  Task<void> lane(std::shared_ptr<Client> client, size_t session, int index) {
    Shard& sh = shard(session);
    const std::string p = path(session);
    std::mt19937_64 rng(options.seed * 1000003 + session * 1009 + static_cast<uint64_t>(index));
    std::bernoulli_distribution read(std::clamp(options.read_ratio, 0.0, 1.0));
    while (!stopping.load()) {
      const bool is_read = read(rng);
      const auto sent = Clock::now();
      Error e = Error::kOk;
      if (is_read) {
        e = (co_await client->get_data(p)).error();
      } else {
        zk::wire::Buffer data = value;
        e = (co_await client->set_data(p, std::move(data))).error();
      }
      const auto done = Clock::now();
      if (e != Error::kOk && stopping.load()) break;  // an effect of stopping
      record(sh, done, is_read, e);
      if (e == Error::kOk && !is_read) {
        note_write(session, sent, done);
        note_gap(done);
      }
      if (session_over(e)) {
        std::lock_guard lock(mu);
        if (ended[session].empty()) ended[session] = error_text(e);
        cv.notify_all();
        break;
      }
    }
  }

  void record(Shard& sh, Clock::time_point done, bool is_read, Error e) {
    const auto index = static_cast<size_t>((done - origin) / options.bucket);
    std::lock_guard lock(sh.mu);
    if (sh.buckets.size() <= index) sh.buckets.resize(index + 1);
    LoadBucket& b = sh.buckets[index];
    if (e != Error::kOk) {
      ++b.errors[e];
    } else if (is_read) {
      ++b.reads;
    } else {
      ++b.writes;
    }
  }

  void note_write(size_t session, Clock::time_point sent, Clock::time_point done) {
    const Clock::rep m = mark.load();
    if (m == kNoMark || sent.time_since_epoch().count() < m || noted[session].load()) return;
    noted[session].store(true);
    std::lock_guard lock(mu);
    if (!first_after_mark[session]) first_after_mark[session] = done;
    cv.notify_all();
  }

  void note_gap(Clock::time_point done) {
    std::lock_guard lock(gap_mu);
    if (last_write && done > *last_write) {
      const auto gap = std::chrono::duration_cast<std::chrono::microseconds>(done - *last_write);
      const WriteGap now{gap, std::chrono::duration_cast<std::chrono::microseconds>(done - origin)};
      if (gap > longest_gap.length) longest_gap = now;
      if (gap > step_gap.length) step_gap = now;
    }
    if (!last_write || done > *last_write) last_write = done;
  }

  bool all_recovered() const {  // with mu held
    for (size_t s = 0; s < first_after_mark.size(); ++s) {
      if (!first_after_mark[s] && ended[s].empty()) return false;
    }
    return true;
  }

  const LoadOptions options;
  const zk::wire::Buffer value;
  bool connected = false;    // the owner's thread only
  bool started = false;      // the owner's thread only
  bool stopped = false;      // the owner's thread only
  Clock::time_point origin;  // set by start() before any loop runs
  std::atomic<bool> stopping{false};
  std::atomic<Clock::rep> mark{kNoMark};       // the mark's time_since_epoch
  std::unique_ptr<std::atomic<bool>[]> noted;  // per session: its first write after the mark
  mutable std::mutex mu;                       // guards what follows
  mutable std::condition_variable cv;
  std::vector<std::optional<Clock::time_point>> first_after_mark;
  std::vector<std::string> ended;  // per session: why its loops ended; empty if they did not
  mutable std::mutex gap_mu;       // guards the three below
  std::optional<Clock::time_point> last_write;  // the latest successful write's completion
  WriteGap longest_gap;
  WriteGap step_gap;          // the longest since the last take_write_gap()
  std::vector<Shard> shards;  // io thread t's at t; set by the constructor
  // Last: destroyed first, so that no loop outlives what it uses.
  toolkit::SessionPool pool;
};

Load::Load(LoadOptions options) : state_(std::make_unique<State>(std::move(options))) {}

Load::~Load() { stop(); }

std::string Load::connect() {
  State& st = *state_;
  const LoadOptions& o = st.options;
  if (o.sessions < 1 || o.in_flight < 1) return "no sessions or nothing in flight";
  if (st.pool.size() > 0) return "connect() was called before";
  std::string error = st.pool.connect();
  const size_t n = st.pool.size();  // 0 if the pool refused the options
  st.noted = std::make_unique<std::atomic<bool>[]>(n);
  {
    std::lock_guard lock(st.mu);
    st.first_after_mark.assign(n, std::nullopt);
    st.ended.assign(n, std::string());
  }
  if (!error.empty()) return error;

  auto root =
      asio::co_spawn(st.pool.executor(0),
                     create_if_missing(st.pool.client(0), o.root, std::string()), asio::use_future)
          .get();
  if (!root.ok()) return "create " + o.root + ": " + error_text(root.error());
  std::vector<std::future<Status>> created;
  for (size_t i = 0; i < n; ++i) {
    created.push_back(asio::co_spawn(st.pool.executor(i),
                                     create_if_missing(st.pool.client(i), st.path(i), st.value),
                                     asio::use_future));
  }
  for (size_t i = 0; i < n; ++i) {
    auto s = created[i].get();
    if (!s.ok() && error.empty()) error = "create " + st.path(i) + ": " + error_text(s.error());
  }
  st.connected = error.empty();
  return error;
}

Load::Clock::time_point Load::start() {
  State& st = *state_;
  st.origin = Clock::now();
  if (!st.connected || st.started || st.stopped) return st.origin;
  st.started = true;
  for (size_t s = 0; s < st.pool.size(); ++s) {
    for (int lane = 0; lane < st.options.in_flight; ++lane) {
      st.pool.spawn(s, st.lane(st.pool.client(s), s, lane));
    }
  }
  return st.origin;
}

void Load::mark(Clock::time_point t) {
  Clock::rep unset = kNoMark;
  state_->mark.compare_exchange_strong(unset, t.time_since_epoch().count());
}

LoadRecovery Load::recovery() const {
  const State& st = *state_;
  std::lock_guard lock(st.mu);
  LoadRecovery r;
  for (const auto& t : st.first_after_mark) {
    if (!t) {
      ++r.sessions_without;
      continue;
    }
    if (!r.first || *t < *r.first) r.first = t;
    if (!r.all || *t > *r.all) r.all = t;
  }
  if (r.sessions_without > 0) r.all.reset();
  return r;
}

bool Load::wait_all_recovered(Clock::time_point until) const {
  const State& st = *state_;
  std::unique_lock lock(st.mu);
  return st.cv.wait_until(lock, until, [&st] { return st.all_recovered(); });
}

std::vector<LoadBucket> Load::buckets(Clock::time_point until) const {
  const State& st = *state_;
  if (!st.started || until <= st.origin) return {};
  const auto width = std::chrono::duration_cast<Clock::duration>(st.options.bucket).count();
  const auto span = (until - st.origin).count();
  std::vector<LoadBucket> out(static_cast<size_t>(span / width));
  for (const auto& sh : st.shards) {
    std::lock_guard lock(sh.mu);
    for (size_t i = 0; i < std::min(out.size(), sh.buckets.size()); ++i) out[i] += sh.buckets[i];
  }
  return out;
}

LoadBucket Load::totals() const {
  LoadBucket sum;
  for (const auto& sh : state_->shards) {
    std::lock_guard lock(sh.mu);
    for (const auto& b : sh.buckets) sum += b;
  }
  return sum;
}

WriteGap Load::longest_write_gap() const {
  std::lock_guard lock(state_->gap_mu);
  return state_->longest_gap;
}

WriteGap Load::take_write_gap() {
  std::lock_guard lock(state_->gap_mu);
  return std::exchange(state_->step_gap, WriteGap{});
}

std::vector<std::string> Load::ended() const {
  const State& st = *state_;
  std::lock_guard lock(st.mu);
  std::vector<std::string> out;
  for (size_t s = 0; s < st.ended.size(); ++s) {
    if (!st.ended[s].empty()) out.push_back("session " + std::to_string(s) + ": " + st.ended[s]);
  }
  return out;
}

void Load::stop() {
  State& st = *state_;
  if (st.stopped) return;
  st.stopped = true;
  st.stopping.store(true);
  st.pool.close(Clock::now() + st.options.stop_deadline);
}

}  // namespace zk::lab
