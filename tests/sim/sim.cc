// SPDX-License-Identifier: Apache-2.0
#include "tests/sim/sim.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "tests/sim/replica.h"
#include "tests/zab/observer_rules.h"
#include "zkd/failpoint/points.h"
#include "zkd/log/log.h"
#include "zkd/server/epoch_files.h"
#include "zkd/server/reconfig.h"
#include "zkd/server/write_request.h"
#include "zkd/tree/database.h"
#include "zkd/tree/txn.h"
#include "zkd/zab/zab.h"

namespace zk::sim {

namespace {

using namespace zkd::zab;
using zkd::server::WriteRequest;
using zkd::tree::Database;

// A replica died at an armed failpoint: it crashed there, or its host
// stopped after an injected I/O error (zkd then exits and is restarted).
struct ReplicaDied {
  std::string point;
};

[[noreturn]] void crash_at_failpoint(const zkd::failpoint::Point& point) {
  throw ReplicaDied{std::string(point.name())};
}

// The failpoints a simulated replica meets: the Ready contract's steps and
// snapshot files. (The log thread's and the session key's are not run here;
// digest.compare only fails, and a mismatch is a violation.)
zkd::failpoint::Point* const kSimPoints[] = {
    &zkd::failpoint::kEpochBeforeWrite,       &zkd::failpoint::kEpochAcceptedWritten,
    &zkd::failpoint::kEpochCurrentWritten,    &zkd::failpoint::kSnapLogCleared,
    &zkd::failpoint::kSnapBeforeWrite,        &zkd::failpoint::kSnapInstalled,
    &zkd::failpoint::kTruncBeforeCut,         &zkd::failpoint::kTruncLogCut,
    &zkd::failpoint::kAckNewLeaderBeforeSend, &zkd::failpoint::kAckNewLeaderSent,
    &zkd::failpoint::kSnapshotBeforeRename,   &zkd::failpoint::kSnapshotRenamed,
};
// Steps a point stays armed without being hit before another is drawn.
constexpr int64_t kArmedSteps = 200;

std::string z(Zxid zxid) { return zxid_string(zxid); }

// The whole state machine as clients see it, independent of hash-map order:
// the sorted lines of a full snapshot walk, hashed.
class DigestVisitor : public Database::SnapshotVisitor {
 public:
  void session(zkd::tree::SessionId id, int32_t timeout_ms) override {
    lines.push_back("s" + std::to_string(id) + "/" + std::to_string(timeout_ms));
  }
  void node(const std::string& path, const zk::wire::Buffer& data, const zk::wire::ACLs& acl,
            const zk::wire::Stat& s) override {
    std::string l = "n" + path + "|" + (data ? "d" + *data : "null") + "|" +
                    std::to_string(acl.size()) + "|" + std::to_string(s.czxid) + "," +
                    std::to_string(s.mzxid) + "," + std::to_string(s.ctime) + "," +
                    std::to_string(s.mtime) + "," + std::to_string(s.version) + "," +
                    std::to_string(s.cversion) + "," + std::to_string(s.aversion) + "," +
                    std::to_string(s.ephemeral_owner) + "," + std::to_string(s.num_children) + "," +
                    std::to_string(s.pzxid);
    lines.push_back(std::move(l));
  }
  std::vector<std::string> lines;
};

std::string full_snapshot(const Database& db) {
  auto cursor = db.begin_snapshot();
  std::string out;
  for (;;) {
    std::string chunk = cursor->next_chunk(64);
    if (chunk.empty()) break;
    out += chunk;
  }
  return out;
}

uint64_t digest(const Database& db) {
  DigestVisitor v;
  const zkd::Status visited = Database::visit_snapshot(full_snapshot(db), v);
  if (!visited.ok()) throw Violation("snapshot walk does not decode: " + visited.message());
  std::sort(v.lines.begin(), v.lines.end());
  uint64_t h = fnv(std::to_string(db.last_zxid()));
  for (const auto& l : v.lines) h = fnv(l, h);
  return h;
}

constexpr zkd::tree::SessionId kFirstSession = 0x1000004c2160000;
constexpr int kSessions = 2;
constexpr int64_t kStepsPerTick = 4;

// What the simulator knows of the txns a tree reflects: the applied entries
// after a point up to which they were matched with the committed sequence.
struct Applied {
  Zxid checked = 0;
  std::vector<std::pair<Zxid, uint64_t>> entries;  // zxid, payload hash
};

struct Node {
  std::unique_ptr<SimReplica> replica;  // zkd's code and its disk
  HardState hard;  // the epoch files as last read (check_hard_state): they never go back
  // What the tree reflects after its base (snapshot / rebuild): zxid, payload hash.
  std::vector<std::pair<Zxid, uint64_t>> applied;
  Zxid checked = 0;  // applied entries up to here were matched with the committed sequence
  uint32_t starts = 0;
  int64_t restart_at = -1;
  std::optional<int64_t> fsync_due;  // the step an fsync in flight completes
  std::map<uint64_t, Zxid> syncs;    // request id -> committed max when issued
  bool digest_dirty = true;
  // The epoch it last led in, as seen after a step: a leader that a
  // reconfiguration made an observer still sends that epoch's leader
  // messages from the step in which it learned it (its hand-over).
  Epoch led_epoch = 0;
  // Snapshots received, by zxid: what their sender knew of the txns in them
  // (an installed snapshot may hold txns nobody has checked yet: a new
  // leader's history, committed once its epoch is established).
  std::map<Zxid, Applied> incoming_snaps;

  ServerId id() const { return replica->id(); }
  bool up() const { return replica->up(); }
  const Zab& core() const { return replica->core(); }
  const Status& status() const { return replica->status(); }
  const Database& db() const { return replica->db(); }
  const Disk& disk() const { return replica->disk(); }
};

struct InFlight {
  int64_t due = 0;
  Message m;
  std::string snap;      // a Snap message's attachment
  Applied snap_applied;  // a Snap: the sender's knowledge of what its tree holds
};

struct Link {
  std::deque<InFlight> queue;
  int64_t down_until = 0;
  int64_t last_due = 0;
};

std::string encoded(const zkd::tree::Txn& txn) {
  std::string bytes;
  zk::wire::Writer writer(bytes);
  zkd::tree::write_txn(writer, txn);
  return bytes;
}

class Sim final : public ReplicaObserver {
 public:
  explicit Sim(const Options& o) : opt_(o), rng_(o.seed) {}
  Result run();
  void event(const std::string& s);

  // --- ReplicaObserver: what the replicas report, checked and recorded ---
  void send(SimReplica& r, Message m, std::string attachment) override;
  uint64_t queued_bytes(SimReplica& r, ServerId peer) override;
  void appended(SimReplica& r, Zxid zxid, std::string_view txn) override;
  void truncated(SimReplica& r, Zxid after, bool whole) override;
  void applying(SimReplica& r, const zkd::tree::Txn& txn) override;
  void applied(SimReplica& r, const zkd::tree::Txn& txn) override;
  void replaced(SimReplica& r, bool installed) override;
  void sync_done(SimReplica& r, uint64_t id) override;
  void status_changed(SimReplica& r, const Status& now) override;
  void failed(SimReplica& r, const std::string& why) override;
  int64_t now_ms() override { return now_ * 1000; }

 private:
  [[noreturn]] void fail(const std::string& s) { throw Violation(s); }
  uint64_t rnd(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool chance(int percent_times_10) { return rnd(1000) < static_cast<uint64_t>(percent_times_10); }
  // A broken connection is seen by both ends (TCP): the core has no input
  // for it, so a break lasts until both time out (sync_limit), unless
  // short_breaks asks for silent losses on a link that comes back.
  int64_t min_outage() const {
    return opt_.short_breaks ? 1 : (config_.sync_limit + 1) * kStepsPerTick;
  }

  Node& node(ServerId id) { return nodes_.at(static_cast<size_t>(id - 1)); }
  Node& node(const SimReplica& r) { return node(r.id()); }
  void start(Node& n);
  void reload(Node& n, Zxid at);
  void crash(Node& n);
  // Runs `f`, which calls into replica `n`; a failpoint that kills the
  // replica meanwhile crashes it (restarted later).
  template <typename F>
  void guarded(Node& n, F&& f);
  // Arms a random failpoint of kSimPoints now and then; disarms it once hit
  // or after kArmedSteps.
  void arm_failpoints();
  void complete_fsync(Node& n);
  bool link_usable(ServerId a, ServerId b) const;
  void break_link(ServerId a, ServerId b, int64_t until);
  void deliver_due();
  void client_write();
  void client_sync();
  // A leader asked to hand leadership over (ydld), to a random voter or its
  // own pick.
  void transfer_leadership();
  // A superuser's reconfig on the leader: a member leaves, a member changes
  // its part (participant or observer), or a server that left joins again
  // (as a participant or an observer).
  void reconfigure();
  bool member(ServerId id) const;
  void compact(Node& n);
  void mark_committed(Node& n, Zxid upto);
  void check_step();
  bool is_observer(ServerId id) const {
    return std::find(members_.observers.begin(), members_.observers.end(), id) !=
           members_.observers.end();
  }
  void check_hard_state(Node& n);
  void check_tick();
  bool converged();
  Zxid committed_max() const { return committed_.empty() ? 0 : committed_.rbegin()->first; }

  Options opt_;
  std::mt19937_64 rng_;
  Config config_;
  // The membership in force: the last one a serving leader committed
  // (config_'s until one), and the zxid of its reconfiguration.
  zkd::zab::Membership members_;
  Zxid members_zxid_ = 0;
  std::vector<Node> nodes_;
  std::map<std::pair<ServerId, ServerId>, Link> links_;
  std::vector<int> group_;  // partition group per node (index id-1)
  int64_t now_ = 0;
  bool faults_ = true;
  int64_t partitioned_at_ = 0;
  std::deque<std::string> trace_;
  Stats stats_;
  uint64_t next_request_id_ = 1;
  int32_t next_xid_ = 1;
  // The global committed sequence: zxid -> payload hash, in order.
  std::map<Zxid, uint64_t> committed_;
  // Every entry ever logged anywhere: one zxid names one txn.
  std::map<Zxid, uint64_t> logged_;
  std::map<Zxid, uint64_t> digest_at_;  // state digest after applying the committed prefix
  std::map<Epoch, ServerId> leaders_;   // established leader per epoch
  zkd::failpoint::Point* armed_ = nullptr;
  int64_t armed_at_ = 0;
  bool last_arming_error_ = false;  // armed_ fails an operation rather than crashing
  // Links whose held messages the current input released (send()).
  std::set<std::pair<ServerId, ServerId>> released_;
};

// The simulation whose replicas are logging (zkd's log lines join its trace).
thread_local Sim* g_logging_sim = nullptr;

void log_to_trace(zkd::net::LogLevel level, std::string_view message) {
  if (g_logging_sim == nullptr) return;
  const char* tag = level == zkd::net::LogLevel::kInfo ? "  log: " : "  LOG: ";
  g_logging_sim->event(tag + std::string(message));
}

void Sim::event(const std::string& s) {
  std::string line = "t" + std::to_string(now_) + " " + s;
  if (opt_.verbose) std::fprintf(stderr, "%s\n", line.c_str());
  trace_.push_back(std::move(line));
  if (trace_.size() > 80) trace_.pop_front();
}

// The tree was read back from the disk (a start, or recovery after a
// truncation): the newest snapshot at `base`, then the log after it up to
// `at`. What is known of the txns the snapshot holds stays as it was: a
// snapshot installed from a leader whose history was not yet committed holds
// txns never matched with the committed sequence, and taking them as matched
// would leave a gap in that sequence. Known: a snapshot received (its
// sender's knowledge, also when the replica died before reporting the
// install), or the replica's own applied txns when they reach `base`;
// otherwise the snapshot's txns are taken as matched.
void Sim::reload(Node& n, Zxid at) {
  const Zxid base = n.disk().base;
  std::vector<std::pair<Zxid, uint64_t>> applied;
  Zxid checked = base;
  if (auto snap = n.incoming_snaps.find(base); snap != n.incoming_snaps.end()) {
    checked = std::min(snap->second.checked, base);
    for (const auto& e : snap->second.entries) {
      if (e.first > checked && e.first <= base) applied.push_back(e);
    }
  } else if (n.checked < base) {
    for (const auto& e : n.applied) {
      if (e.first > n.checked && e.first <= base) applied.push_back(e);
    }
    if (!applied.empty() && applied.back().first == base) {
      checked = n.checked;
    } else {
      applied.clear();
    }
  }
  for (const Entry& e : n.disk().log) {
    if (e.zxid > at) break;
    if (e.zxid > base) applied.emplace_back(e.zxid, fnv(e.payload));
  }
  n.applied = std::move(applied);
  n.checked = checked;
}

void Sim::start(Node& n) {
  SimReplica& r = *n.replica;
  r.start(++n.starts);
  reload(n, r.disk().last());
  n.incoming_snaps.clear();  // what was in flight died with the replica
  n.digest_dirty = true;
  n.restart_at = -1;
  event(std::to_string(n.id()) + ": start #" + std::to_string(n.starts) + " base " +
        z(r.disk().base) + " last " + z(r.disk().last()) + " applied " + z(r.db().last_zxid()));
  r.host().start();
}

void Sim::crash(Node& n) {
  n.replica->crash();
  n.fsync_due.reset();
  n.syncs.clear();
  // n.applied and n.incoming_snaps stay: reload() at the next start keeps
  // what is known of the txns in the disk's snapshot.
  for (auto& [k, link] : links_) {
    if (k.first == n.id() || k.second == n.id()) link.queue.clear();
  }
  ++stats_.crashes;
  event(std::to_string(n.id()) + " crash, durable " + z(n.disk().durable));
}

template <typename F>
void Sim::guarded(Node& n, F&& f) {
  try {
    f();
  } catch (const ReplicaDied& died) {
    const bool error = last_arming_error_;
    ++stats_.failpoints[died.point];
    event(std::to_string(n.id()) + " dies at failpoint " + died.point +
          (error ? " (injected I/O error)" : " (crash)"));
    zkd::failpoint::disarm_all();
    armed_ = nullptr;
    crash(n);
    n.restart_at = now_ + 1 + static_cast<int64_t>(rnd(40));
  }
}

void Sim::arm_failpoints() {
  if (armed_ != nullptr && now_ - armed_at_ < kArmedSteps) return;
  if (armed_ != nullptr) {
    zkd::failpoint::disarm_all();
    armed_ = nullptr;
  }
  if (!chance(20)) return;
  zkd::failpoint::Point* point = kSimPoints[rnd(std::size(kSimPoints))];
  last_arming_error_ = point->can_error() && rnd(3) == 0;
  const std::string spec = std::string(point->name()) + "=" +
                           (last_arming_error_ ? "error@" : "crash@") + std::to_string(1 + rnd(3));
  if (const std::string err = zkd::failpoint::arm(spec); !err.empty()) fail("arm: " + err);
  armed_ = point;
  armed_at_ = now_;
  event("arm failpoint " + spec);
}

// Every applied entry up to `upto` is committed: it must continue the global
// committed sequence exactly.
void Sim::mark_committed(Node& n, Zxid upto) {
  for (const auto& [zxid, hash] : n.applied) {
    if (zxid <= n.checked) continue;
    if (zxid > upto) break;
    auto next = committed_.upper_bound(n.checked);
    if (next != committed_.end()) {
      if (next->first != zxid || next->second != hash) {
        fail(std::to_string(n.id()) + " applied " + z(zxid) + " after " + z(n.checked) +
             " but the committed sequence has " + z(next->first) +
             (next->first == zxid ? " with other bytes" : ""));
      }
    } else {
      committed_.emplace(zxid, hash);
      ++stats_.commits;
    }
    n.checked = zxid;
  }
}

void Sim::appended(SimReplica& r, Zxid zxid, std::string_view txn) {
  Node& n = node(r);
  const uint64_t h = fnv(txn);
  auto [it, fresh] = logged_.emplace(zxid, h);
  if (!fresh && it->second != h)
    fail(std::to_string(n.id()) + ": logs " + z(zxid) + " with other bytes");
  // Group commit: one fsync in flight covers what is appended until it ends.
  if (!n.fsync_due) n.fsync_due = now_ + static_cast<int64_t>(rnd(3));
  event(std::to_string(n.id()) + ": append " + z(zxid));
}

void Sim::truncated(SimReplica& r, Zxid after, bool whole) {
  Node& n = node(r);
  const std::string who = std::to_string(n.id()) + ": ";
  if (!whole) {
    if (after < n.disk().base) {
      fail(who + "truncate after " + z(after) + " below its snapshot " + z(n.disk().base));
    }
    if (after < n.checked) {
      fail(who + "truncate after " + z(after) + " drops committed " + z(n.checked));
    }
  }
  if (!r.unsynced()) n.fsync_due.reset();
  event(who + (whole ? "log cleared" : "truncate after " + z(after)));
}

void Sim::complete_fsync(Node& n) {
  n.fsync_due.reset();
  n.replica->sync();
}

void Sim::send(SimReplica& r, Message m, std::string attachment) {
  Node& n = node(r);
  const std::string who = std::to_string(n.id()) + ": ";
  if (m.to == n.id()) fail(who + "message to self");
  if (m.type == MsgType::kAck || m.type == MsgType::kAckNewLeader) {
    if (m.zxid > std::max(n.disk().durable, n.disk().base)) {
      fail(who + describe(m) + " before durable (" + z(n.disk().durable) + ")");
    }
  }
  // A streamed snapshot's last chunk releases the messages that waited
  // behind it (snapshot_stream.h), generated under the membership of their
  // time, which a reconfiguration may have changed since: the observer rules
  // hold at generation, so those are not checked against today's.
  const std::pair<ServerId, ServerId> ends{n.id(), m.to};
  if (m.type == MsgType::kSnapChunk && attachment.empty()) released_.insert(ends);
  if (!released_.contains(ends)) {
    const bool handing_over =
        (r.core().status().role == Role::kLeading && r.core().transferring_to() != 0) ||
        (n.led_epoch != 0 && m.epoch == n.led_epoch);
    if (const std::string broken = zkd::zab::test::broken_observer_rule(
            zkd::zab::test::membership_view(r.core()), n.id(), m, handing_over);
        !broken.empty()) {
      fail(who + broken);
    }
  }
  if (m.type == MsgType::kSnap && n.db().last_zxid() != m.zxid) {
    fail(who + "Snap at " + z(m.zxid) + " but state at " + z(n.db().last_zxid()));
  }
  if (m.type != MsgType::kPing) {
    event(std::to_string(n.id()) + "->" + std::to_string(m.to) + " " + describe(m));
  }
  if (!link_usable(n.id(), m.to)) return;
  Link& link = links_[{n.id(), m.to}];
  const int64_t delay = chance(10) ? kStepsPerTick * 3 : static_cast<int64_t>(rnd(3));
  InFlight f{std::max(now_ + delay, link.last_due), std::move(m), std::move(attachment), {}};
  if (f.m.type == MsgType::kSnap) f.snap_applied = Applied{n.checked, n.applied};
  link.last_due = f.due;
  link.queue.push_back(std::move(f));
}

uint64_t Sim::queued_bytes(SimReplica& r, ServerId peer) {
  uint64_t bytes = 0;
  for (const InFlight& f : links_[{r.id(), peer}].queue) bytes += f.snap.size();
  return bytes;
}

void Sim::applying(SimReplica& r, const zkd::tree::Txn& txn) {
  if (txn.header.zxid <= r.db().last_zxid()) {
    fail(std::to_string(r.id()) + ": apply " + z(txn.header.zxid) + " at applied " +
         z(r.db().last_zxid()));
  }
}

void Sim::applied(SimReplica& r, const zkd::tree::Txn& txn) {
  Node& n = node(r);
  if (txn.header.type == zk::wire::OpCode::kReconfig) {
    const auto& set = std::get<zkd::tree::SetDataTxn>(txn.body);
    if (!zkd::server::parse_membership_text(set.data.value_or(""))) {
      fail("a reconfig txn whose text does not parse: " + set.data.value_or(""));
    }
  }
  n.applied.emplace_back(txn.header.zxid, fnv(encoded(txn)));
  n.digest_dirty = true;
  mark_committed(n, txn.header.zxid);
}

void Sim::replaced(SimReplica& r, bool installed) {
  Node& n = node(r);
  const Zxid at = r.db().last_zxid();
  n.digest_dirty = true;
  if (installed) {
    // The tree is the sender's at `at`: so is what is known of its txns.
    auto it = n.incoming_snaps.find(at);
    if (it == n.incoming_snaps.end())
      fail(std::to_string(n.id()) + ": installed " + z(at) + " never received");
    n.checked = std::min(it->second.checked, at);
    n.applied.clear();
    for (const auto& e : it->second.entries) {
      if (e.first <= at) n.applied.push_back(e);
    }
    n.incoming_snaps.clear();
    n.fsync_due.reset();
    ++stats_.snaps;
    if (r.db().fuzzy_until() > at) ++stats_.fuzzy_snaps;
    event(std::to_string(n.id()) + ": installed snapshot " + z(at));
    return;
  }
  // Rebuilt by recovery from the newest snapshot and the log left by the cut.
  reload(n, at);
  ++stats_.rebuilds;
  event(std::to_string(n.id()) + ": rebuilt at " + z(at));
}

void Sim::sync_done(SimReplica& r, uint64_t id) {
  Node& n = node(r);
  const std::string who = std::to_string(n.id()) + ": ";
  auto it = n.syncs.find(id);
  if (it == n.syncs.end()) fail(who + "unknown sync " + std::to_string(id) + " done");
  if (n.db().last_zxid() < it->second) {
    fail(who + "sync " + std::to_string(id) + " done at " + z(n.db().last_zxid()) + " but " +
         z(it->second) + " was committed before it began");
  }
  n.syncs.erase(it);
  ++stats_.syncs_done;
}

void Sim::status_changed(SimReplica& r, const Status& now) {
  event(std::to_string(r.id()) + ": " + to_string(now.role) +
        " leader=" + std::to_string(now.leader) + " epoch=" + std::to_string(now.epoch) +
        (now.serving ? " serving" : ""));
}

void Sim::failed(SimReplica& r, const std::string& why) {
  if (armed_ != nullptr && why.find(armed_->error_message()) != std::string::npos) {
    throw ReplicaDied{std::string(armed_->name())};
  }
  fail(std::to_string(r.id()) + ": " + why);
}

bool Sim::link_usable(ServerId a, ServerId b) const {
  if (!nodes_.at(static_cast<size_t>(b - 1)).up()) return false;
  if (group_.at(static_cast<size_t>(a - 1)) != group_.at(static_cast<size_t>(b - 1))) return false;
  auto it = links_.find({a, b});
  return it == links_.end() || it->second.down_until <= now_;
}

void Sim::break_link(ServerId a, ServerId b, int64_t until) {
  for (auto k : {std::make_pair(a, b), std::make_pair(b, a)}) {
    Link& link = links_[k];
    link.queue.clear();
    link.down_until = until;
  }
}

void Sim::deliver_due() {
  for (bool any = true; any;) {
    any = false;
    for (auto& [k, link] : links_) {
      while (!link.queue.empty() && link.queue.front().due <= now_) {
        InFlight f = std::move(link.queue.front());
        link.queue.pop_front();
        if (!link_usable(k.first, k.second)) continue;
        Node& to = node(k.second);
        if (f.m.type == MsgType::kInform) ++stats_.informs;
        if (f.m.type == MsgType::kSnap) to.incoming_snaps[f.m.zxid] = std::move(f.snap_applied);
        guarded(to, [&] { to.replica->host().receive(std::move(f.m), std::move(f.snap)); });
        check_step();
        any = true;
      }
    }
  }
}

void Sim::client_write() {
  static const char* kPaths[] = {"/a", "/b", "/a/x", "/a/y", "/b/x", "/a/x/q"};
  WriteRequest w;
  w.session = kFirstSession + static_cast<int64_t>(rnd(kSessions));
  const std::string path = kPaths[rnd(std::size(kPaths))];
  const std::string data = "v" + std::to_string(rnd(100));
  const int32_t version = rnd(2) == 0 ? -1 : static_cast<int32_t>(rnd(3));
  const uint64_t dice = rnd(100);
  if (dice < 8) {
    w.kind = WriteRequest::Kind::kCreateSession;
    w.timeout_ms = 30000;
  } else if (dice < 11) {
    w.kind = WriteRequest::Kind::kCloseSession;
    w.xid = next_xid_++;
  } else {
    w.xid = next_xid_++;
    if (dice < 50) {
      w.op = zk::wire::OpCode::kCreate;
      const int32_t flags = static_cast<int32_t>(rnd(4));  // persistent/ephemeral/sequential
      w.body =
          zk::wire::encode(zk::wire::CreateRequest{path, data, zk::wire::open_acl_unsafe(), flags});
    } else if (dice < 70) {
      w.op = zk::wire::OpCode::kDelete;
      w.body = zk::wire::encode(zk::wire::DeleteRequest{path, version});
    } else {
      w.op = zk::wire::OpCode::kSetData;
      w.body = zk::wire::encode(zk::wire::SetDataRequest{path, data, version});
    }
  }
  Node& n = nodes_[rnd(nodes_.size())];
  if (!n.up() || !n.status().serving) return;
  // A leader prepares and proposes it; followers and observers forward it.
  guarded(n, [&] { n.replica->host().write(w); });
}

void Sim::client_sync() {
  Node& n = nodes_[rnd(nodes_.size())];
  if (!n.up() || !n.status().serving) return;
  const uint64_t id = next_request_id_++;
  n.syncs[id] = committed_max();  // before: it may be done at once
  event(std::to_string(n.id()) + ": sync " + std::to_string(id));
  guarded(n, [&] { n.replica->host().sync(id); });
}

void Sim::transfer_leadership() {
  Node& n = nodes_[rnd(nodes_.size())];
  if (!n.up() || !n.status().serving || n.status().role != zkd::zab::Role::kLeading) return;
  const auto to = static_cast<ServerId>(rnd(nodes_.size() + 1));  // 0: its pick
  guarded(n, [&] {
    const auto err = n.replica->host().transfer(to);
    if (err == zkd::zab::Error::kOk) ++stats_.transfers;
    event(std::to_string(n.id()) + ": transfer to " + std::to_string(to) + " -> " +
          zkd::zab::to_string(err));
  });
}

bool Sim::member(ServerId id) const {
  const auto in = [id](const std::vector<ServerId>& ids) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  return in(members_.voters) || in(members_.observers);
}

void Sim::reconfigure() {
  Node* leader = nullptr;
  for (Node& n : nodes_) {
    if (n.up() && n.status().serving && n.status().role == Role::kLeading) leader = &n;
  }
  if (leader == nullptr) return;
  std::vector<ServerId> outside;
  for (const Node& n : nodes_) {
    if (!member(n.id())) outside.push_back(n.id());
  }
  zk::wire::ReconfigRequest request;
  if (!outside.empty() && rnd(2) == 0) {
    const ServerId id = outside[rnd(outside.size())];
    request.joining = zk::sim::sim_server_line(id, rnd(3) == 0);
  } else if (rnd(3) == 0) {
    // A member changes its part: participant to observer or back.
    const ServerId id = static_cast<ServerId>(1 + rnd(nodes_.size()));
    if (!member(id)) return;
    request.joining = zk::sim::sim_server_line(id, !is_observer(id));
  } else {
    const ServerId id = static_cast<ServerId>(1 + rnd(nodes_.size()));
    if (!member(id)) return;
    request.leaving = std::to_string(id);
  }
  WriteRequest w;
  w.kind = WriteRequest::Kind::kOp;
  w.op = zk::wire::OpCode::kReconfig;
  w.xid = next_xid_++;
  w.body = zk::wire::encode(request);
  w.auth.add(zk::wire::Id{"super", ""});
  event(std::to_string(leader->id()) + ": reconfig joining '" + request.joining + "' leaving '" +
        request.leaving + "'");
  guarded(*leader, [&] { leader->replica->host().write(w); });
}

// A snapshot of the tree once it is committed and its log durable that far,
// written as zkd writes one; recovery then starts from it.
void Sim::compact(Node& n) {
  if (!n.up()) return;
  const Zxid at = n.db().last_zxid();
  if (at != n.checked || at > n.disk().durable || at <= n.disk().base) return;
  if (auto s = n.replica->snapshot(); !s.ok()) {
    // zkd's snapshot thread logs a failed snapshot and serves on.
    if (armed_ == nullptr || s.message().find(armed_->error_message()) == std::string::npos) {
      fail(std::to_string(n.id()) + ": snapshot: " + s.message());
    }
    ++stats_.failpoints[std::string(armed_->name())];
    event(std::to_string(n.id()) + ": snapshot failed: " + s.message());
    zkd::failpoint::disarm_all();
    armed_ = nullptr;
    return;
  }
  std::erase_if(n.applied, [&](const auto& a) { return a.first <= at; });
  event(std::to_string(n.id()) + ": snapshot at " + z(at));
}

// Cheap checks, after every step.
void Sim::check_step() {
  released_.clear();  // the input that released them is over
  for (Node& n : nodes_) {
    if (!n.up()) continue;
    const Status s = n.core().status();
    // An observer in its own view (the membership may have changed since it
    // last heard: the leader's view decides what it is sent); a leader made
    // an observer leads on only while it hands leadership over.
    if (s.role == Role::kLeading) n.led_epoch = s.epoch;
    const bool handing_over = s.role == Role::kLeading && n.core().transferring_to() != 0;
    if (zkd::zab::test::is_observer(zkd::zab::test::membership_view(n.core()), n.id()) &&
        s.role != Role::kLooking && s.role != Role::kObserving && !handing_over) {
      fail("observer " + std::to_string(n.id()) + " is " + to_string(s.role));
    }
    // A serving replica's commit point is real (after a restart the core's
    // starts at what the host replayed, which may not be committed).
    if (s.serving) mark_committed(n, std::min(n.core().committed_zxid(), n.db().last_zxid()));
    if (s.role == Role::kLeading && s.serving) {
      // The membership in force is what a serving leader has committed
      // (replicas that replayed or were sent a reconfiguration apply it
      // without telling the simulator).
      const Config& c = n.core().config();
      if (c.membership_version > members_zxid_) {
        members_ = {c.voters, c.observers};
        members_zxid_ = c.membership_version;
        ++stats_.reconfigs;
        event("membership " + z(members_zxid_) + " committed");
      }
      auto [it, fresh] = leaders_.emplace(s.epoch, n.id());
      if (fresh) ++stats_.leaders;
      if (it->second != n.id()) {
        fail("two leaders in epoch " + std::to_string(s.epoch) + ": " + std::to_string(it->second) +
             " and " + std::to_string(n.id()));
      }
    }
    // Equal committed states are equal trees (once a tree loaded from a
    // fuzzy snapshot has applied what the walk caught: fuzzy_until()).
    if (n.digest_dirty && n.db().last_zxid() == n.checked && n.checked >= n.db().fuzzy_until()) {
      n.digest_dirty = false;
      const uint64_t d = digest(n.db());
      auto [it, fresh] = digest_at_.emplace(n.checked, d);
      if (!fresh && it->second != d) {
        fail(std::to_string(n.id()) + " state at " + z(n.checked) +
             " differs from another replica's");
      }
    }
  }
}

// The epoch files on the replica's disk: they never go back, acceptedEpoch
// >= currentEpoch, and a serving replica's currentEpoch is its epoch.
void Sim::check_hard_state(Node& n) {
  auto files = zkd::server::read_epoch_files(n.replica->env(), SimReplica::kLayout.snap_dir);
  if (!files.ok()) fail(std::to_string(n.id()) + ": " + files.status().message());
  const HardState h{files->accepted_epoch, files->current_epoch};
  const HardState& old = n.hard;
  if (h.accepted_epoch < old.accepted_epoch || h.current_epoch < old.current_epoch ||
      h.current_epoch > h.accepted_epoch) {
    fail(std::to_string(n.id()) + ": hard state " + std::to_string(old.accepted_epoch) + "/" +
         std::to_string(old.current_epoch) + " -> " + std::to_string(h.accepted_epoch) + "/" +
         std::to_string(h.current_epoch));
  }
  n.hard = h;
  if (n.up() && n.status().serving && h.current_epoch != n.status().epoch) {
    fail(std::to_string(n.id()) + " serves epoch " + std::to_string(n.status().epoch) +
         " with currentEpoch " + std::to_string(h.current_epoch));
  }
}

// Costlier checks, once per tick.
void Sim::check_tick() {
  for (Node& n : nodes_) check_hard_state(n);
  // A committed entry is durable on a quorum of voters (observers never count).
  const Zxid top = committed_max();
  if (top != 0) {
    size_t holders = 0;
    for (const Node& n : nodes_) {
      if (std::find(members_.voters.begin(), members_.voters.end(), n.id()) ==
          members_.voters.end()) {
        continue;
      }
      const Disk& d = n.disk();
      if (d.base >= top) {
        ++holders;
        continue;
      }
      auto it = std::lower_bound(d.log.begin(), d.log.end(), top,
                                 [](const Entry& e, Zxid x) { return e.zxid < x; });
      if (it != d.log.end() && it->zxid == top && top <= d.durable) ++holders;
    }
    if (holders < quorum_size(members_.voters.size())) {
      fail("committed " + z(top) + " is durable on " + std::to_string(holders) + " voters only");
    }
  }
  // An established leader holds every committed entry after its snapshot.
  for (const Node& n : nodes_) {
    if (!n.up() || n.status().role != Role::kLeading || !n.status().serving) continue;
    const Disk& d = n.disk();
    for (auto it = committed_.upper_bound(d.base); it != committed_.end(); ++it) {
      auto e = std::lower_bound(d.log.begin(), d.log.end(), it->first,
                                [](const Entry& x, Zxid v) { return x.zxid < v; });
      if (e == d.log.end() || e->zxid != it->first || fnv(e->payload) != it->second) {
        fail("leader " + std::to_string(n.id()) + " lacks committed " + z(it->first));
      }
    }
  }
}

// Every member serves, one leads, all applied the same (a server removed by
// a reconfiguration stays out, LOOKING).
bool Sim::converged() {
  const Node* leader = nullptr;
  for (const Node& n : nodes_) {
    if (!member(n.id())) continue;
    if (!n.up() || !n.status().serving) return false;
    if (n.status().role == Role::kLeading) {
      if (leader != nullptr) return false;
      leader = &n;
    }
  }
  if (leader == nullptr) return false;
  const Zxid last = leader->core().last_zxid();
  for (const Node& n : nodes_) {
    if (member(n.id()) && (n.db().last_zxid() != last || n.checked != last)) return false;
  }
  return true;
}

Result Sim::run() {
  const size_t n_voters = rnd(3) == 0 ? 5 : 3;
  // One seed in four adds one or two observers (ids after the voters). Drawn
  // from the seed, not the RNG, so that the other seeds run as they did
  // before observers existed.
  const size_t n_observers = opt_.seed % 4 == 1 ? 1 + (opt_.seed / 4) % 2 : 0;
  const size_t n_nodes = n_voters + n_observers;
  config_.finalize_ticks = 1 + static_cast<int>(rnd(2));
  config_.vote_resend_ticks = 2;
  config_.init_limit = 10;
  config_.sync_limit = 5;
  config_.commit_window = rnd(2) == 0 ? 4 + rnd(8) : 1000;
  config_.max_counter = rnd(4) == 0 ? 3 + static_cast<uint32_t>(rnd(20)) : kMaxCounter;
  for (size_t i = 1; i <= n_nodes; ++i) {
    (i <= n_voters ? config_.voters : config_.observers).push_back(static_cast<ServerId>(i));
  }
  members_ = {config_.voters, config_.observers};
  nodes_.resize(n_nodes);
  stats_.observers = static_cast<int64_t>(n_observers);
  group_.assign(n_nodes, 0);
  Result result;
  g_logging_sim = this;
  zkd::net::set_log_sink(log_to_trace);
  zkd::failpoint::disarm_all();
  zkd::failpoint::set_crash_handler(crash_at_failpoint);
  try {
    event("seed " + std::to_string(opt_.seed) + ": " + std::to_string(n_voters) + " voters, " +
          std::to_string(n_observers) + " observers, window " +
          std::to_string(config_.commit_window) + ", max counter " +
          std::to_string(config_.max_counter));
    for (size_t i = 0; i < n_nodes; ++i) {
      Config c = config_;
      c.id = static_cast<ServerId>(i + 1);
      nodes_[i].replica = std::make_unique<SimReplica>(std::move(c), *this);
    }
    for (Node& n : nodes_) start(n);
    // Time runs in steps; the cores tick every kStepsPerTick steps, so that a
    // message usually takes well under a tick, as on a LAN (Apache's tickTime
    // is 2 s).
    const int64_t fault_end = int64_t{opt_.fault_ticks} * kStepsPerTick;
    const int64_t end = fault_end + int64_t{opt_.heal_ticks} * kStepsPerTick;
    bool done = false;
    for (now_ = 1; now_ <= end && !done; ++now_) {
      if (faults_ && now_ > fault_end) {
        faults_ = false;
        zkd::failpoint::disarm_all();
        armed_ = nullptr;
        event("heal");
      }
      // Healing waits out the outages in progress (link breaks expire on
      // their own), for the reason of min_outage().
      if (!faults_ && now_ - partitioned_at_ >= min_outage()) {
        std::fill(group_.begin(), group_.end(), 0);
      }
      for (Node& n : nodes_) {
        if (!n.up() && n.restart_at >= 0 && (n.restart_at <= now_ || !faults_)) {
          guarded(n, [&] { start(n); });
        }
      }
      for (Node& n : nodes_) {
        if (n.up() && n.fsync_due && *n.fsync_due <= now_) {
          guarded(n, [&] { complete_fsync(n); });
          check_step();
        }
      }
      for (Node& n : nodes_) {
        if (!n.up() || now_ % kStepsPerTick != 0) continue;
        guarded(n, [&] { n.replica->host().tick(); });
        check_step();
      }
      deliver_due();
      if (faults_) {
        if (chance(300)) client_write();
        if (chance(15)) client_sync();
        if (chance(10)) transfer_leadership();
        if (chance(5)) reconfigure();
        if (chance(4)) {
          const auto a = static_cast<ServerId>(1 + rnd(n_nodes));
          const auto b = static_cast<ServerId>(1 + rnd(n_nodes));
          if (a != b) {
            break_link(a, b, now_ + min_outage() + static_cast<int64_t>(rnd(60)));
            event("break " + std::to_string(a) + "<->" + std::to_string(b));
          }
        }
        if (chance(2)) {
          std::string desc;
          for (auto& g : group_) {
            g = static_cast<int>(rnd(2));
            desc += std::to_string(g);
          }
          for (auto& [k, link] : links_) {
            if (group_[static_cast<size_t>(k.first - 1)] !=
                group_[static_cast<size_t>(k.second - 1)]) {
              link.queue.clear();
            }
          }
          partitioned_at_ = now_;
          event("partition " + desc);
        }
        if (chance(6) && now_ - partitioned_at_ >= min_outage()) {
          std::fill(group_.begin(), group_.end(), 0);
          event("heal partition");
        }
        if (chance(3)) {
          Node& n = nodes_[rnd(n_nodes)];
          if (n.up()) {
            crash(n);
            n.restart_at = now_ + 1 + static_cast<int64_t>(rnd(160));
          }
        }
        if (chance(8)) {
          Node& n = nodes_[rnd(n_nodes)];
          guarded(n, [&] { compact(n); });
        }
        arm_failpoints();
        check_step();
      } else {
        done = converged();
      }
      check_tick();
    }
    if (!done) {
      std::string views;
      for (Node& n : nodes_) {
        if (!n.up()) continue;
        const Config v = zkd::zab::test::membership_view(n.core());
        views += " " + std::to_string(n.id()) + ":" + to_string(n.status().role) + " voters";
        for (ServerId id : v.voters) views += "," + std::to_string(id);
        views += " observers";
        for (ServerId id : v.observers) views += "," + std::to_string(id);
        views += n.core().next_membership() ? " (pending)" : "";
      }
      fail("no convergence " + std::to_string(opt_.heal_ticks) + " ticks after healing;" + views);
    }
  } catch (const Violation& v) {
    result.ok = false;
    result.failure = "VIOLATION (seed " + std::to_string(opt_.seed) + "): " + v.what() +
                     "\nreplay: ZK_SIM_SEED=" + std::to_string(opt_.seed) +
                     " zk_sim -v\nlast events:\n";
    for (const auto& l : trace_) result.failure += "  " + l + "\n";
  }
  zkd::failpoint::disarm_all();
  zkd::failpoint::set_crash_handler(nullptr);
  zkd::net::set_log_sink(nullptr);
  g_logging_sim = nullptr;
  result.stats = stats_;
  return result;
}

}  // namespace

Result run(const Options& options) { return Sim(options).run(); }

}  // namespace zk::sim
