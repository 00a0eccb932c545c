// SPDX-License-Identifier: Apache-2.0
// resync_bench: what a follower whose data was wiped costs the leader's
// clients while it is sent the whole tree again, zkd and Apache ZooKeeper 3.8
// side by side (docs/replication.md, "Streamed snapshots").
//
// Per flavour: one 3-node ensemble (zklab/process/ensemble.h: tickTime --tick-ms,
// initLimit --init-limit, syncLimit 5, forceSync on unless --no-fsync),
// then:
//   1. --znodes znodes of --value-bytes bytes are created under /resync
//      (zkbench's populate, on the leader): the populate rate, and each
//      node's resident memory after it; then --settle seconds pass (the
//      snapshots the populate started finish);
//   2. an open-loop setData load of --rate requests per second starts on the
//      leader, on one session: request k is due at start + k / rate and its
//      latency is measured from that due time (so a stall counts for every
//      request it delays, not only the one in flight); 32 threads send;
//   3. after --baseline seconds, a follower F is SIGKILLed and its version-2
//      deleted (myid and session.key stay, as an operator resyncs one); it
//      stays down --down seconds (the "down" window: the leader and one
//      follower make the quorum, as during the resync) and is started
//      again; the resync ends when F serves and its mntr zk_znode_count
//      equals the leader's (polled every 100 ms);
//   4. the load runs on for 2 s and stops.
// Printed per flavour: populate rate, memory, the baseline, down and resync
// (from the restart to the end of the resync) windows' p50, p99 and max
// latency and error count; for zkd also the baseline's requests due while
// the leader wrote one of its periodic snapshots (from "taking snapshot" to
// "written in" in its log) against the others, p99 each; the resync time, and whether every node's
// znode count is the same at the end; then zkd/apache ratios.
//
// With --zklab the zkd ensemble is a lab of `zklab up --tick-ms <tick>`
// instead (bench/zklab_lab.h): its peers talk through zklab's relay daemon
// (or directly with --direct), as in a lab where faults are injected; the
// relay daemon's CPU time during the resync is printed too.
//
// A benchmark, not a test: it prints figures and asserts nothing about them.
// See bench/README.md.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "libzk/client/sync_client.h"
#include "toolkit/poll_until.h"
#include "zkbench/histogram.h"
#include "zkbench/populate.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/proc_stats.h"
#include "zklab_lab.h"

#ifndef ZKD_BINARY
#error "ZKD_BINARY must name the default zkd executable"
#endif
#ifndef ZKLAB_BINARY
#error "ZKLAB_BINARY must name the default zklab executable"
#endif

namespace zk::bench {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using zk::lab::Ensemble;
using zk::lab::EnsembleOptions;
using zk::lab::Flavour;

constexpr int kSenders = 32;
constexpr auto kAfterResync = 2s;

struct Options {
  std::string flavour = "both";
  std::string zkd = ZKD_BINARY;
  int64_t znodes = 1000000;
  int value_bytes = 100;
  int rate = 1000;
  double baseline_s = 10;
  double down_s = 3;
  double settle_s = 10;
  int tick_ms = 2000;
  int init_limit = 10;
  int deadline_s = 300;
  std::string java_heap = "8g";
  bool no_fsync = false;
  int64_t snap_count = 0;                 // 0: the servers' default
  std::vector<std::string> zkd_settings;  // KEY=VALUE lines for zkd's zoo.cfg (--set)
  bool keep_dir = false;
  bool zklab = false;   // zkd in a lab of `zklab up`, through its relays
  bool direct = false;  // with zklab: `up --direct`, no relays
  std::string zklab_binary = ZKLAB_BINARY;
};

// One request of the open-loop load.
struct Sample {
  Clock::time_point due;
  Clock::duration latency;
  bool ok = false;
};

// The open-loop setData load on one session (see the top of the file).
class OpenLoop {
 public:
  OpenLoop(zk::client::SyncClient& client, std::string path, int rate, int value_bytes)
      : client_(client),
        path_(std::move(path)),
        period_(std::chrono::nanoseconds(1'000'000'000 / rate)),
        value_(static_cast<size_t>(value_bytes), 'v') {}
  ~OpenLoop() { stop(); }

  void start() {
    origin_ = Clock::now();
    for (int i = 0; i < kSenders; ++i) senders_.emplace_back([this] { send_loop(); });
  }
  void stop() {
    stopping_ = true;
    for (auto& t : senders_) t.join();
    senders_.clear();
  }
  // The samples due in [from, to).
  std::vector<Sample> window(Clock::time_point from, Clock::time_point to) const {
    std::lock_guard lock(mu_);
    std::vector<Sample> out;
    for (const Sample& s : samples_) {
      if (s.due >= from && s.due < to) out.push_back(s);
    }
    return out;
  }

 private:
  void send_loop() {
    while (!stopping_) {
      const int64_t k = next_.fetch_add(1);
      const Clock::time_point due = origin_ + k * period_;
      std::this_thread::sleep_until(due);  // the schedule: request k is due then
      if (stopping_) return;
      const auto result = client_.set_data(path_, value_);
      const Sample s{due, Clock::now() - due, result.ok()};
      std::lock_guard lock(mu_);
      samples_.push_back(s);
    }
  }

  zk::client::SyncClient& client_;
  const std::string path_;
  const Clock::duration period_;
  const std::string value_;
  Clock::time_point origin_;
  std::atomic<int64_t> next_{0};
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> senders_;
  mutable std::mutex mu_;
  std::vector<Sample> samples_;
};

struct Latencies {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  int64_t requests = 0, errors = 0;
};

Latencies latencies(const std::vector<Sample>& samples) {
  Histogram h;
  Latencies out;
  for (const Sample& s : samples) {
    ++out.requests;
    if (!s.ok) ++out.errors;
    h.record(std::chrono::duration_cast<std::chrono::nanoseconds>(s.latency).count());
  }
  out.p50_ms = static_cast<double>(h.percentile(0.50)) / 1e6;
  out.p99_ms = static_cast<double>(h.percentile(0.99)) / 1e6;
  out.max_ms = static_cast<double>(h.max()) / 1e6;
  return out;
}

// zkd's log lines start with their UTC time, "2026-11-28T01:26:08.829Z".
std::optional<std::chrono::system_clock::time_point> log_time(const std::string& line) {
  std::tm tm{};
  int ms = 0;
  if (line.size() < 24 ||
      std::sscanf(line.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(timegm(&tm)) + std::chrono::milliseconds(ms);
}

// The periods in which the server whose log is `log` wrote a snapshot, in
// steady time (`offset` = steady - system at one instant).
std::vector<std::pair<Clock::time_point, Clock::time_point>> snapshot_periods(
    const std::string& log, Clock::duration offset) {
  std::vector<std::pair<Clock::time_point, Clock::time_point>> out;
  std::ifstream in(log);
  std::optional<Clock::time_point> began;
  for (std::string line; std::getline(in, line);) {
    auto t = log_time(line);
    if (!t) continue;
    const Clock::time_point steady(t->time_since_epoch() + offset);
    if (line.find("taking snapshot") != std::string::npos) began = steady;
    if (line.find(" written in ") != std::string::npos && began) {
      out.emplace_back(*began, steady);
      began.reset();
    }
  }
  return out;
}

struct FlavourResult {
  std::string error;
  double populate_per_s = 0;
  std::vector<int64_t> rss_mib;  // per node, after populate
  Latencies baseline, down, resync;
  // zkd: the baseline's requests due while the leader wrote a snapshot, and the rest.
  size_t snapshots = 0;
  Latencies while_snapshotting, otherwise;
  double resync_s = 0;
  bool counts_equal = false;
  std::string counts;
  double relay_cpu_s = -1;  // --zklab: the relay daemon's CPU seconds in the resync
};

// utime + stime of process `pid` in seconds; -1 when it cannot be read.
double cpu_seconds(pid_t pid) {
  if (pid <= 0) return -1;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {  // field 3 is the state
    if (i == 14) utime = std::atoll(field.c_str());
    if (i == 15) stime = std::atoll(field.c_str());
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

pid_t node_pid(const Ensemble& e, int id) { return e.node(id).pid(); }
pid_t node_pid(const ZklabLab& lab, int id) { return lab.pid(id); }
std::string node_log(const Ensemble& e, int id) { return e.node(id).log_path().string(); }
std::string node_log(const ZklabLab& lab, int id) { return lab.log_path(id).string(); }
pid_t relay_pid(const Ensemble&) { return -1; }
pid_t relay_pid(const ZklabLab& lab) { return lab.relay_pid(); }

template <typename Lab>
FlavourResult measure(Lab& e, Flavour flavour, const Options& o);

FlavourResult bench_flavour(Flavour flavour, const Options& o) {
  FlavourResult r;
  EnsembleOptions eo;
  eo.flavour = flavour;
  eo.zkd_binary = o.zkd;
  eo.tick_time_ms = o.tick_ms;
  eo.init_limit = o.init_limit;
  eo.temp_dir_prefix = "resync_bench";
  eo.start_deadline = 120s;
  eo.force_sync = !o.no_fsync;
  if (o.snap_count > 0) eo.extra_lines.push_back("snapCount=" + std::to_string(o.snap_count));
  if (flavour == Flavour::kZkd) {
    eo.extra_lines.insert(eo.extra_lines.end(), o.zkd_settings.begin(), o.zkd_settings.end());
  }
  if (flavour == Flavour::kApache) {
    eo.java_flags = {"-Xmx" + o.java_heap, "-Dzookeeper.admin.enableServer=false",
                     "-Dzookeeper.jmx.log4j.disable=true",
                     "-Dorg.slf4j.simpleLogger.showDateTime=true"};
  }
  auto started = Ensemble::start(eo);
  if (!started.ensemble) {
    r.error = "the ensemble did not start: " + started.error;
    return r;
  }
  return measure(*started.ensemble, flavour, o);
}

// zkd in a lab of `zklab up` with the settings bench_flavour gives an Ensemble.
FlavourResult bench_lab(const Options& o) {
  ZklabLabOptions lo;
  lo.zklab = o.zklab_binary;
  lo.zkd = o.zkd;
  lo.tick_time_ms = o.tick_ms;
  lo.direct = o.direct;
  lo.temp_dir_prefix = "resync_bench_lab";
  // zklab writes initLimit=10 and forceSync's default (on).
  if (o.init_limit != 10) lo.settings.push_back("initLimit=" + std::to_string(o.init_limit));
  if (o.no_fsync) lo.settings.push_back("forceSync=no");
  if (o.snap_count > 0) lo.settings.push_back("snapCount=" + std::to_string(o.snap_count));
  lo.settings.insert(lo.settings.end(), o.zkd_settings.begin(), o.zkd_settings.end());
  std::string error;
  auto lab = ZklabLab::start(lo, error);
  if (!lab) {
    FlavourResult r;
    r.error = "the lab did not start: " + error;
    return r;
  }
  return measure(*lab, Flavour::kZkd, o);
}

template <typename Lab>
FlavourResult measure(Lab& e, Flavour flavour, const Options& o) {
  FlavourResult r;
  if (o.keep_dir) e.keep_directory();
  const auto leader = e.leader(30s);
  if (!leader) {
    r.error = "no leader";
    return r;
  }
  PopulateOptions po;
  po.pool.addresses = {e.address(*leader)};
  po.pool.sessions = 8;
  po.znodes = o.znodes;
  po.value_bytes = o.value_bytes;
  po.root = "/resync";
  const auto populate_started = Clock::now();
  const ScenarioResult populated = populate(po);
  const double populate_s = std::chrono::duration<double>(Clock::now() - populate_started).count();
  if (!populated.error.empty() || !populated.problems.empty()) {
    r.error = "populate: " + populated.error +
              (populated.problems.empty() ? std::string() : populated.problems.front());
    return r;
  }
  r.populate_per_s = static_cast<double>(o.znodes) / populate_s;
  for (int id : e.ids()) r.rss_mib.push_back(zk::lab::resident_kib(node_pid(e, id)) / 1024);
  std::this_thread::sleep_for(std::chrono::duration<double>(o.settle_s));  // settle: time

  int follower = 0;
  for (int id : e.ids()) {
    if (id != *leader) follower = id;
  }
  zk::client::SyncClient client;
  if (auto s = client.connect(e.address(*leader), 30s, 20s); !s.ok()) {
    r.error = "cannot connect to the leader";
    return r;
  }
  const std::string path = "/resync-load";
  (void)client.create(path, std::string());
  OpenLoop load(client, path, o.rate, o.value_bytes);
  load.start();
  const auto load_started = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(o.baseline_s));  // baseline: time
  const auto killed_at = Clock::now();
  std::string resync_error;
  if (!e.kill(follower)) resync_error = "the follower did not die";
  if (resync_error.empty()) resync_error = e.wipe_data(follower);
  std::this_thread::sleep_for(std::chrono::duration<double>(o.down_s));  // down: time
  const auto restarted_at = Clock::now();
  const double relay_cpu_before = cpu_seconds(relay_pid(e));
  const auto deadline = restarted_at + std::chrono::seconds(o.deadline_s);
  if (resync_error.empty()) {
    resync_error = e.restart(
        follower, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
  }
  std::optional<Clock::time_point> caught_up;
  if (resync_error.empty()) {
    zk::toolkit::poll_until(
        [&] {
          const int64_t theirs = e.znode_count(follower);
          if (theirs > 0 && theirs == e.znode_count(*leader)) caught_up = Clock::now();
          return caught_up.has_value();
        },
        deadline, 100ms);
  }
  if (resync_error.empty() && !caught_up) resync_error = "the follower never caught up";
  if (const double after = cpu_seconds(relay_pid(e)); after >= 0 && relay_cpu_before >= 0)
    r.relay_cpu_s = after - relay_cpu_before;
  std::this_thread::sleep_for(kAfterResync);
  load.stop();
  r.baseline = latencies(load.window(load_started, killed_at));
  if (flavour == Flavour::kZkd) {
    const auto offset =
        Clock::now().time_since_epoch() - std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::system_clock::now().time_since_epoch());
    const auto periods = snapshot_periods(node_log(e, *leader), offset);
    std::vector<Sample> during, outside;
    for (const Sample& s : load.window(load_started, killed_at)) {
      const bool in = std::any_of(periods.begin(), periods.end(), [&](const auto& p) {
        return s.due >= p.first && s.due <= p.second;
      });
      (in ? during : outside).push_back(s);
    }
    for (const auto& p : periods) r.snapshots += p.second > load_started && p.first < killed_at;
    r.while_snapshotting = latencies(during);
    r.otherwise = latencies(outside);
  }
  r.down = latencies(load.window(killed_at, restarted_at));
  r.resync = latencies(load.window(restarted_at, caught_up.value_or(Clock::now())));
  r.resync_s =
      std::chrono::duration<double>(caught_up.value_or(Clock::now()) - restarted_at).count();
  std::vector<int64_t> counts;
  for (int id : e.ids()) {
    counts.push_back(e.znode_count(id));
    r.counts += (r.counts.empty() ? "" : "/") + std::to_string(counts.back());
  }
  r.counts_equal =
      std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) == counts.end();
  r.error = resync_error;
  return r;
}

void print(const std::string& name, const FlavourResult& r) {
  if (!r.error.empty()) std::printf("%s: %s\n", name.c_str(), r.error.c_str());
  std::string rss;
  for (int64_t m : r.rss_mib) rss += (rss.empty() ? "" : "/") + std::to_string(m);
  std::printf(
      "%-6s populate %8.0f znodes/s  rss MiB %s\n"
      "       baseline  p50 %7.1f  p99 %7.1f  max %7.1f ms  requests %lld errors %lld\n"
      "       down      p50 %7.1f  p99 %7.1f  max %7.1f ms  requests %lld errors %lld\n"
      "       resync    p50 %7.1f  p99 %7.1f  max %7.1f ms  requests %lld errors %lld\n"
      "       resync time %.1f s; znode counts %s (%s)\n"
      "       baseline while the leader wrote a snapshot (%zu of them): p99 %.1f ms (%lld "
      "requests); otherwise p99 %.1f ms (%lld)\n",
      name.c_str(), r.populate_per_s, rss.c_str(), r.baseline.p50_ms, r.baseline.p99_ms,
      r.baseline.max_ms, static_cast<long long>(r.baseline.requests),
      static_cast<long long>(r.baseline.errors), r.down.p50_ms, r.down.p99_ms, r.down.max_ms,
      static_cast<long long>(r.down.requests), static_cast<long long>(r.down.errors),
      r.resync.p50_ms, r.resync.p99_ms, r.resync.max_ms, static_cast<long long>(r.resync.requests),
      static_cast<long long>(r.resync.errors), r.resync_s, r.counts.c_str(),
      r.counts_equal ? "equal" : "DIFFERENT", r.snapshots, r.while_snapshotting.p99_ms,
      static_cast<long long>(r.while_snapshotting.requests), r.otherwise.p99_ms,
      static_cast<long long>(r.otherwise.requests));
  if (r.relay_cpu_s >= 0)
    std::printf("       relay daemon CPU during the resync %.2f s\n", r.relay_cpu_s);
  std::fflush(stdout);
}

int main_(int argc, char** argv) {
  CLI::App app{"resync_bench: a wiped follower's resync under load, zkd and Apache"};
  Options o;
  app.add_option("--flavour", o.flavour, "zkd, apache or both")
      ->check(CLI::IsMember({"zkd", "apache", "both"}));
  app.add_option("--zkd", o.zkd, "the zkd binary");
  app.add_option("--znodes", o.znodes, "znodes to populate")->check(CLI::PositiveNumber);
  app.add_option("--value-bytes", o.value_bytes, "bytes per znode and per setData")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--rate", o.rate, "setData requests per second on the leader")
      ->check(CLI::PositiveNumber);
  app.add_option("--baseline", o.baseline_s, "seconds of load before the follower is wiped")
      ->check(CLI::PositiveNumber);
  app.add_option("--down", o.down_s, "seconds the wiped follower stays down")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--settle", o.settle_s, "seconds between the populate and the load")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--tick-ms", o.tick_ms, "tickTime")->check(CLI::PositiveNumber);
  app.add_option("--init-limit", o.init_limit, "initLimit (ticks): must cover the transfer")
      ->check(CLI::PositiveNumber);
  app.add_option("--deadline", o.deadline_s, "seconds for the resync before giving up")
      ->check(CLI::PositiveNumber);
  app.add_option("--java-heap", o.java_heap, "Apache's -Xmx");
  app.add_option("--snap-count", o.snap_count,
                 "snapCount (a big tree: fewer snapshots while it is populated)")
      ->check(CLI::PositiveNumber);
  app.add_option("--set", o.zkd_settings,
                 "KEY=VALUE: a line for zkd's zoo.cfg (repeatable; Apache's is left alone), "
                 "e.g. zkd.snapshotBytesPerSecond=33554432");
  app.add_flag("--keep-dir", o.keep_dir, "keep the ensembles' directories");
  auto* zklab = app.add_flag(
      "--zklab", o.zklab, "zkd only, in a lab of `zklab up`: peers through zklab's relay daemon");
  app.add_flag("--direct", o.direct, "with --zklab: `zklab up --direct` (no relays)")->needs(zklab);
  app.add_option("--zklab-binary", o.zklab_binary, "the zklab binary (with --zklab)");
  app.add_flag("--no-fsync", o.no_fsync,
               "forceSync=no: the nodes share this machine's disk, so a resyncing node's "
               "syncs delay the others'; this shows the resync's cost without that");
  CLI11_PARSE(app, argc, argv);

  std::optional<FlavourResult> zkd, apache;
  if (o.zklab) {
    zkd = bench_lab(o);
    print(o.direct ? "zkd (zklab --direct)" : "zkd (zklab relays)", *zkd);
    return 0;
  }
  if (o.flavour != "apache") {
    zkd = bench_flavour(Flavour::kZkd, o);
    print("zkd", *zkd);
  }
  if (o.flavour != "zkd") {
    apache = bench_flavour(Flavour::kApache, o);
    print("apache", *apache);
  }
  if (zkd && apache && zkd->error.empty() && apache->error.empty()) {
    std::printf(
        "zkd/apache: populate rate %.2f, resync p99 %.2f, resync max %.2f, resync time %.2f\n",
        zkd->populate_per_s / apache->populate_per_s, zkd->resync.p99_ms / apache->resync.p99_ms,
        zkd->resync.max_ms / apache->resync.max_ms, zkd->resync_s / apache->resync_s);
  }
  return 0;
}

}  // namespace
}  // namespace zk::bench

int main(int argc, char** argv) { return zk::bench::main_(argc, argv); }
