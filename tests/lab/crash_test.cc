// SPDX-License-Identifier: Apache-2.0
// Process crash test: concurrent writers against a real zkd, SIGKILL at a
// random moment, restart on the same data dir and port, then check with a
// fresh client that every acknowledged write survived.
//
// What is checked after every restart (the ZooKeeper guarantee "once a write
// is acknowledged it is durable"):
//   * every acknowledged sequential create exists (unless its delete was
//     acknowledged) with the data it was created with; acknowledged deletes
//     stay deleted;
//   * each writer's key holds exactly the last acknowledged (data, version), or,
//     when a write on it was in flight at the kill, the state that write would
//     have produced ("indeterminate": the reply never arrived, so either is
//     allowed);
//   * no sequential name is handed out twice, across restarts: the first
//     sequential create after a restart gets a suffix above every one seen;
//   * no node appears that no write could have made (unknown children of /seq
//     are at most the sequential creates whose replies were lost).
// What the checker reads becomes the new baseline: a read only sees committed
// state, so it must survive later crashes too.
//
// Environment: ZK_CRASH_SEED (replay a run; the seed is printed),
// ZK_CRASH_ROUNDS (default 30), ZK_CRASH_SECONDS (time budget, default 60),
// ZK_CRASH_KEEP=1 keeps the data directory (it is always kept on failure),
// ZK_CRASH_ZKD runs another zkd binary than the one this tree built.
#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "libzk/client/sync_client.h"
#include "tests/lab/lab_test_util.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using zk::client::Error;
using zk::client::SessionState;
using zk::client::SyncClient;
using zk::wire::CreateMode;

constexpr int kWriters = 4;
constexpr int kSnapCount = 200;
constexpr auto kSessionTimeout = 30s;   // outlives a restart, so sessions may resume
constexpr auto kConnectDeadline = 15s;  // for a restarted zkd to take a session
constexpr auto kResumeWait = 5s;        // then a client still reconnecting is replaced
constexpr auto kRoundGuard = 4s;        // a round's kill happens at the latest after this
constexpr int kMaxOpsPerWriterRound = 200000;
constexpr size_t kMaxReportedProblems = 25;

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::atoi(v);
}

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

// ---------------------------------------------------------------------------
// A zkd on a temporary data dir: killed and started again on the same data
// dir and port every round.
ZkdOptions crash_zkd_options() {
  ZkdOptions options = zkd_options();
  const char* override_binary = std::getenv("ZK_CRASH_ZKD");
  if (override_binary != nullptr && *override_binary != '\0') options.binary = override_binary;
  options.temp_dir_prefix = "zkd_crash";
  options.max_client_cnxns = 0;
  options.extra_lines = {"snapCount=" + std::to_string(kSnapCount)};
  options.start_deadline = 20s;
  return options;
}

// Snapshot and log files under the data dir at one moment.
struct DiskFiles {
  int snapshots = 0;          // final names: snapshot.<16 hex>
  int partial_snapshots = 0;  // anything else with "snap" in its name (being written)
  int log_segments = 0;
};

DiskFiles disk_files(const std::filesystem::path& dir) {
  static const std::regex final_snapshot("snapshot\\.[0-9a-f]+");
  DiskFiles f;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.find("snap") != std::string::npos) {
      (std::regex_match(name, final_snapshot) ? f.snapshots : f.partial_snapshots)++;
    } else if (name.rfind("log.", 0) == 0) {
      f.log_segments++;
    }
  }
  return f;
}

// Watches every directory under a data dir for a file with "snap" in its name
// being created (the start of a snapshot).
class SnapshotStartWatch {
 public:
  explicit SnapshotStartWatch(const std::filesystem::path& dir)
      : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    if (fd_ < 0) return;
    ::inotify_add_watch(fd_, dir.c_str(), IN_CREATE | IN_MOVED_TO);
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory()) ::inotify_add_watch(fd_, it->path().c_str(), IN_CREATE | IN_MOVED_TO);
    }
  }
  ~SnapshotStartWatch() {
    if (fd_ >= 0) ::close(fd_);
  }
  // Waits until a snapshot file is created or `until`; true on the event.
  bool wait(Clock::time_point until) {
    if (fd_ < 0) return false;
    alignas(inotify_event) char buf[4096];
    while (true) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      ssize_t n = ::read(fd_, buf, sizeof buf);
      for (ssize_t off = 0; off < n;) {
        auto* e = reinterpret_cast<inotify_event*>(buf + off);
        if (e->len > 0 && std::string(e->name).find("snap") != std::string::npos) return true;
        off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
    }
  }

 private:
  int fd_;
};

// ---------------------------------------------------------------------------
// The model: what was acknowledged, and what was in flight at the kill.

struct KeyState {
  bool exists = false;
  std::string data;
  int32_t version = 0;
  bool operator==(const KeyState&) const = default;
};

std::string describe(const KeyState& k) {
  if (!k.exists) return "absent";
  return "data='" + k.data + "' version=" + std::to_string(k.version);
}

enum class OpKind { kNone, kSeqCreate, kSeqDelete, kKeyCreate, kKeySet, kKeyDelete };

// A write whose reply never arrived (the kill came first).
struct InFlight {
  OpKind kind = OpKind::kNone;
  std::string path;  // for kSeqDelete: the node
  std::string data;
};

struct SeqNode {
  std::string data;
  int owner = -1;  // writer index; -1 for the checker's probes
  int round = 0;   // acknowledged (or first observed) in this round
  bool deleted = false;
};

int64_t seq_suffix(const std::string& name) {
  if (name.size() < 10) return -1;
  return std::stoll(name.substr(name.size() - 10));
}

struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  int acks = 0;     // acknowledged writes this round, all writers
  int ready = 0;    // writers connected (or given up), waiting for `go`
  bool go = false;  // set once every writer is ready, so the kill point counts from the start
  std::atomic<bool> kill_issued{false};
};

struct Writer {
  int index = 0;
  std::mt19937 rng;
  std::unique_ptr<SyncClient> client;
  std::string key;  // /keys/w<index>
  KeyState key_state;
  std::deque<std::string> own_present;  // own sequential nodes, oldest first
  int64_t counter = 0;                  // makes every written value distinct
  // Per round:
  InFlight in_flight;
  std::vector<std::pair<std::string, std::string>> acked_creates;  // (name, data)
  std::vector<std::string> acked_deletes;
  std::vector<std::string> problems;
  bool resumed = false;
  int ops = 0;
};

bool is_crash_error(Error e) { return e == Error::kConnectionLoss || e == Error::kSessionExpired; }

// Connects (resuming the session when the client survived the restart, else a
// new session). Empty on success.
std::string ensure_session(Writer& w, const std::string& hosts) {
  w.resumed = false;
  if (w.client) {
    auto until = Clock::now() + kResumeWait;
    while (Clock::now() < until) {
      SessionState s = w.client->state();
      if (s == SessionState::kConnected) {
        w.resumed = true;
        return {};
      }
      if (s != SessionState::kDisconnected) break;  // terminal: expired or closed
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      (void)w.client->next_session_event(std::max(left, std::chrono::milliseconds(1)));
    }
  }
  zk::client::ClientOptions options;
  options.reconnect_backoff = 50ms;
  w.client = std::make_unique<SyncClient>(options);
  auto st = w.client->connect(hosts, kSessionTimeout, kConnectDeadline);
  if (!st.ok()) return "writer " + std::to_string(w.index) + ": connect: " + error_text(st.error());
  return {};
}

// One writer's round: writes until the kill (or the op bound).
void run_writer(Writer& w, Shared& shared, int round) {
  auto acked = [&shared] {
    std::lock_guard lock(shared.mu);
    ++shared.acks;
    shared.cv.notify_all();
  };
  // An error: in flight at the kill, or a real problem.
  auto failed = [&w, &shared](Error e, InFlight op, const std::string& what) {
    if (is_crash_error(e) && shared.kill_issued.load()) {
      w.in_flight = std::move(op);
    } else {
      w.problems.push_back("writer " + std::to_string(w.index) + ": " + what + " failed with " +
                           error_text(e) + " before the kill");
    }
  };
  std::uniform_int_distribution<int> pick(0, 99);
  while (!shared.kill_issued.load() && w.ops < kMaxOpsPerWriterRound) {
    ++w.ops;
    std::string data = "w" + std::to_string(w.index) + ":r" + std::to_string(round) + ":n" +
                       std::to_string(++w.counter);
    int p = pick(w.rng);
    if (!w.key_state.exists) {
      auto r = w.client->create(w.key, data);
      if (!r.ok()) return failed(r.error(), {OpKind::kKeyCreate, w.key, data}, "create " + w.key);
      w.key_state = {true, data, 0};
    } else if (p < 40) {
      auto r = w.client->create("/seq/w" + std::to_string(w.index) + "-", data,
                                CreateMode::kPersistentSequential);
      if (!r.ok()) return failed(r.error(), {OpKind::kSeqCreate, "", data}, "sequential create");
      w.acked_creates.emplace_back(*r, data);
      w.own_present.push_back(*r);
    } else if (p < 55 && !w.own_present.empty()) {
      std::string victim = w.own_present.front();
      auto r = w.client->remove(victim);
      if (!r.ok()) return failed(r.error(), {OpKind::kSeqDelete, victim, ""}, "delete " + victim);
      w.own_present.pop_front();
      w.acked_deletes.push_back(victim);
    } else if (p < 60) {
      auto r = w.client->remove(w.key, w.key_state.version);
      if (!r.ok()) return failed(r.error(), {OpKind::kKeyDelete, w.key, ""}, "delete " + w.key);
      w.key_state = {};
    } else {
      auto r = w.client->set_data(w.key, data, w.key_state.version);
      if (!r.ok()) return failed(r.error(), {OpKind::kKeySet, w.key, data}, "setData " + w.key);
      if (r->version != w.key_state.version + 1) {
        w.problems.push_back("setData " + w.key + " acknowledged version " +
                             std::to_string(r->version) + ", expected " +
                             std::to_string(w.key_state.version + 1));
        return;
      }
      w.key_state = {true, data, r->version};
    }
    acked();
  }
}

// ---------------------------------------------------------------------------

class CrashTest : public ::testing::Test {
 protected:
  void problem(const std::string& text) {
    problems_.push_back(text);
    if (problems_.size() <= kMaxReportedProblems) ADD_FAILURE() << text;
  }

  // Checks the restarted server against the model and adopts what it reads.
  void verify(int round, const std::string& hosts, std::vector<Writer>& writers,
              int64_t& max_suffix) {
    SyncClient checker;
    auto st = checker.connect(hosts, kSessionTimeout, kConnectDeadline);
    if (!st.ok()) return problem("checker cannot connect: " + error_text(st.error()));

    // Sequential nodes: existence by listing /seq.
    auto children = checker.get_children("/seq");
    if (!children.ok()) {
      int acked_children = 0;
      std::string example;
      for (const auto& [name, node] : seq_) {
        if (node.deleted) continue;
        if (example.empty()) example = name;
        ++acked_children;
      }
      return problem("round " + std::to_string(round) + ": LOST ACKNOWLEDGED WRITES: /seq " +
                     "(created and acknowledged before round 1) reads " +
                     error_text(children.error()) + " after the restart, and with it " +
                     std::to_string(acked_children) + " acknowledged sequential nodes (e.g. " +
                     example + ")");
    }
    std::set<std::string> listed;
    for (const auto& c : *children) listed.insert("/seq/" + c);

    std::map<std::string, const InFlight*> in_flight_deletes;
    int in_flight_creates = 0;
    for (const auto& w : writers) {
      if (w.in_flight.kind == OpKind::kSeqDelete)
        in_flight_deletes[w.in_flight.path] = &w.in_flight;
      if (w.in_flight.kind == OpKind::kSeqCreate) ++in_flight_creates;
    }
    int lost = 0;
    for (auto& [name, node] : seq_) {
      bool present = listed.count(name) != 0;
      if (node.deleted && present) {
        problem("round " + std::to_string(round) + ": acknowledged delete of " + name +
                " was undone by the restart");
      } else if (!node.deleted && !present) {
        if (in_flight_deletes.count(name) != 0) {
          node.deleted = true;  // the in-flight delete took effect
        } else if (++lost <= 10) {
          problem("round " + std::to_string(round) + ": LOST ACKNOWLEDGED WRITE: sequential node " +
                  name + " (acknowledged in round " + std::to_string(node.round) +
                  ") is missing after restart");
        }
      }
    }
    if (lost > 10) problem("... and " + std::to_string(lost - 10) + " more lost sequential nodes");

    // Unknown children: only the creates whose replies were lost may make them.
    std::vector<std::string> unknown;
    for (const auto& name : listed) {
      if (seq_.count(name) == 0) unknown.push_back(name);
    }
    if (static_cast<int>(unknown.size()) > in_flight_creates) {
      problem("round " + std::to_string(round) + ": " + std::to_string(unknown.size()) +
              " unknown nodes under /seq (first " + unknown.front() + ") but only " +
              std::to_string(in_flight_creates) + " sequential creates were in flight");
    }
    for (const auto& name : unknown) {
      auto d = checker.get_data(name);
      std::string data = d.ok() && d->data ? *d->data : "";
      int owner = -1;
      if (name.rfind("/seq/w", 0) == 0) owner = std::atoi(name.c_str() + 6);
      seq_[name] = SeqNode{data, owner, round, false};
      if (owner >= 0 && owner < kWriters) writers[owner].own_present.push_back(name);
      max_suffix = std::max(max_suffix, seq_suffix(name));
    }
    // Resolved in-flight deletes leave the owner's list.
    for (auto& w : writers) {
      if (w.in_flight.kind == OpKind::kSeqDelete && seq_[w.in_flight.path].deleted) {
        auto it = std::find(w.own_present.begin(), w.own_present.end(), w.in_flight.path);
        if (it != w.own_present.end()) w.own_present.erase(it);
      }
    }

    // Data of the nodes acknowledged this round.
    int mismatched = 0;
    for (const auto& [name, node] : seq_) {
      if (node.deleted || node.round != round || listed.count(name) == 0) continue;
      auto d = checker.get_data(name);
      std::string got = d.ok() && d->data ? *d->data : "<" + error_text(d.error()) + ">";
      if (got != node.data && ++mismatched <= 5) {
        problem("round " + std::to_string(round) + ": " + name + " holds '" + got +
                "', acknowledged '" + node.data + "'");
      }
    }

    // Each writer's key: the acknowledged state, or what the in-flight write makes of it.
    for (auto& w : writers) {
      KeyState seen;
      auto d = checker.get_data(w.key);
      if (d.ok()) {
        seen = {true, d->data.value_or(""), d->stat.version};
      } else if (d.error() != Error::kNoNode) {
        problem("getData " + w.key + ": " + error_text(d.error()));
        continue;
      }
      std::optional<KeyState> after;
      const InFlight& f = w.in_flight;
      if (f.kind == OpKind::kKeySet) after = KeyState{true, f.data, w.key_state.version + 1};
      if (f.kind == OpKind::kKeyCreate) after = KeyState{true, f.data, 0};
      if (f.kind == OpKind::kKeyDelete) after = KeyState{};
      if (seen == w.key_state || (after && seen == *after)) {
        w.key_state = seen;
      } else {
        problem("round " + std::to_string(round) + ": LOST ACKNOWLEDGED WRITE on " + w.key +
                ": acknowledged " + describe(w.key_state) +
                (after ? " (or, with the write in flight at the kill, " + describe(*after) + ")"
                       : std::string()) +
                ", found " + describe(seen));
        w.key_state = seen;
      }
    }

    // Sequence numbers continue above everything handed out before the crash.
    auto probe = checker.create("/seq/probe-", "probe r" + std::to_string(round),
                                CreateMode::kPersistentSequential);
    if (!probe.ok()) {
      problem("round " + std::to_string(round) +
              ": sequential probe create failed: " + error_text(probe.error()));
    } else {
      if (seq_suffix(*probe) <= max_suffix) {
        problem("round " + std::to_string(round) + ": after restart the next sequential name " +
                *probe + " is not above the largest one handed out before (" +
                std::to_string(max_suffix) + "): sequence numbers reused");
      }
      max_suffix = std::max(max_suffix, seq_suffix(*probe));
      seq_[*probe] = SeqNode{"probe r" + std::to_string(round), -1, round, false};
    }
    (void)checker.close();
  }

  std::map<std::string, SeqNode> seq_;  // every sequential name ever acknowledged or observed
  std::vector<std::string> problems_;
};

TEST_F(CrashTest, AcknowledgedWritesSurviveSigkillAtRandomMoments) {
  const char* seed_env = std::getenv("ZK_CRASH_SEED");
  const uint32_t seed =
      seed_env && *seed_env ? static_cast<uint32_t>(std::stoul(seed_env)) : std::random_device{}();
  const int max_rounds = env_int("ZK_CRASH_ROUNDS", 30);
  const auto budget = std::chrono::seconds(env_int("ZK_CRASH_SECONDS", 60));
  std::cout << "crash test: seed " << seed << " (replay with ZK_CRASH_SEED=" << seed << "), up to "
            << max_rounds << " rounds within " << budget.count() << " s, " << kWriters
            << " writers, snapCount=" << kSnapCount << std::endl;
  std::mt19937 rng(seed);

  auto launched = ZkdProcess::start(crash_zkd_options());
  ASSERT_TRUE(launched.process) << launched.error;
  ZkdProcess& zkd = *launched.process;
  if (std::getenv("ZK_CRASH_KEEP") != nullptr) zkd.keep_directory();
  {
    SyncClient setup;
    auto st = setup.connect(zkd.address(), kSessionTimeout, kConnectDeadline);
    ASSERT_TRUE(st.ok()) << error_text(st.error());
    ASSERT_TRUE(setup.create("/seq", std::string("")).ok());
    ASSERT_TRUE(setup.create("/keys", std::string("")).ok());
    (void)setup.close();
  }
  // /seq and /keys are acknowledged creates too: the checker's listing of
  // /seq covers the first, each writer's key read the second.

  std::vector<Writer> writers(kWriters);
  for (int i = 0; i < kWriters; ++i) {
    writers[i].index = i;
    writers[i].rng.seed(seed + 1 + static_cast<uint32_t>(i));
    writers[i].key = "/keys/w" + std::to_string(i);
  }
  int64_t max_suffix = -1;
  int rounds = 0;
  int snapshot_kills = 0;
  int64_t total_acks = 0;
  const auto started = Clock::now();
  std::uniform_int_distribution<int> ack_target(1, 600);

  while (rounds < max_rounds && Clock::now() - started < budget && problems_.empty()) {
    const int round = ++rounds;
    Shared shared;
    for (auto& w : writers) {
      w.in_flight = {};
      w.acked_creates.clear();
      w.acked_deletes.clear();
      w.problems.clear();
      w.ops = 0;
    }
    // Every fourth round kills when a snapshot file appears; the others after
    // a random number of acknowledged writes.
    const bool on_snapshot = round % 4 == 0;
    const int target = ack_target(rng);
    std::optional<SnapshotStartWatch> snap_watch;
    if (on_snapshot) snap_watch.emplace(zkd.data_dir());

    std::vector<std::string> connect_errors(kWriters);
    std::vector<std::thread> threads;
    for (int i = 0; i < kWriters; ++i) {
      threads.emplace_back([&, i] {
        connect_errors[i] = ensure_session(writers[i], zkd.address());
        {
          std::unique_lock lock(shared.mu);
          ++shared.ready;
          shared.cv.notify_all();
          shared.cv.wait_until(lock, Clock::now() + kConnectDeadline + 2s,
                               [&] { return shared.go; });
        }
        if (connect_errors[i].empty()) run_writer(writers[i], shared, round);
      });
    }
    const char* trigger = "deadline";
    std::chrono::milliseconds ready_ms{0};
    {
      std::unique_lock lock(shared.mu);
      const auto ready_began = Clock::now();
      shared.cv.wait_until(lock, ready_began + kConnectDeadline + 1s,
                           [&] { return shared.ready == kWriters; });
      ready_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - ready_began);
      shared.go = true;
      shared.cv.notify_all();
      auto until = Clock::now() + kRoundGuard;
      if (on_snapshot) {
        lock.unlock();
        if (snap_watch->wait(until)) trigger = "snapshot file created";
        lock.lock();
      } else if (shared.cv.wait_until(lock, until, [&] { return shared.acks >= target; })) {
        trigger = "ack count";
      }
    }
    shared.kill_issued.store(true);
    zkd.kill();
    const int acks = [&] {
      std::lock_guard lock(shared.mu);
      return shared.acks;
    }();
    const DiskFiles files = disk_files(zkd.data_dir());
    if (files.partial_snapshots > 0 || std::string(trigger) == "snapshot file created") {
      ++snapshot_kills;
    }
    for (auto& t : threads) t.join();
    total_acks += acks;

    int in_flight = 0;
    for (auto& w : writers) {
      if (!connect_errors[w.index].empty()) problem(connect_errors[w.index]);
      for (const auto& p : w.problems) problem(p);
      if (w.in_flight.kind != OpKind::kNone) ++in_flight;
      for (const auto& [name, data] : w.acked_creates) {
        if (seq_.count(name) != 0) {
          problem("round " + std::to_string(round) + ": sequential name " + name +
                  " handed out twice (first in round " + std::to_string(seq_[name].round) + ")");
        }
        seq_[name] = SeqNode{data, w.index, round, false};
        max_suffix = std::max(max_suffix, seq_suffix(name));
      }
      for (const auto& name : w.acked_deletes) seq_[name].deleted = true;
    }

    const auto restart_began = Clock::now();
    auto why = zkd.restart();
    const auto restart_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - restart_began);
    int resumed = 0;
    for (const auto& w : writers) resumed += w.resumed ? 1 : 0;
    std::cout << "round " << round << ": kill after " << acks << " acks (target " << target
              << ", trigger: " << trigger << "), " << in_flight
              << " writes in flight; on disk: " << files.snapshots << " snapshots, "
              << files.partial_snapshots << " partial snapshot files, " << files.log_segments
              << " log segments; restart "
              << (why.empty() ? "served srvr in " + std::to_string(restart_ms.count()) + " ms"
                              : "FAILED")
              << "; sessions resumed " << resumed << "/" << kWriters << " (writers ready in "
              << ready_ms.count() << " ms)" << std::endl;
    if (!why.empty()) {
      problem("restart after round " + std::to_string(round) + ": " + why);
      break;
    }
    verify(round, zkd.address(), writers, max_suffix);
  }

  int present = 0;
  for (const auto& [name, node] : seq_) present += node.deleted ? 0 : 1;
  std::cout << "crash test: " << rounds << " rounds in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count()
            << " ms, " << total_acks << " acknowledged writes, " << seq_.size()
            << " sequential names (" << present << " present), kills with a snapshot being "
            << "written: " << snapshot_kills << ", seed " << seed << std::endl;
  if (!problems_.empty()) {
    zkd.keep_directory();
    std::cout << "crash test FAILED with " << problems_.size() << " problems (seed " << seed
              << "); data kept in " << zkd.directory() << std::endl;
  }
  for (auto& w : writers) w.client.reset();
}

}  // namespace
}  // namespace zk::lab
