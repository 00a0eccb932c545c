#include "zklab/load.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <future>
#include <limits>
#include <mutex>
#include <random>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "libzk/client/client.h"

namespace zk::lab {

namespace {

namespace asio = boost::asio;
using zk::client::Client;
using zk::client::Error;
using zk::client::Status;
using zk::client::Task;
using Clock = std::chrono::steady_clock;

// How long the destructor lets the io threads run out of work once the
// sessions are gone, before it stops them.
constexpr auto kDrainDeadline = std::chrono::seconds(5);
constexpr Clock::rep kNoMark = std::numeric_limits<Clock::rep>::max();

// One io_context thread and its share of the buckets.
struct Worker {
  Worker() : thread([this] { run(); }) {}

  void run() {
    io.run();
    finished.set_value();
  }

  asio::io_context io{1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{io.get_executor()};
  std::promise<void> finished;  // set when io.run() returns
  std::future<void> done = finished.get_future();
  std::mutex mu;  // guards buckets
  std::vector<LoadBucket> buckets;
  std::thread thread;  // last: starts once everything above exists
};

// After these a session never succeeds again.
bool session_over(Error e) {
  return e == Error::kSessionExpired || e == Error::kClosing || e == Error::kAuthFailed;
}

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

Task<Status> connect_client(std::shared_ptr<Client> client, std::string hosts,
                            std::chrono::milliseconds deadline) {
  co_return co_await client->connect(std::move(hosts), deadline);
}

// Creates `path`; NODEEXISTS counts as success.
Task<Status> create_node(std::shared_ptr<Client> client, std::string path, zk::wire::Buffer data) {
  auto r = co_await client->create(std::move(path), std::move(data));
  co_return r.ok() || r.error() == Error::kNodeExists ? Error::kOk : r.error();
}

}  // namespace

struct Load::State {
  explicit State(LoadOptions o)
      : options(std::move(o)),
        value(std::string(static_cast<size_t>(std::max(options.value_bytes, 0)), 'v')) {
    for (int i = 0; i < std::max(options.threads, 1); ++i) {
      workers.push_back(std::make_unique<Worker>());
    }
  }

  Worker& worker(size_t session) { return *workers[session % workers.size()]; }
  std::string path(size_t session) const { return options.root + "/s" + std::to_string(session); }

  // One request loop of session `session`.
  Task<void> lane(std::shared_ptr<Client> client, size_t session, int index) {
    Worker& w = worker(session);
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
      record(w, done, is_read, e);
      if (e == Error::kOk && !is_read) note_write(session, sent, done);
      if (session_over(e)) {
        std::lock_guard lock(mu);
        if (ended[session].empty()) ended[session] = error_text(e);
        cv.notify_all();
        break;
      }
    }
    finish();
  }

  Task<void> close(std::shared_ptr<Client> client) {
    (void)co_await client->close();
    finish();
  }

  // Spawns `task` on `w`, counted in `running`.
  void spawn(Worker& w, Task<void> task) {
    {
      std::lock_guard lock(mu);
      ++running;
    }
    // An exception here is a bug: let it end the process.
    asio::co_spawn(w.io, std::move(task), [](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);
    });
  }

  void finish() {
    std::lock_guard lock(mu);
    --running;
    cv.notify_all();
  }

  void record(Worker& w, Clock::time_point done, bool is_read, Error e) {
    const auto index = static_cast<size_t>((done - origin) / options.bucket);
    std::lock_guard lock(w.mu);
    if (w.buckets.size() <= index) w.buckets.resize(index + 1);
    LoadBucket& b = w.buckets[index];
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

  bool all_recovered() const {  // with mu held
    for (size_t s = 0; s < first_after_mark.size(); ++s) {
      if (!first_after_mark[s] && ended[s].empty()) return false;
    }
    return true;
  }

  const LoadOptions options;
  const zk::wire::Buffer value;
  std::vector<std::shared_ptr<Client>> clients;  // session i at i; set by connect()
  bool connected = false;                        // the owner's thread only
  bool started = false;                          // the owner's thread only
  bool stopped = false;                          // the owner's thread only
  Clock::time_point origin;                      // set by start() before any loop runs
  std::atomic<bool> stopping{false};
  std::atomic<Clock::rep> mark{kNoMark};       // the mark's time_since_epoch
  std::unique_ptr<std::atomic<bool>[]> noted;  // per session: its first write after the mark
  mutable std::mutex mu;                       // guards what follows
  mutable std::condition_variable cv;
  int running = 0;  // loops and closes not finished
  std::vector<std::optional<Clock::time_point>> first_after_mark;
  std::vector<std::string> ended;  // per session: why its loops ended; empty if they did not
  // Last: destroyed first, once every thread has stopped (see ~Load).
  std::vector<std::unique_ptr<Worker>> workers;
};

Load::Load(LoadOptions options) : state_(std::make_unique<State>(std::move(options))) {}

Load::~Load() {
  stop();
  State& st = *state_;
  // A Client's destructor posts its session's shutdown to its io_context.
  st.clients.clear();
  for (auto& w : st.workers) w->work.reset();
  const auto until = Clock::now() + kDrainDeadline;
  for (auto& w : st.workers) {
    if (w->done.wait_until(until) != std::future_status::ready) w->io.stop();
    w->thread.join();
  }
}

std::string Load::connect() {
  State& st = *state_;
  const LoadOptions& o = st.options;
  if (o.addresses.empty()) return "no address to connect to";
  if (o.sessions < 1 || o.in_flight < 1) return "no sessions or nothing in flight";
  if (!st.clients.empty()) return "connect() was called before";
  const size_t n = static_cast<size_t>(o.sessions);
  std::vector<std::string> hosts(n);
  std::vector<std::future<Status>> pending;
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < o.addresses.size(); ++k) {
      hosts[i] += (k == 0 ? "" : ",") + o.addresses[(i + k) % o.addresses.size()];
    }
    zk::client::ClientOptions co;
    co.session_timeout = o.session_timeout;
    co.shuffle_hosts = false;
    co.reconnect_backoff = o.reconnect_backoff;
    auto client = std::make_shared<Client>(st.worker(i).io.get_executor(), co);
    st.clients.push_back(client);
    pending.push_back(asio::co_spawn(
        st.worker(i).io, connect_client(client, hosts[i], o.connect_deadline), asio::use_future));
  }
  st.noted = std::make_unique<std::atomic<bool>[]>(n);
  {
    std::lock_guard lock(st.mu);
    st.first_after_mark.assign(n, std::nullopt);
    st.ended.assign(n, std::string());
  }
  std::string error;
  for (size_t i = 0; i < n; ++i) {
    auto s = pending[i].get();
    if (!s.ok() && error.empty()) {
      error =
          "session " + std::to_string(i) + " (" + hosts[i] + "): connect: " + error_text(s.error());
    }
  }
  if (!error.empty()) return error;

  auto root = asio::co_spawn(st.worker(0).io, create_node(st.clients[0], o.root, std::string()),
                             asio::use_future)
                  .get();
  if (!root.ok()) return "create " + o.root + ": " + error_text(root.error());
  std::vector<std::future<Status>> created;
  for (size_t i = 0; i < n; ++i) {
    created.push_back(asio::co_spawn(
        st.worker(i).io, create_node(st.clients[i], st.path(i), st.value), asio::use_future));
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
  for (size_t s = 0; s < st.clients.size(); ++s) {
    for (int lane = 0; lane < st.options.in_flight; ++lane) {
      st.spawn(st.worker(s), st.lane(st.clients[s], s, lane));
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
  for (const auto& w : st.workers) {
    std::lock_guard lock(w->mu);
    for (size_t i = 0; i < std::min(out.size(), w->buckets.size()); ++i) out[i] += w->buckets[i];
  }
  return out;
}

LoadBucket Load::totals() const {
  LoadBucket sum;
  for (const auto& w : state_->workers) {
    std::lock_guard lock(w->mu);
    for (const auto& b : w->buckets) sum += b;
  }
  return sum;
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
  for (size_t s = 0; s < st.clients.size(); ++s) st.spawn(st.worker(s), st.close(st.clients[s]));
  std::unique_lock lock(st.mu);
  st.cv.wait_until(lock, Clock::now() + st.options.stop_deadline,
                   [&st] { return st.running == 0; });
}

}  // namespace zk::lab
