// SPDX-License-Identifier: Apache-2.0
#include "toolkit/session_pool.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

namespace zk::toolkit {

namespace {

namespace asio = boost::asio;
using zk::client::Client;
using zk::client::Status;
using zk::client::Task;

// How long the destructor lets the threads run out of work once the
// sessions are gone, before it stops them.
constexpr auto kDrainDeadline = std::chrono::seconds(5);

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
  std::thread thread;  // last: starts once everything above exists
};

Task<Status> connect_client(std::shared_ptr<Client> client, std::string hosts,
                            std::chrono::milliseconds deadline) {
  co_return co_await client->connect(std::move(hosts), deadline);
}

}  // namespace

std::string session_hosts(const std::vector<std::string>& addresses, size_t i) {
  std::string hosts;
  for (size_t k = 0; k < addresses.size(); ++k) {
    hosts += (k == 0 ? "" : ",") + addresses[(i + k) % addresses.size()];
  }
  return hosts;
}

struct SessionPool::State {
  explicit State(SessionPoolOptions o) : options(std::move(o)) {
    for (int i = 0; i < std::max(options.threads, 1); ++i) {
      workers.push_back(std::make_unique<Worker>());
    }
  }

  Worker& worker(size_t session) { return *workers[session % workers.size()]; }

  Task<void> close_one(std::shared_ptr<Client> client) { (void)co_await client->close(); }

  const SessionPoolOptions options;
  std::vector<std::shared_ptr<Client>> clients;  // session i at i; set by connect()
  bool closed = false;                           // the owner's thread only
  mutable std::mutex mu;                         // guards running
  mutable std::condition_variable cv;
  int running = 0;
  // Last: destroyed first, once every thread has stopped (see ~SessionPool).
  std::vector<std::unique_ptr<Worker>> workers;
};

SessionPool::SessionPool(SessionPoolOptions options)
    : state_(std::make_unique<State>(std::move(options))) {}

SessionPool::~SessionPool() {
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

std::string SessionPool::connect() {
  State& st = *state_;
  const SessionPoolOptions& o = st.options;
  if (o.addresses.empty()) return "no address to connect to";
  if (o.sessions < 1) return "no sessions";
  if (!st.clients.empty()) return "connect() was called before";
  std::vector<std::future<Status>> pending;
  for (size_t i = 0; i < static_cast<size_t>(o.sessions); ++i) {
    zk::client::ClientOptions co;
    co.session_timeout = o.session_timeout;
    co.shuffle_hosts = false;
    co.reconnect_backoff = o.reconnect_backoff;
    co.tls_context = o.tls_context;
    co.tls_verify_host = o.tls_verify_host;
    co.sasl = o.sasl;
    auto client = std::make_shared<Client>(st.worker(i).io.get_executor(), co);
    st.clients.push_back(client);
    pending.push_back(asio::co_spawn(
        st.worker(i).io, connect_client(client, session_hosts(o.addresses, i), o.connect_deadline),
        asio::use_future));
  }
  std::string error;
  for (size_t i = 0; i < pending.size(); ++i) {
    const Status s = pending[i].get();
    if (!s.ok() && error.empty()) {
      error = "session " + std::to_string(i) + " (" + session_hosts(o.addresses, i) +
              "): connect: " + std::string(zk::wire::error_name(s.error()));
    }
  }
  return error;
}

size_t SessionPool::size() const { return state_->clients.size(); }

const SessionPoolOptions& SessionPool::options() const { return state_->options; }

const std::shared_ptr<Client>& SessionPool::client(size_t i) const { return state_->clients[i]; }

boost::asio::any_io_executor SessionPool::executor(size_t i) const {
  return state_->worker(i).io.get_executor();
}

size_t SessionPool::threads() const { return state_->workers.size(); }

size_t SessionPool::thread_of(size_t i) const { return i % state_->workers.size(); }

void SessionPool::spawn(size_t i, Task<void> task) {
  State& st = *state_;
  {
    std::lock_guard lock(st.mu);
    ++st.running;
  }
  asio::co_spawn(st.worker(i).io, std::move(task), [&st](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);  // a bug: let it end the process
    std::lock_guard lock(st.mu);
    --st.running;
    st.cv.notify_all();
  });
}

bool SessionPool::wait_idle(Clock::time_point until) const {
  const State& st = *state_;
  std::unique_lock lock(st.mu);
  return st.cv.wait_until(lock, until, [&st] { return st.running == 0; });
}

bool SessionPool::close(Clock::time_point until) {
  State& st = *state_;
  if (!st.closed) {
    st.closed = true;
    for (size_t i = 0; i < st.clients.size(); ++i) spawn(i, st.close_one(st.clients[i]));
  }
  return wait_idle(until);
}

bool session_over(zk::client::Error e) {
  using zk::client::Error;
  return e == Error::kSessionExpired || e == Error::kClosing || e == Error::kAuthFailed;
}

zk::client::Task<zk::client::Status> create_if_missing(std::shared_ptr<zk::client::Client> client,
                                                       std::string path, zk::wire::Buffer data) {
  auto r = co_await client->create(std::move(path), std::move(data));
  co_return r.ok() || r.error() == zk::client::Error::kNodeExists ? zk::client::Error::kOk
                                                                  : r.error();
}

}  // namespace zk::toolkit
