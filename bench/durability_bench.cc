// SPDX-License-Identifier: Apache-2.0
// durability_bench: what durability costs zkd, beside what the disk can do.
//
//   (a) raw fsync rate: 4 KiB pwrite + fdatasync in a loop on a file in the
//       data dir's filesystem (preallocated, as a txn log segment is; and
//       appending, which also syncs the file size); and the floor of a
//       3-server ensemble on this one disk: three files synced together,
//       started a network hop apart, the time until two of them are durable;
//   (b) write throughput of a zkd with fsync on and the default config (or of
//       any server given with --hosts) with 1, 8, 64 concurrent writers: one
//       session each, one setData in flight each; txns/s, txns per fsync (from
//       the server's mntr fsync counter when it has one), latency p50/p99;
//   (c) recovery: populate N znodes of 100 bytes (pipelined creates), SIGKILL
//       zkd, start it again on the same data dir and time start-of-process to
//       the first served getData; the server's VmRSS after the restart.
//
// A benchmark, not a test: it prints figures and asserts nothing about them.
// See bench/README.md.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_future.hpp>

#include "CLI/CLI.hpp"
#include "libzk/client/client.h"
#include "libzk/client/sync_client.h"
#include "zklab/process/four_letter_word.h"
#include "zklab/process/proc_stats.h"
#include "zklab/process/zkd_process.h"

#ifndef ZKD_BINARY
#error "ZKD_BINARY must name the default zkd executable"
#endif

namespace zk::bench {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using zk::client::Client;
using zk::client::Error;
using zk::client::Task;
using zk::lab::four_letter_word;
using zk::lab::resident_kib;
using zk::lab::ZkdOptions;
using zk::lab::ZkdProcess;

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// ---------------------------------------------------------------------------
// (a) raw fsync rate

struct FsyncRate {
  double preallocated_per_s = 0;
  double preallocated_p50_us = 0;
  double append_per_s = 0;
  double append_p50_us = 0;
  int quorum_stagger_us = 0;
  double quorum_second_p50_us = 0;  // two of three files durable, from the first start
  std::string error;
};

constexpr size_t kProbeBlock = 4096;
constexpr off_t kProbeSpan = 16 << 20;

double p50_of(std::vector<double>& values) {
  if (values.empty()) return 0;
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

// Creates (or truncates) a probe file; preallocated: filled with kProbeSpan
// written zeros and synced, so overwriting it changes no metadata. Returns
// the descriptor, or -1 with `error` set.
int open_probe(const std::filesystem::path& file, bool preallocated, std::string& error) {
  int fd = ::open(file.c_str(), O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot create " + file.string();
    return -1;
  }
  if (preallocated) {
    std::string zeros(1 << 20, '\0');
    for (off_t off = 0; off < kProbeSpan; off += static_cast<off_t>(zeros.size())) {
      if (::pwrite(fd, zeros.data(), zeros.size(), off) < 0) error = "preallocation failed";
    }
    ::fsync(fd);
  }
  return fd;
}

// 4 KiB writes, each followed by fdatasync, for `duration` (and at most a
// million of them). Preallocated: overwrites a zero-filled 16 MiB file, so
// no sync has to change the file's size. Otherwise appends.
double fsync_loop(const std::filesystem::path& file, std::chrono::milliseconds duration,
                  bool preallocated, double& p50_us, std::string& error) {
  constexpr size_t kBlock = kProbeBlock;
  constexpr off_t kFileSpan = kProbeSpan;
  int fd = open_probe(file, preallocated, error);
  if (fd < 0) return 0;
  std::string block(kBlock, 'x');
  int64_t count = 0;
  off_t off = 0;
  std::vector<double> took_us;
  auto start = Clock::now();
  auto until = start + duration;
  while (Clock::now() < until && count < 1000000 && error.empty()) {
    auto begin = Clock::now();
    if (::pwrite(fd, block.data(), kBlock, off) != static_cast<ssize_t>(kBlock) ||
        ::fdatasync(fd) != 0) {
      error = "write or fdatasync failed on " + file.string();
      break;
    }
    took_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - begin).count());
    ++count;
    off += kBlock;
    if (off >= kFileSpan) {
      off = 0;
      if (!preallocated && ::ftruncate(fd, 0) != 0) error = "ftruncate failed";
    }
  }
  double elapsed = seconds_since(start);
  p50_us = p50_of(took_us);
  ::close(fd);
  std::filesystem::remove(file);
  return elapsed > 0 ? static_cast<double>(count) / elapsed : 0;
}

// The disk's part of one quorum write when three servers share this disk:
// `rounds` times, file i (of three, preallocated) gets one 4 KiB pwrite +
// fdatasync starting i * stagger after the round starts (the leader logs a
// proposal at once, the followers one network hop later). Returns the p50
// of the time from the round's start until the second of the three is done:
// no server on this disk can acknowledge a write sooner.
double quorum_fsync_floor(const std::filesystem::path& dir, std::chrono::microseconds stagger,
                          int rounds, std::string& error) {
  constexpr int kServers = 3;
  std::vector<int> fds;
  for (int i = 0; i < kServers; ++i) {
    int fd = open_probe(dir / ("quorum_probe_" + std::to_string(i)), true, error);
    if (fd < 0) break;
    fds.push_back(fd);
  }
  std::vector<double> second_us;
  if (static_cast<int>(fds.size()) == kServers) {
    std::barrier round(kServers + 1);
    Clock::time_point round_start;                  // written before the first arrival
    std::vector<Clock::time_point> done(kServers);  // each thread its own slot
    std::vector<std::atomic<bool>> failed(kServers);
    std::vector<std::thread> servers;
    for (int i = 0; i < kServers; ++i) {
      servers.emplace_back([&, i] {
        const std::string block(kProbeBlock, 'x');
        for (int r = 0; r < rounds; ++r) {
          round.arrive_and_wait();  // round_start is set
          const auto at = round_start + i * stagger;
          while (Clock::now() < at) {
          }
          const auto off = static_cast<off_t>((r * kProbeBlock) % kProbeSpan);
          if (::pwrite(fds[i], block.data(), kProbeBlock, off) != ssize_t(kProbeBlock) ||
              ::fdatasync(fds[i]) != 0) {
            failed[i] = true;
          }
          done[i] = Clock::now();
          round.arrive_and_wait();  // done[] is read
        }
      });
    }
    for (int r = 0; r < rounds; ++r) {
      round_start = Clock::now();
      round.arrive_and_wait();
      round.arrive_and_wait();
      std::vector<Clock::time_point> ends = done;
      std::sort(ends.begin(), ends.end());
      second_us.push_back(std::chrono::duration<double, std::micro>(ends[1] - round_start).count());
    }
    for (auto& t : servers) t.join();
    for (auto& f : failed) {
      if (f) error = "write or fdatasync failed on a quorum probe in " + dir.string();
    }
  }
  for (size_t i = 0; i < fds.size(); ++i) {
    ::close(fds[i]);
    std::filesystem::remove(dir / ("quorum_probe_" + std::to_string(i)));
  }
  return p50_of(second_us);
}

FsyncRate measure_fsync(const std::filesystem::path& dir, std::chrono::microseconds stagger) {
  FsyncRate r;
  std::filesystem::create_directories(dir);
  r.preallocated_per_s = fsync_loop(dir / "fsync_probe", 2s, true, r.preallocated_p50_us, r.error);
  r.append_per_s = fsync_loop(dir / "fsync_probe", 1s, false, r.append_p50_us, r.error);
  r.quorum_stagger_us = static_cast<int>(stagger.count());
  r.quorum_second_p50_us = quorum_fsync_floor(dir, stagger, 2000, r.error);
  return r;
}

// ---------------------------------------------------------------------------
// mntr

std::map<std::string, std::string> mntr(const std::string& hosts) {
  std::map<std::string, std::string> values;
  std::string first = hosts.substr(0, hosts.find(','));
  auto colon = first.rfind(':');
  if (colon == std::string::npos) return values;
  std::string host = first.substr(0, colon);
  if (host == "localhost") host = "127.0.0.1";
  auto port = static_cast<uint16_t>(std::stoi(first.substr(colon + 1)));
  std::istringstream text(four_letter_word(host, port, "mntr", 5s).value_or(""));
  std::string line;
  while (std::getline(text, line)) {
    auto tab = line.find('\t');
    if (tab != std::string::npos) values[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return values;
}

// The server's count of log fsyncs: zkd's key if it has one, Apache's
// zk_cnt_fsynctime (the count of its fsync-time summary), or any other
// counter-looking key with "sync" in it. Nothing when there is none.
std::optional<std::pair<std::string, double>> fsync_count(
    const std::map<std::string, std::string>& m) {
  for (const char* key :
       {"zk_fsync_count", "zk_txnlog_fsyncs", "zk_log_syncs", "zk_cnt_fsynctime"}) {
    auto it = m.find(key);
    if (it != m.end()) return std::make_pair(it->first, std::atof(it->second.c_str()));
  }
  for (const auto& [key, value] : m) {
    if (key.find("sync") == std::string::npos) continue;
    if (key.find("count") != std::string::npos || key.find("cnt") != std::string::npos ||
        key.find("syncs") != std::string::npos) {
      return std::make_pair(key, std::atof(value.c_str()));
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// (b) write throughput with N writers

struct LevelResult {
  int writers = 0;
  int64_t txns = 0;
  double seconds = 0;
  double txns_per_s = 0;
  std::optional<double> fsyncs;  // during the measured window
  std::string fsync_key;
  double p50_us = 0;
  double p99_us = 0;
  std::string error;
};

struct Level {
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::vector<uint32_t>> latencies_us;  // per writer, measured window only
  std::vector<int64_t> counts;
  std::vector<std::string> errors;
};

Task<std::string> connect_writers(std::shared_ptr<Level> level, std::string hosts, int n,
                                  std::string root) {
  auto executor = co_await asio::this_coro::executor;
  const std::chrono::milliseconds deadline{30000};
  for (int i = 0; i < n; ++i) {
    zk::client::ClientOptions options;
    options.session_timeout = std::chrono::milliseconds(30000);
    level->clients.push_back(std::make_unique<Client>(executor, options));
    std::string connect_string = hosts;
    auto st = co_await level->clients.back()->connect(connect_string, deadline);
    if (!st.ok()) co_return "connect writer " + std::to_string(i) + ": " + error_text(st.error());
  }
  zk::wire::Buffer empty = std::string();
  for (int i = -1; i < n; ++i) {
    std::string path = i < 0 ? root : root + "/w" + std::to_string(i);
    auto r = co_await level->clients[0]->create(path, empty);
    if (!r.ok() && r.error() != Error::kNodeExists) {
      co_return "create " + path + ": " + error_text(r.error());
    }
  }
  co_return std::string();
}

Task<void> write_loop(std::shared_ptr<Level> level, int i, std::string path,
                      Clock::time_point window_start, Clock::time_point window_end) {
  Client& client = *level->clients[i];
  zk::wire::Buffer data = std::string(100, 'd');
  const int32_t any_version = -1;
  // Bounded by time, and by count as a backstop.
  for (int64_t ops = 0; ops < 100000000; ++ops) {
    auto begin = Clock::now();
    if (begin >= window_end) break;
    auto r = co_await client.set_data(path, data, any_version);
    auto end = Clock::now();
    if (!r.ok()) {
      level->errors[i] = "setData " + path + ": " + error_text(r.error());
      break;
    }
    if (begin >= window_start && end <= window_end) {
      level->counts[i]++;
      level->latencies_us[i].push_back(static_cast<uint32_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count()));
    }
  }
}

Task<void> close_all(std::shared_ptr<Level> level) {
  for (auto& c : level->clients) (void)co_await c->close();
  level->clients.clear();
}

double percentile(std::vector<uint32_t>& v, double q) {
  if (v.empty()) return 0;
  size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

LevelResult run_level(const std::string& hosts, int n, std::chrono::milliseconds warmup,
                      std::chrono::milliseconds measured, const std::string& root) {
  LevelResult result;
  result.writers = n;
  auto level = std::make_shared<Level>();
  level->latencies_us.resize(n);
  level->counts.resize(n);
  level->errors.resize(n);
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::thread io_thread([&io] { io.run(); });

  auto connected = asio::co_spawn(io, connect_writers(level, hosts, n, root), asio::use_future);
  if (connected.wait_for(120s) != std::future_status::ready) {
    result.error = "writers did not connect within 120 s";
  } else {
    result.error = connected.get();
  }
  if (result.error.empty()) {
    const auto window_start = Clock::now() + warmup;
    const auto window_end = window_start + measured;
    std::vector<std::future<void>> done;
    for (int i = 0; i < n; ++i) {
      done.push_back(asio::co_spawn(
          io, write_loop(level, i, root + "/w" + std::to_string(i), window_start, window_end),
          asio::use_future));
    }
    // Sample the server's counters at the window's edges (these waits end at
    // the deadline, or earlier if writer 0 stops on an error).
    done[0].wait_until(window_start);
    auto before = mntr(hosts);
    done[0].wait_until(window_end);
    auto after = mntr(hosts);
    for (auto& d : done) {
      if (d.wait_until(window_end + 60s) != std::future_status::ready) {
        result.error = "a writer did not finish within 60 s of the window's end";
      }
    }
    if (result.error.empty()) {
      for (auto& d : done) d.get();
      for (const auto& e : level->errors) {
        if (!e.empty()) result.error = e;
      }
    }
    auto b = fsync_count(before);
    auto a = fsync_count(after);
    if (a && b) {
      result.fsyncs = a->second - b->second;
      result.fsync_key = a->first;
    }
    std::vector<uint32_t> all;
    for (int i = 0; i < n; ++i) {
      result.txns += level->counts[i];
      all.insert(all.end(), level->latencies_us[i].begin(), level->latencies_us[i].end());
    }
    result.seconds = std::chrono::duration<double>(measured).count();
    result.txns_per_s = static_cast<double>(result.txns) / result.seconds;
    result.p50_us = percentile(all, 0.50);
    result.p99_us = percentile(all, 0.99);
  }
  auto closed = asio::co_spawn(io, close_all(level), asio::use_future);
  closed.wait_for(30s);
  work.reset();
  io.stop();
  io_thread.join();
  return result;
}

// ---------------------------------------------------------------------------
// (c) populate, SIGKILL, restart

struct RecoveryResult {
  int64_t znodes = 0;
  double populate_s = 0;
  double creates_per_s = 0;
  int64_t rss_before_kib = -1;
  std::string znode_count_before;
  uintmax_t disk_bytes = 0;
  double first_read_s = 0;  // process start to the first served getData
  int64_t rss_after_kib = -1;
  std::string znode_count_after;
  bool last_node_intact = false;
  std::string error;
};

std::string pop_path(int64_t i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/pop/b%05lld/n%04lld", static_cast<long long>(i / 1000),
                static_cast<long long>(i % 1000));
  return buf;
}

std::string bucket_path(int64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "/pop/b%05lld", static_cast<long long>(b));
  return buf;
}

std::string pop_data(int64_t i) {
  std::string s = "v" + std::to_string(i) + ":";
  s.resize(100, 'p');
  return s;
}

struct Populate {
  std::vector<std::unique_ptr<Client>> clients;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::string error;  // first error (written on the io thread only)
};

// Creates items [0, count), taken from a shared counter: the bucket parents
// (`buckets`) or the znodes.
Task<void> create_loop(std::shared_ptr<Populate> pop, Client& client, int64_t count, bool buckets) {
  while (pop->error.empty()) {
    int64_t i = pop->next.fetch_add(1);
    if (i >= count) break;
    std::string path = buckets ? bucket_path(i) : pop_path(i);
    zk::wire::Buffer data = buckets ? std::string() : pop_data(i);
    auto r = co_await client.create(path, data);
    if (!r.ok() && r.error() != Error::kNodeExists) {
      if (pop->error.empty()) pop->error = "create " + path + ": " + error_text(r.error());
      break;
    }
    pop->done.fetch_add(1);
  }
}

Task<std::string> connect_populators(std::shared_ptr<Populate> pop, std::string hosts, int n) {
  auto executor = co_await asio::this_coro::executor;
  const std::chrono::milliseconds deadline{30000};
  for (int i = 0; i < n; ++i) {
    pop->clients.push_back(std::make_unique<Client>(executor, zk::client::ClientOptions{}));
    std::string connect_string = hosts;
    auto st = co_await pop->clients.back()->connect(connect_string, deadline);
    if (!st.ok()) co_return "connect: " + error_text(st.error());
  }
  zk::wire::Buffer empty = std::string();
  std::string root = "/pop";
  auto r = co_await pop->clients[0]->create(root, empty);
  if (!r.ok() && r.error() != Error::kNodeExists) co_return "create /pop: " + error_text(r.error());
  co_return std::string();
}

Task<void> close_populators(std::shared_ptr<Populate> pop) {
  for (auto& c : pop->clients) (void)co_await c->close();
  pop->clients.clear();
}

// Runs one pipelined phase (buckets, then znodes); empty on success.
std::string pipelined_creates(asio::io_context& io, std::shared_ptr<Populate> pop, int64_t count,
                              bool buckets, int in_flight, Clock::time_point give_up) {
  pop->next = 0;
  pop->done = 0;
  std::vector<std::future<void>> loops;
  for (int k = 0; k < in_flight; ++k) {
    Client& c = *pop->clients[static_cast<size_t>(k) % pop->clients.size()];
    loops.push_back(asio::co_spawn(io, create_loop(pop, c, count, buckets), asio::use_future));
  }
  auto last_print = Clock::now();
  for (auto& l : loops) {
    while (l.wait_until(std::min(give_up, Clock::now() + 10s)) != std::future_status::ready) {
      if (Clock::now() >= give_up) return "populating did not finish in time";
      if (!buckets && Clock::now() - last_print >= 10s) {
        last_print = Clock::now();
        std::cerr << "  populated " << pop->done.load() << " / " << count << " znodes\n";
      }
    }
    l.get();
  }
  return pop->error;
}

RecoveryResult run_recovery(ZkdProcess& zkd, int64_t znodes) {
  RecoveryResult result;
  result.znodes = znodes;
  {
    auto pop = std::make_shared<Populate>();
    asio::io_context io;
    auto work = asio::make_work_guard(io);
    std::thread io_thread([&io] { io.run(); });
    constexpr int kClients = 4;
    constexpr int kInFlight = 1024;
    auto connected =
        asio::co_spawn(io, connect_populators(pop, zkd.address(), kClients), asio::use_future);
    if (connected.wait_for(60s) != std::future_status::ready) {
      result.error = "populating clients did not connect";
    } else {
      result.error = connected.get();
    }
    const auto give_up = Clock::now() + 1800s;
    const auto start = Clock::now();
    if (result.error.empty()) {
      result.error = pipelined_creates(io, pop, (znodes + 999) / 1000, true, kInFlight, give_up);
    }
    if (result.error.empty()) {
      result.error = pipelined_creates(io, pop, znodes, false, kInFlight, give_up);
    }
    result.populate_s = seconds_since(start);
    result.creates_per_s = static_cast<double>(znodes) / result.populate_s;
    auto closed = asio::co_spawn(io, close_populators(pop), asio::use_future);
    closed.wait_for(60s);
    work.reset();
    io.stop();
    io_thread.join();
  }
  if (!result.error.empty()) return result;

  result.rss_before_kib = resident_kib(zkd.pid());
  result.znode_count_before = mntr(zkd.address())["zk_znode_count"];
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(zkd.data_dir(), ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) result.disk_bytes += it->file_size(ec);
  }

  zkd.kill();
  const auto spawned = Clock::now();
  if (auto why = zkd.respawn(); !why.empty()) {
    result.error = why;
    return result;
  }
  // Poll getData of the last znode until it is served (deadline 600 s).
  const std::string last = pop_path(znodes - 1);
  const auto give_up = spawned + 600s;
  while (Clock::now() < give_up) {
    zk::client::ClientOptions options;
    options.reconnect_backoff = 5ms;
    zk::client::SyncClient client(options);
    if (!client.connect(zkd.address(), 30s, 1s).ok()) continue;
    auto r = client.get_data(last);
    if (r.ok() || r.error() == Error::kNoNode) {
      result.first_read_s = seconds_since(spawned);
      result.last_node_intact = r.ok() && r->data == pop_data(znodes - 1);
      (void)client.close();
      break;
    }
  }
  if (result.first_read_s == 0) {
    result.error = "no getData served within 600 s of the restart; log tail:\n" + zkd.log_tail();
    return result;
  }
  result.rss_after_kib = resident_kib(zkd.pid());
  result.znode_count_after = mntr(zkd.address())["zk_znode_count"];
  return result;
}

// ---------------------------------------------------------------------------
// Output

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

void print_table(const FsyncRate& f, const std::vector<LevelResult>& levels,
                 const std::optional<RecoveryResult>& rec, const std::string& target) {
  std::cout << "\n(a) raw fsync rate (4 KiB pwrite + fdatasync)\n"
            << "    preallocated file: " << fixed(f.preallocated_per_s, 0) << " fsyncs/s (p50 "
            << fixed(f.preallocated_p50_us, 0) << " us)\n"
            << "    appending file:    " << fixed(f.append_per_s, 0) << " fsyncs/s (p50 "
            << fixed(f.append_p50_us, 0) << " us)\n"
            << "    three files at once, started " << f.quorum_stagger_us
            << " us apart (3 servers on this disk):\n"
            << "                       two of them durable after "
            << fixed(f.quorum_second_p50_us, 0) << " us (p50)\n";
  if (!f.error.empty()) std::cout << "    error: " << f.error << "\n";
  std::cout << "\n(b) write throughput, one setData in flight per writer (" << target << ")\n";
  std::printf("    %8s %12s %10s %12s %10s %10s\n", "writers", "txns/s", "fsyncs", "txns/fsync",
              "p50 us", "p99 us");
  std::string key;
  for (const auto& l : levels) {
    if (!l.error.empty()) {
      std::printf("    %8d  error: %s\n", l.writers, l.error.c_str());
      continue;
    }
    std::string fs = l.fsyncs ? fixed(*l.fsyncs, 0) : "n/a";
    std::string per =
        l.fsyncs && *l.fsyncs > 0 ? fixed(static_cast<double>(l.txns) / *l.fsyncs, 2) : "n/a";
    if (!l.fsync_key.empty()) key = l.fsync_key;
    std::printf("    %8d %12.0f %10s %12s %10.0f %10.0f\n", l.writers, l.txns_per_s, fs.c_str(),
                per.c_str(), l.p50_us, l.p99_us);
  }
  std::cout << "    fsync count from mntr key: "
            << (key.empty() ? "none found (the server's mntr has no fsync counter)" : key) << "\n";
  if (!rec) return;
  std::cout << "\n(c) recovery after SIGKILL with " << rec->znodes << " znodes of 100 bytes\n";
  if (!rec->error.empty()) {
    std::cout << "    error: " << rec->error << "\n";
    return;
  }
  std::cout << "    populate:            " << fixed(rec->populate_s, 1) << " s ("
            << fixed(rec->creates_per_s, 0) << " creates/s, 1024 in flight)\n"
            << "    before kill:         znode_count " << rec->znode_count_before << ", VmRSS "
            << rec->rss_before_kib / 1024 << " MiB, data dir " << rec->disk_bytes / (1 << 20)
            << " MiB\n"
            << "    restart:             first served getData " << fixed(rec->first_read_s, 3)
            << " s after process start\n"
            << "    after restart:       znode_count " << rec->znode_count_after << ", VmRSS "
            << rec->rss_after_kib / 1024 << " MiB, last znode "
            << (rec->last_node_intact ? "intact" : "MISSING OR WRONG (data lost)") << "\n";
}

void print_json(const FsyncRate& f, const std::vector<LevelResult>& levels,
                const std::optional<RecoveryResult>& rec) {
  std::ostringstream j;
  j << "{\"fsync_per_s\":{\"preallocated\":" << fixed(f.preallocated_per_s, 1)
    << ",\"append\":" << fixed(f.append_per_s, 1)
    << "},\"fsync_p50_us\":{\"preallocated\":" << fixed(f.preallocated_p50_us, 0)
    << ",\"append\":" << fixed(f.append_p50_us, 0)
    << "},\"quorum_fsync\":{\"stagger_us\":" << f.quorum_stagger_us
    << ",\"second_p50_us\":" << fixed(f.quorum_second_p50_us, 0) << "},\"throughput\":[";
  for (size_t i = 0; i < levels.size(); ++i) {
    const auto& l = levels[i];
    j << (i ? "," : "") << "{\"writers\":" << l.writers << ",\"txns\":" << l.txns
      << ",\"txns_per_s\":" << fixed(l.txns_per_s, 1)
      << ",\"fsyncs\":" << (l.fsyncs ? fixed(*l.fsyncs, 0) : "null")
      << ",\"p50_us\":" << fixed(l.p50_us, 0) << ",\"p99_us\":" << fixed(l.p99_us, 0)
      << ",\"ok\":" << (l.error.empty() ? "true" : "false") << "}";
  }
  j << "]";
  if (rec && rec->error.empty()) {
    j << ",\"recovery\":{\"znodes\":" << rec->znodes
      << ",\"populate_s\":" << fixed(rec->populate_s, 3)
      << ",\"first_read_s\":" << fixed(rec->first_read_s, 3)
      << ",\"rss_before_kib\":" << rec->rss_before_kib
      << ",\"rss_after_kib\":" << rec->rss_after_kib << ",\"disk_bytes\":" << rec->disk_bytes
      << ",\"last_node_intact\":" << (rec->last_node_intact ? "true" : "false") << "}";
  }
  j << "}\n";
  std::cout << j.str();
}

std::filesystem::path make_work_dir(const std::string& base) {
  std::filesystem::path parent =
      base.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(base);
  std::filesystem::create_directories(parent);
  std::string tmpl = (parent / "durability_bench_XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create " + tmpl);
  return tmpl;
}

int run(int argc, char** argv) {
  CLI::App app{"durability_bench: fsync rate, write throughput with fsync, recovery time",
               "durability_bench"};
  std::vector<int> writers{1, 8, 64};
  double seconds = 5;
  double warmup = 1;
  int64_t znodes = 1000000;
  std::string zkd_path = ZKD_BINARY;
  std::string hosts;
  std::string base_dir;
  bool keep_dir = false;
  bool json = false;
  int stagger_us = 50;
  app.add_option("--writers", writers, "concurrent writers per run, e.g. 1,8,64")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--seconds", seconds, "measured seconds per writer count")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "seconds of warm-up before each measurement")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--znodes", znodes, "znodes to populate before the kill (0 skips recovery)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--zkd", zkd_path, "zkd binary to start")->check(CLI::ExistingFile);
  app.add_option("--hosts", hosts,
                 "measure throughput on this running server instead (skips recovery)");
  app.add_option("--dir", base_dir, "where to make the data dir (default: the temp dir)");
  app.add_flag("--keep-dir", keep_dir, "keep the data dir afterwards");
  app.add_flag("--json", json, "print the figures as one JSON object too");
  app.add_option("--stagger-us", stagger_us,
                 "(a) three files at once: microseconds between their starts (a network hop)")
      ->check(CLI::Range(0, 100000));
  CLI11_PARSE(app, argc, argv);

  auto dir = make_work_dir(base_dir);
  std::cerr << "work dir: " << dir << "\n";
  auto fsync = measure_fsync(dir / "data", std::chrono::microseconds(stagger_us));
  std::unique_ptr<ZkdProcess> zkd;
  std::string target = hosts;
  if (hosts.empty()) {
    ZkdOptions options;
    options.binary = zkd_path;
    options.dir = dir;  // zoo.cfg, data/ and zkd.log in the work dir
    options.max_client_cnxns = 0;
    options.start_deadline = 30s;
    auto started = ZkdProcess::start(options);
    if (!started.process) {
      std::cerr << "zkd: " << started.error << "\n";
      return 1;
    }
    zkd = std::move(started.process);
    target = "zkd " + zkd->address() + ", default config";
  }
  const std::string connect = zkd ? zkd->address() : hosts;
  std::vector<LevelResult> levels;
  for (int n : writers) {
    std::cerr << "measuring " << n << " writers...\n";
    levels.push_back(run_level(
        connect, n, std::chrono::milliseconds(static_cast<int64_t>(warmup * 1000)),
        std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)), "/durability_bench"));
  }
  std::optional<RecoveryResult> rec;
  if (zkd && znodes > 0) {
    std::cerr << "populating " << znodes << " znodes...\n";
    rec = run_recovery(*zkd, znodes);
  }
  print_table(fsync, levels, rec, target);
  if (json) print_json(fsync, levels, rec);
  zkd.reset();
  if (keep_dir) {
    std::cerr << "kept " << dir << "\n";
  } else {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return 0;
}

}  // namespace
}  // namespace zk::bench

int main(int argc, char** argv) {
  try {
    return zk::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "durability_bench: " << e.what() << "\n";
    return 1;
  }
}
