// failover_bench: how long a 3-node ensemble cannot take writes when its
// leader is SIGKILLed under load, for zkd and Apache ZooKeeper 3.8 under the
// same load, side by side.
//
// Per flavour: one 3-node ensemble (zklab/ensemble.h: tickTime --tick-ms,
// initLimit 10, syncLimit 5, forceSync on), then --runs times:
//   1. the current leader L is found with srvr; --clients async sessions are
//      opened on the two followers only (their addresses, shuffled), each
//      with one setData of 100 bytes on its own znode in flight, in a loop;
//   2. after --warmup seconds of writing, L is SIGKILLed (t0: just before);
//   3. measured from t0: "new leader", the first srvr round that shows a
//      unique leader other than L (srvr is polled every ~25 ms, so this
//      figure is coarse by that much); "first write", the completion of the
//      first successful setData sent after t0 by any client: the
//      unavailability window; "all clients", when every client has had one;
//   4. the load stops, L is started again and rejoins; the next run kills the
//      then-current leader.
// Printed: every run, the median of each figure per flavour, and the ratio
// zkd/apache of the medians.
//
// A benchmark, not a test: it prints figures and asserts nothing about them.
// See bench/README.md.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "CLI/CLI.hpp"
#include "libzk/client/client.h"
#include "zklab/ensemble.h"

#ifndef ZKD_BINARY
#error "ZKD_BINARY must name the default zkd executable"
#endif

namespace zk::bench {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using zk::client::Client;
using zk::client::ClientOptions;
using zk::client::Error;
using zk::client::Task;
using zk::lab::Ensemble;
using zk::lab::EnsembleOptions;
using zk::lab::Flavour;

constexpr auto kRunDeadline = 60s;  // from the kill, for every figure of a run
constexpr auto kSessionTimeout = 30s;
constexpr auto kConnectDeadline = 20s;

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

struct Options {
  std::string flavour = "both";
  int runs = 5;
  std::string zkd = ZKD_BINARY;
  int clients = 8;
  double warmup_s = 1.0;
  int tick_ms = 200;
  bool keep_dir = false;
};

struct RunResult {
  int killed = 0;  // id of the killed leader
  std::optional<double> new_leader_ms;
  std::optional<double> first_write_ms;
  std::optional<double> all_clients_ms;
  double writes_per_s_before = 0;  // during the warm-up, all clients
  std::string error;
};

// --clients sessions, each with one setData in flight in a loop, on one
// io_context thread. Records, per client, the first success sent after the
// kill time.
class WriteLoad {
 public:
  WriteLoad() : thread_([this] { io_.run(); }) {}
  ~WriteLoad() {
    stop();
    // Drop the clients on the io thread, let their shutdown run, then stop.
    asio::co_spawn(io_, drop_clients(), asio::use_future).get();
    asio::co_spawn(
        io_, []() -> Task<void> { co_return; }(), asio::use_future)
        .get();
    work_.reset();
    io_.stop();
    thread_.join();
  }
  WriteLoad(const WriteLoad&) = delete;
  WriteLoad& operator=(const WriteLoad&) = delete;

  // Opens `count` sessions on `hosts`. Empty on success, else why not.
  std::string connect(int count, const std::string& hosts) {
    for (int i = 0; i < count; ++i) {
      ClientOptions options;
      options.session_timeout = kSessionTimeout;
      options.reconnect_backoff = 20ms;
      clients_.push_back(std::make_unique<Client>(io_.get_executor(), options));
      auto st =
          asio::co_spawn(io_, clients_.back()->connect(hosts, kConnectDeadline), asio::use_future)
              .get();
      if (!st.ok()) return "client " + std::to_string(i) + ": connect: " + error_text(st.error());
    }
    first_after_kill_.assign(clients_.size(), std::nullopt);
    gave_up_.assign(clients_.size(), false);
    return {};
  }

  // Creates each client's znode (/failover/c<i>), ignoring kNodeExists.
  std::string prepare() {
    auto& c = *clients_.front();
    auto r = asio::co_spawn(io_, c.create("/failover", std::string()), asio::use_future).get();
    if (!r.ok() && r.error() != Error::kNodeExists)
      return "create /failover: " + error_text(r.error());
    for (size_t i = 0; i < clients_.size(); ++i) {
      auto ri = asio::co_spawn(io_, c.create(path(i), std::string()), asio::use_future).get();
      if (!ri.ok() && ri.error() != Error::kNodeExists) {
        return "create " + path(i) + ": " + error_text(ri.error());
      }
    }
    return {};
  }

  void start() {
    for (size_t i = 0; i < clients_.size(); ++i) {
      {
        std::lock_guard lock(mu_);
        ++running_;
      }
      // An exception in a write loop is a bug: let it end the process.
      asio::co_spawn(io_, write_loop(i), [](std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
      });
    }
  }

  // From now on, successes of writes sent at or after `t0` count.
  void set_kill_time(Clock::time_point t0) {
    std::lock_guard lock(mu_);
    kill_time_ = t0;
  }

  int64_t successes() {
    std::lock_guard lock(mu_);
    return successes_;
  }

  // Waits until every client had a success after the kill time (or gave up
  // on an error), or `until`.
  void wait_all_recovered(Clock::time_point until) {
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, until, [this] {
      for (size_t i = 0; i < first_after_kill_.size(); ++i) {
        if (!first_after_kill_[i] && !gave_up_[i]) return false;
      }
      return true;
    });
  }

  // The earliest and the latest of the clients' first successes after the
  // kill (the latest only if every client had one).
  std::pair<std::optional<Clock::time_point>, std::optional<Clock::time_point>> recovery() {
    std::lock_guard lock(mu_);
    std::optional<Clock::time_point> first;
    std::optional<Clock::time_point> last;
    bool all = true;
    for (const auto& t : first_after_kill_) {
      if (!t) {
        all = false;
        continue;
      }
      if (!first || *t < *first) first = t;
      if (!last || *t > *last) last = t;
    }
    return {first, all ? last : std::nullopt};
  }

  // Errors other than connection loss, if any (e.g. an expired session).
  std::vector<std::string> problems() {
    std::lock_guard lock(mu_);
    return problems_;
  }

  // Ends the write loops and waits for them (each ends with its write in flight).
  void stop() {
    stop_.store(true);
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return running_ == 0; });
  }

 private:
  std::string path(size_t i) const { return "/failover/c" + std::to_string(i); }

  Task<void> write_loop(size_t i) {
    Client& c = *clients_[i];
    const std::string p = path(i);
    const std::string value(100, 'v');
    while (!stop_.load()) {
      const auto sent = Clock::now();
      auto r = co_await c.set_data(p, value);
      const auto done = Clock::now();
      std::lock_guard lock(mu_);
      if (r.ok()) {
        ++successes_;
        if (kill_time_ && sent >= *kill_time_ && !first_after_kill_[i]) {
          first_after_kill_[i] = done;
          cv_.notify_all();
        }
      } else if (r.error() != Error::kConnectionLoss) {
        problems_.push_back("client " + std::to_string(i) + ": setData: " + error_text(r.error()));
        gave_up_[i] = true;
        cv_.notify_all();
        break;
      }
    }
    std::lock_guard lock(mu_);
    --running_;
    cv_.notify_all();
  }

  Task<void> drop_clients() {
    clients_.clear();
    co_return;
  }

  asio::io_context io_{1};
  asio::executor_work_guard<asio::io_context::executor_type> work_{io_.get_executor()};
  std::vector<std::unique_ptr<Client>> clients_;  // touched on the io thread once started
  std::atomic<bool> stop_{false};
  std::mutex mu_;  // guards what follows
  std::condition_variable cv_;
  int running_ = 0;
  int64_t successes_ = 0;
  std::optional<Clock::time_point> kill_time_;
  std::vector<std::optional<Clock::time_point>> first_after_kill_;
  std::vector<bool> gave_up_;  // the client's loop ended on an error
  std::vector<std::string> problems_;
  std::thread thread_;  // last: starts once everything above exists
};

RunResult run_once(Ensemble& ensemble, const Options& o) {
  RunResult result;
  auto leader = ensemble.leader(30s);
  if (!leader) {
    result.error = "no leader before the kill";
    return result;
  }
  result.killed = *leader;
  std::vector<int> followers;
  for (int id : ensemble.ids()) {
    if (id != *leader) followers.push_back(id);
  }

  WriteLoad load;
  result.error = load.connect(o.clients, ensemble.connect_string(followers));
  if (result.error.empty()) result.error = load.prepare();
  if (!result.error.empty()) return result;
  load.start();
  const auto warm_from = Clock::now();
  const int64_t before = load.successes();
  // Warm-up: the load runs; nothing to wait for but time.
  std::this_thread::sleep_for(std::chrono::duration<double>(o.warmup_s));
  result.writes_per_s_before = static_cast<double>(load.successes() - before) /
                               std::chrono::duration<double>(Clock::now() - warm_from).count();

  const auto t0 = Clock::now();
  load.set_kill_time(t0);
  if (!ensemble.kill(*leader)) {
    result.error = "the leader did not die";
    return result;
  }
  if (ensemble.wait_for_leader(kRunDeadline, {*leader})) {
    result.new_leader_ms = ms_between(t0, Clock::now());
  }
  load.wait_all_recovered(t0 + kRunDeadline);
  load.stop();
  auto [first, all] = load.recovery();
  if (first) result.first_write_ms = ms_between(t0, *first);
  if (all) result.all_clients_ms = ms_between(t0, *all);
  for (const auto& p : load.problems()) result.error += (result.error.empty() ? "" : "; ") + p;

  auto back = ensemble.restart(*leader, kRunDeadline);
  if (back.empty()) back = ensemble.wait_all_serving(kRunDeadline);
  if (!back.empty()) {
    result.error += (result.error.empty() ? "" : "; ") + ("restart: " + back);
  }
  return result;
}

std::string figure(const std::optional<double>& ms) {
  if (!ms) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", *ms);
  return buf;
}

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Summary {
  std::optional<double> new_leader_ms;
  std::optional<double> first_write_ms;
  std::optional<double> all_clients_ms;
};

// All runs for one flavour; nothing when its ensemble did not start.
std::optional<Summary> bench_flavour(Flavour flavour, const Options& o) {
  EnsembleOptions eo;
  eo.flavour = flavour;
  eo.zkd_binary = o.zkd;
  eo.voters = 3;
  eo.tick_time_ms = o.tick_ms;
  eo.temp_dir_prefix = "failover_bench";
  auto started = Ensemble::start(eo);
  const std::string name(zk::lab::flavour_name(flavour));
  if (!started.ensemble) {
    std::cout << name << ": the ensemble did not start: " << started.error << std::endl;
    return std::nullopt;
  }
  Ensemble& ensemble = *started.ensemble;
  if (o.keep_dir) {
    ensemble.keep_directory();
    std::cout << name << ": directory " << ensemble.directory().string() << std::endl;
  }
  std::vector<double> leader_ms, first_ms, all_ms;
  for (int run = 1; run <= o.runs; ++run) {
    RunResult r = run_once(ensemble, o);
    std::printf("%-7s %3d %7d %13s %12s %12s %16.0f  %s\n", name.c_str(), run, r.killed,
                figure(r.new_leader_ms).c_str(), figure(r.first_write_ms).c_str(),
                figure(r.all_clients_ms).c_str(), r.writes_per_s_before, r.error.c_str());
    std::fflush(stdout);
    if (r.new_leader_ms) leader_ms.push_back(*r.new_leader_ms);
    if (r.first_write_ms) first_ms.push_back(*r.first_write_ms);
    if (r.all_clients_ms) all_ms.push_back(*r.all_clients_ms);
    if (r.killed == 0) break;  // no leader to kill: later runs would not fare better
  }
  return Summary{median(leader_ms), median(first_ms), median(all_ms)};
}

std::string ratio(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || *b <= 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", *a / *b);
  return buf;
}

}  // namespace
}  // namespace zk::bench

int main(int argc, char** argv) {
  using namespace zk::bench;
  Options o;
  CLI::App app{"failover_bench: write unavailability after SIGKILL of a 3-node ensemble's leader"};
  app.add_option("--flavour", o.flavour, "zkd, apache or both")
      ->check(CLI::IsMember({"zkd", "apache", "both"}))
      ->capture_default_str();
  app.add_option("--runs", o.runs, "leader kills per flavour")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--zkd", o.zkd, "the zkd binary")->capture_default_str();
  app.add_option("--clients", o.clients, "writing sessions, one setData in flight each")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warmup", o.warmup_s, "seconds of load before each kill")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--tick-ms", o.tick_ms, "tickTime of both flavours")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--keep-dir", o.keep_dir, "keep the ensembles' directories");
  CLI11_PARSE(app, argc, argv);

  std::vector<Flavour> flavours;
  if (o.flavour != "apache") flavours.push_back(Flavour::kZkd);
  if (o.flavour != "zkd") flavours.push_back(Flavour::kApache);
  std::cout << "3 nodes, tickTime " << o.tick_ms << " ms, initLimit 10, syncLimit 5, forceSync on; "
            << o.clients << " clients on the followers, one 100-byte setData in flight each; "
            << o.runs << " leader kills per flavour. Times in ms from the SIGKILL." << std::endl;
  std::printf("%-7s %3s %7s %13s %12s %12s %16s\n", "flavour", "run", "killed", "new leader",
              "first write", "all clients", "writes/s before");
  std::map<Flavour, Summary> summaries;
  bool failed = false;
  for (Flavour f : flavours) {
    auto s = zk::bench::bench_flavour(f, o);
    if (s) {
      summaries[f] = *s;
    } else {
      failed = true;
    }
  }
  std::cout << "\nmedians (ms):" << std::endl;
  for (const auto& [f, s] : summaries) {
    std::printf("%-7s new leader %s, first write %s, all clients %s\n",
                std::string(zk::lab::flavour_name(f)).c_str(), figure(s.new_leader_ms).c_str(),
                figure(s.first_write_ms).c_str(), figure(s.all_clients_ms).c_str());
  }
  if (summaries.count(Flavour::kZkd) != 0 && summaries.count(Flavour::kApache) != 0) {
    const Summary& z = summaries[Flavour::kZkd];
    const Summary& a = summaries[Flavour::kApache];
    std::printf("ratio zkd/apache: new leader %s, first write %s, all clients %s\n",
                ratio(z.new_leader_ms, a.new_leader_ms).c_str(),
                ratio(z.first_write_ms, a.first_write_ms).c_str(),
                ratio(z.all_clients_ms, a.all_clients_ms).c_str());
  }
  return failed ? 1 : 0;
}
