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
#include "tests/zab/observer_rules.h"
#include "zkd/tree/database.h"
#include "zkd/tree/txn.h"
#include "zkd/zab/zab.h"

namespace zk::sim {

namespace {

using namespace zkd::zab;
using zkd::tree::Database;

// Thrown by a failed check; run() turns it into a Result with the trace.
struct Violation : std::runtime_error {
  using std::runtime_error::runtime_error;
};

uint64_t fnv(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

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
  const std::string err = Database::visit_snapshot(full_snapshot(db), v);
  if (!err.empty()) throw Violation("snapshot walk does not decode: " + err);
  std::sort(v.lines.begin(), v.lines.end());
  uint64_t h = fnv(std::to_string(db.last_zxid()));
  for (const auto& l : v.lines) h = fnv(l, h);
  return h;
}

// A client write as a follower forwards it: op, session index, request body.
struct ClientWrite {
  zk::wire::OpCode op = zk::wire::OpCode::kError;
  int session = 0;
  std::string body;
};

std::string encode_write(const ClientWrite& w) {
  return std::to_string(static_cast<int>(w.op)) + " " + std::to_string(w.session) + " " + w.body;
}

std::optional<ClientWrite> decode_write(const std::string& s) {
  const auto a = s.find(' ');
  if (a == std::string::npos) return std::nullopt;
  const auto b = s.find(' ', a + 1);
  if (b == std::string::npos) return std::nullopt;
  ClientWrite w;
  w.op = static_cast<zk::wire::OpCode>(std::stoi(s.substr(0, a)));
  w.session = std::stoi(s.substr(a + 1, b - a - 1));
  w.body = s.substr(b + 1);
  return w;
}

constexpr zkd::tree::SessionId kFirstSession = 0x1000004c2160000;
constexpr int kSessions = 2;
constexpr int64_t kStepsPerTick = 4;

// The replica's disk: written "durably" at once except the log's suffix
// after `durable`, which an fsync in flight makes durable later.
struct Disk {
  HardState hard;
  Zxid snap_zxid = 0;
  std::string snap;        // empty: the empty tree
  std::vector<Entry> log;  // after snap_zxid, ascending
  Zxid durable = 0;        // log durable up to here (>= snap_zxid)
  Zxid last() const { return log.empty() ? snap_zxid : log.back().zxid; }
};

struct Node {
  ServerId id = 0;
  std::unique_ptr<Zab> core;  // null while down
  Disk disk;
  Database db;
  // What db reflects after its base (snapshot / rebuild): zxid, payload hash.
  std::vector<std::pair<Zxid, uint64_t>> applied;
  Zxid checked = 0;  // applied entries up to here were matched with the committed sequence
  uint32_t starts = 0;
  int64_t restart_at = -1;
  std::string incoming_snap;
  Zxid incoming_snap_zxid = -1;
  std::optional<std::pair<Zxid, int64_t>> fsync;  // target, due tick
  Status status;
  std::map<uint64_t, Zxid> syncs;  // request id -> committed max when issued
  bool digest_dirty = true;
};

struct InFlight {
  int64_t due = 0;
  Message m;
  std::string snap;  // a Snap message's attachment
};

struct Link {
  std::deque<InFlight> queue;
  int64_t down_until = 0;
  int64_t last_due = 0;
};

class Sim {
 public:
  explicit Sim(const Options& o) : opt_(o), rng_(o.seed) {}
  Result run();

 private:
  uint64_t rnd(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool chance(int percent_times_10) { return rnd(1000) < static_cast<uint64_t>(percent_times_10); }
  void event(const std::string& s);
  void fail(const std::string& s) { throw Violation(s); }
  // A broken connection is seen by both ends (TCP): the core has no input
  // for it, so a break lasts until both time out (sync_limit), unless
  // short_breaks asks for silent losses on a link that comes back.
  int64_t min_outage() const {
    return opt_.short_breaks ? 1 : (config_.sync_limit + 1) * kStepsPerTick;
  }

  Node& node(ServerId id) { return nodes_.at(static_cast<size_t>(id - 1)); }
  void start(Node& n);
  void crash(Node& n);
  void rebuild_db(Node& n, Zxid upto);
  void handle_ready(Node& n);
  void settle();
  void complete_fsync(Node& n);
  void send(Node& from, const Message& m);
  bool link_usable(ServerId a, ServerId b) const;
  void break_link(ServerId a, ServerId b, int64_t until);
  void deliver_due();
  void client_write();
  void client_sync();
  void propose_write(Node& n, const std::string& payload);
  void compact(Node& n);
  void mark_committed(Node& n, Zxid upto);
  void check_step();
  bool is_observer(ServerId id) const { return zkd::zab::test::is_observer(config_, id); }
  void check_tick();
  bool converged();
  Zxid committed_max() const { return committed_.empty() ? 0 : committed_.rbegin()->first; }

  Options opt_;
  std::mt19937_64 rng_;
  Config config_;
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
};

void Sim::event(const std::string& s) {
  std::string line = "t" + std::to_string(now_) + " " + s;
  if (opt_.verbose) std::fprintf(stderr, "%s\n", line.c_str());
  trace_.push_back(std::move(line));
  if (trace_.size() > 80) trace_.pop_front();
}

void Sim::rebuild_db(Node& n, Zxid upto) {
  n.db = Database();
  n.applied.clear();
  if (!n.disk.snap.empty()) {
    const std::string err = n.db.load_snapshot(n.disk.snap);
    if (!err.empty()) fail(std::to_string(n.id) + ": own snapshot does not load: " + err);
  }
  for (const Entry& e : n.disk.log) {
    if (e.zxid > upto) break;
    zkd::tree::Txn txn;
    if (!zkd::tree::read_txn(e.payload, txn)) fail("log entry " + z(e.zxid) + " does not decode");
    n.db.apply(txn);
    n.applied.emplace_back(e.zxid, fnv(e.payload));
  }
  n.checked = std::min(n.checked, n.db.last_zxid());
  n.checked = std::max(n.checked, n.disk.snap_zxid);
  n.digest_dirty = true;
}

void Sim::start(Node& n) {
  // Recovery as a real server does it: snapshot, then replay the durable log
  // (possibly past the commit point), or sometimes only the snapshot.
  const bool replay = rnd(4) != 0;
  n.checked = n.disk.snap_zxid;
  rebuild_db(n, replay ? n.disk.last() : n.disk.snap_zxid);
  n.checked = n.disk.snap_zxid;
  Config c = config_;
  c.id = n.id;
  Bootstrap b{.hard_state = n.disk.hard,
              .base = n.disk.snap_zxid,
              .entries = n.disk.log,
              .applied = n.db.last_zxid(),
              .incarnation = ++n.starts};
  n.core = std::make_unique<Zab>(std::move(c), std::move(b));
  n.status = Status{};
  n.restart_at = -1;
  n.incoming_snap_zxid = -1;
  event(std::to_string(n.id) + " start #" + std::to_string(n.starts) + " base " +
        z(n.disk.snap_zxid) + " last " + z(n.disk.last()) + " applied " + z(n.db.last_zxid()));
}

void Sim::crash(Node& n) {
  n.core.reset();
  std::erase_if(n.disk.log, [&](const Entry& e) { return e.zxid > n.disk.durable; });
  n.fsync.reset();
  n.syncs.clear();
  n.db = Database();
  n.applied.clear();
  for (auto& [k, link] : links_) {
    if (k.first == n.id || k.second == n.id) link.queue.clear();
  }
  ++stats_.crashes;
  event(std::to_string(n.id) + " crash, durable " + z(n.disk.durable));
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
        fail(std::to_string(n.id) + " applied " + z(zxid) + " after " + z(n.checked) +
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

void Sim::handle_ready(Node& n) {
  Ready r = n.core->ready();
  const std::string who = std::to_string(n.id) + ": ";
  // 1. hard state, durably, before anything leaves.
  if (r.hard_state) {
    const HardState h = *r.hard_state;
    const HardState& old = n.disk.hard;
    if (h.accepted_epoch < old.accepted_epoch || h.current_epoch < old.current_epoch ||
        h.current_epoch > h.accepted_epoch) {
      fail(who + "hard state " + std::to_string(old.accepted_epoch) + "/" +
           std::to_string(old.current_epoch) + " -> " + std::to_string(h.accepted_epoch) + "/" +
           std::to_string(h.current_epoch));
    }
    n.disk.hard = h;
    event(who + "persist " + std::to_string(h.accepted_epoch) + "/" +
          std::to_string(h.current_epoch));
  }
  // 2. install the leader's snapshot, durably; the whole log goes.
  if (r.install_snapshot) {
    const Zxid s = *r.install_snapshot;
    if (n.incoming_snap_zxid != s) fail(who + "install snapshot " + z(s) + " never received");
    Database db;
    const std::string err = db.load_snapshot(n.incoming_snap);
    if (!err.empty()) fail(who + "snapshot does not load: " + err);
    if (db.last_zxid() != s) fail(who + "snapshot is at " + z(db.last_zxid()) + " not " + z(s));
    n.db = std::move(db);
    n.disk.snap = n.incoming_snap;
    n.disk.snap_zxid = s;
    n.disk.log.clear();
    n.disk.durable = s;
    n.fsync.reset();
    n.applied.clear();
    n.checked = s;
    n.digest_dirty = true;
    ++stats_.snaps;
    event(who + "install snapshot " + z(s));
  }
  // 3. truncate, durably; rebuild the state machine if it went past.
  if (r.truncate_after) {
    const Zxid t = *r.truncate_after;
    if (t < n.disk.snap_zxid) {
      fail(who + "truncate after " + z(t) + " below its snapshot " + z(n.disk.snap_zxid));
    }
    if (t < n.checked) fail(who + "truncate after " + z(t) + " drops committed " + z(n.checked));
    std::erase_if(n.disk.log, [&](const Entry& e) { return e.zxid > t; });
    n.disk.durable = std::min(n.disk.durable, t);
    if (n.fsync && n.fsync->first > t) n.fsync.reset();
    const bool rebuild = n.db.last_zxid() > t;
    if (rebuild) {
      rebuild_db(n, t);
      ++stats_.rebuilds;
    }
    event(who + "truncate after " + z(t) + (rebuild ? " (rebuilt)" : ""));
  }
  // 4. append; an fsync makes them durable later.
  for (Entry& e : r.entries) {
    if (e.zxid <= n.disk.last()) fail(who + "append " + z(e.zxid) + " after " + z(n.disk.last()));
    const uint64_t h = fnv(e.payload);
    auto [it, fresh] = logged_.emplace(e.zxid, h);
    if (!fresh && it->second != h) fail(who + "logs " + z(e.zxid) + " with other bytes");
    n.disk.log.push_back(std::move(e));
  }
  if (!r.entries.empty()) {
    event(who + "append .." + z(n.disk.last()));
    if (!n.fsync) n.fsync = std::make_pair(n.disk.last(), now_ + static_cast<int64_t>(rnd(3)));
  }
  // 5. apply committed entries.
  for (const Entry& e : r.committed) {
    if (e.zxid <= n.db.last_zxid()) {
      fail(who + "apply " + z(e.zxid) + " at applied " + z(n.db.last_zxid()));
    }
    zkd::tree::Txn txn;
    if (!zkd::tree::read_txn(e.payload, txn)) fail(who + "committed " + z(e.zxid) + " undecodable");
    if (txn.header.zxid != e.zxid) {
      fail(who + "entry " + z(e.zxid) + " carries a txn for " + z(txn.header.zxid));
    }
    n.db.apply(txn);
    n.applied.emplace_back(e.zxid, fnv(e.payload));
    n.digest_dirty = true;
  }
  if (!r.committed.empty()) {
    event(who + "apply .." + z(r.committed.back().zxid));
    mark_committed(n, r.committed.back().zxid);
  }
  // 6. send.
  for (const Message& m : r.messages) {
    if (m.type == MsgType::kAck || m.type == MsgType::kAckNewLeader) {
      if (m.zxid > std::max(n.disk.durable, n.disk.snap_zxid)) {
        fail(who + describe(m) + " before durable (" + z(n.disk.durable) + ")");
      }
    }
    send(n, m);
  }
  // 8. syncs.
  for (uint64_t id : r.syncs_done) {
    auto it = n.syncs.find(id);
    if (it == n.syncs.end()) fail(who + "unknown sync " + std::to_string(id) + " done");
    if (n.db.last_zxid() < it->second) {
      fail(who + "sync " + std::to_string(id) + " done at " + z(n.db.last_zxid()) + " but " +
           z(it->second) + " was committed before it began");
    }
    n.syncs.erase(it);
    ++stats_.syncs_done;
  }
  for (uint64_t id : r.syncs_failed) n.syncs.erase(id);
  // 9. status.
  if (r.status) {
    n.status = *r.status;
    event(who + to_string(n.status.role) + " leader=" + std::to_string(n.status.leader) +
          " epoch=" + std::to_string(n.status.epoch) + (n.status.serving ? " serving" : ""));
    if (!(n.status.role == Role::kLeading && n.status.serving)) n.db.discard_pending();
  }
  n.core->advance();
  if (r.install_snapshot) n.core->snapshot_installed(*r.install_snapshot);
  if (n.fsync && n.fsync->second <= now_) complete_fsync(n);
  // 7. forwarded writes, after advance() so that their Ready is the next one.
  for (const Request& q : r.requests) propose_write(n, q.payload);
}

void Sim::complete_fsync(Node& n) {
  const Zxid target = n.fsync->first;
  n.fsync.reset();
  n.disk.durable = std::max(n.disk.durable, target);
  n.core->persisted(target);
  if (n.disk.last() > n.disk.durable) {
    n.fsync = std::make_pair(n.disk.last(), now_ + 1 + static_cast<int64_t>(rnd(2)));
  }
}

void Sim::settle() {
  for (int guard = 0;; ++guard) {
    if (guard > 10000) fail("Readies never settle");
    bool any = false;
    for (Node& n : nodes_) {
      if (n.core && n.core->has_ready()) {
        handle_ready(n);
        any = true;
      }
    }
    if (!any) return;
  }
}

bool Sim::link_usable(ServerId a, ServerId b) const {
  if (!nodes_.at(static_cast<size_t>(b - 1)).core) return false;
  if (group_.at(static_cast<size_t>(a - 1)) != group_.at(static_cast<size_t>(b - 1))) return false;
  auto it = links_.find({a, b});
  return it == links_.end() || it->second.down_until <= now_;
}

void Sim::send(Node& from, const Message& m) {
  if (m.to == from.id) fail(std::to_string(from.id) + ": message to self");
  if (const std::string broken = zkd::zab::test::broken_observer_rule(config_, from.id, m);
      !broken.empty()) {
    fail(std::to_string(from.id) + ": " + broken);
  }
  InFlight f{0, m, {}};
  if (m.type == MsgType::kSnap) {
    if (from.db.last_zxid() != m.zxid) {
      fail(std::to_string(from.id) + ": Snap at " + z(m.zxid) + " but state at " +
           z(from.db.last_zxid()));
    }
    f.snap = full_snapshot(from.db);
  }
  if (m.type != MsgType::kPing) {
    event(std::to_string(from.id) + "->" + std::to_string(m.to) + " " + describe(m));
  }
  if (!link_usable(from.id, m.to)) return;
  Link& link = links_[{from.id, m.to}];
  const int64_t delay = chance(10) ? kStepsPerTick * 3 : static_cast<int64_t>(rnd(3));
  f.due = std::max(now_ + delay, link.last_due);
  link.last_due = f.due;
  link.queue.push_back(std::move(f));
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
        if (f.m.type == MsgType::kSnap) {
          to.incoming_snap = std::move(f.snap);
          to.incoming_snap_zxid = f.m.zxid;
        }
        if (f.m.type == MsgType::kInform) ++stats_.informs;
        to.core->step(f.m);
        settle();
        check_step();
        any = true;
      }
    }
  }
}

void Sim::propose_write(Node& n, const std::string& payload) {
  if (!n.core || n.status.role != Role::kLeading || !n.status.serving) return;
  const auto w = decode_write(payload);
  if (!w) fail("undecodable request");
  const Zxid last = n.core->last_zxid();
  const Epoch e = n.status.epoch;
  // The zxid propose() will assign: the next counter of the leader's epoch.
  const Zxid next = epoch_of(last) == e ? last + 1 : make_zxid(e, 1);
  // Prepare against the whole history: everything before this epoch applied.
  if (epoch_of(last) != e && n.db.last_zxid() != last) return;
  const zkd::tree::SessionId session = kFirstSession + w->session;
  const int64_t time = now_ * 1000;
  zkd::tree::Txn txn;
  if (w->op == zk::wire::OpCode::kCreateSession) {
    txn = n.db.prepare_create_session(session, 30000, next, time);
  } else if (w->op == zk::wire::OpCode::kCloseSession) {
    txn = n.db.prepare_close_session(session, next, time);
  } else {
    txn = n.db.prepare(session, next_xid_++, w->op, w->body, next, time);
  }
  std::string bytes;
  zk::wire::Writer writer(bytes);
  zkd::tree::write_txn(writer, txn);
  const Proposed p = n.core->propose(std::move(bytes));
  if (!p.ok()) {
    n.db.discard_pending();
    event(std::to_string(n.id) + ": propose -> " + to_string(p.error));
  } else if (p.zxid != next) {
    fail(std::to_string(n.id) + ": propose gave " + z(p.zxid) + ", expected " + z(next));
  }
  settle();
}

void Sim::client_write() {
  static const char* kPaths[] = {"/a", "/b", "/a/x", "/a/y", "/b/x", "/a/x/q"};
  ClientWrite w;
  w.session = static_cast<int>(rnd(kSessions));
  const std::string path = kPaths[rnd(std::size(kPaths))];
  const std::string data = "v" + std::to_string(rnd(100));
  const int32_t version = rnd(2) == 0 ? -1 : static_cast<int32_t>(rnd(3));
  const uint64_t dice = rnd(100);
  if (dice < 8) {
    w.op = zk::wire::OpCode::kCreateSession;
  } else if (dice < 11) {
    w.op = zk::wire::OpCode::kCloseSession;
  } else if (dice < 50) {
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
  Node& n = nodes_[rnd(nodes_.size())];
  if (!n.core || !n.status.serving) return;
  if (n.status.role == Role::kLeading) {
    propose_write(n, encode_write(w));
  } else {
    n.core->forward(encode_write(w));
    settle();
  }
}

void Sim::client_sync() {
  Node& n = nodes_[rnd(nodes_.size())];
  if (!n.core || !n.status.serving) return;
  const uint64_t id = next_request_id_++;
  if (n.core->sync(id) == Error::kOk) {
    n.syncs[id] = committed_max();
    event(std::to_string(n.id) + ": sync " + std::to_string(id));
  }
  settle();
}

// Log compaction: a snapshot of the state machine once it is committed and
// its log durable that far; the log before it goes.
void Sim::compact(Node& n) {
  const Zxid at = n.db.last_zxid();
  if (!n.core || at != n.checked || at > n.disk.durable || at <= n.disk.snap_zxid) return;
  n.disk.snap = full_snapshot(n.db);
  n.disk.snap_zxid = at;
  std::erase_if(n.disk.log, [&](const Entry& e) { return e.zxid <= at; });
  std::erase_if(n.applied, [&](const auto& a) { return a.first <= at; });
  event(std::to_string(n.id) + ": compact at " + z(at));
}

// Cheap checks, after every step.
void Sim::check_step() {
  for (Node& n : nodes_) {
    if (!n.core) continue;
    const Status s = n.core->status();
    if (is_observer(n.id) && s.role != Role::kLooking && s.role != Role::kObserving) {
      fail("observer " + std::to_string(n.id) + " is " + to_string(s.role));
    }
    // A serving replica's commit point is real (after a restart the core's
    // starts at what the host replayed, which may not be committed).
    if (s.serving) mark_committed(n, std::min(n.core->committed_zxid(), n.db.last_zxid()));
    if (s.role == Role::kLeading && s.serving) {
      auto [it, fresh] = leaders_.emplace(s.epoch, n.id);
      if (fresh) ++stats_.leaders;
      if (it->second != n.id) {
        fail("two leaders in epoch " + std::to_string(s.epoch) + ": " + std::to_string(it->second) +
             " and " + std::to_string(n.id));
      }
    }
    if (s.serving && n.disk.hard.current_epoch != s.epoch) {
      fail(std::to_string(n.id) + " serves epoch " + std::to_string(s.epoch) +
           " with currentEpoch " + std::to_string(n.disk.hard.current_epoch));
    }
    // Equal committed states are equal trees.
    if (n.digest_dirty && n.db.last_zxid() == n.checked) {
      n.digest_dirty = false;
      const uint64_t d = digest(n.db);
      auto [it, fresh] = digest_at_.emplace(n.checked, d);
      if (!fresh && it->second != d) {
        fail(std::to_string(n.id) + " state at " + z(n.checked) +
             " differs from another replica's");
      }
    }
  }
}

// Costlier checks, once per tick.
void Sim::check_tick() {
  // A committed entry is durable on a quorum of voters (observers never count).
  const Zxid top = committed_max();
  if (top != 0) {
    size_t holders = 0;
    for (const Node& n : nodes_) {
      if (is_observer(n.id)) continue;
      const Disk& d = n.disk;
      if (d.snap_zxid >= top) {
        ++holders;
        continue;
      }
      auto it = std::lower_bound(d.log.begin(), d.log.end(), top,
                                 [](const Entry& e, Zxid x) { return e.zxid < x; });
      if (it != d.log.end() && it->zxid == top && top <= d.durable) ++holders;
    }
    if (holders < quorum_size(config_.voters.size())) {
      fail("committed " + z(top) + " is durable on " + std::to_string(holders) + " voters only");
    }
  }
  // An established leader holds every committed entry after its snapshot.
  for (const Node& n : nodes_) {
    if (!n.core || n.status.role != Role::kLeading || !n.status.serving) continue;
    const Disk& d = n.disk;
    for (auto it = committed_.upper_bound(d.snap_zxid); it != committed_.end(); ++it) {
      auto e = std::lower_bound(d.log.begin(), d.log.end(), it->first,
                                [](const Entry& x, Zxid v) { return x.zxid < v; });
      if (e == d.log.end() || e->zxid != it->first || fnv(e->payload) != it->second) {
        fail("leader " + std::to_string(n.id) + " lacks committed " + z(it->first));
      }
    }
  }
}

bool Sim::converged() {
  const Node* leader = nullptr;
  for (const Node& n : nodes_) {
    if (!n.core || !n.status.serving) return false;
    if (n.status.role == Role::kLeading) {
      if (leader != nullptr) return false;
      leader = &n;
    }
  }
  if (leader == nullptr) return false;
  const Zxid last = leader->core->last_zxid();
  for (const Node& n : nodes_) {
    if (n.db.last_zxid() != last || n.checked != last) return false;
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
  nodes_.resize(n_nodes);
  stats_.observers = static_cast<int64_t>(n_observers);
  group_.assign(n_nodes, 0);
  Result result;
  try {
    event("seed " + std::to_string(opt_.seed) + ": " + std::to_string(n_voters) + " voters, " +
          std::to_string(n_observers) + " observers, window " +
          std::to_string(config_.commit_window) + ", max counter " +
          std::to_string(config_.max_counter));
    for (size_t i = 0; i < n_nodes; ++i) {
      nodes_[i].id = static_cast<ServerId>(i + 1);
      start(nodes_[i]);
    }
    settle();
    // Time runs in steps; the cores tick every kStepsPerTick steps, so that a
    // message usually takes well under a tick, as on a LAN (Apache's tickTime
    // is 2 s).
    const int64_t fault_end = int64_t{opt_.fault_ticks} * kStepsPerTick;
    const int64_t end = fault_end + int64_t{opt_.heal_ticks} * kStepsPerTick;
    bool done = false;
    for (now_ = 1; now_ <= end && !done; ++now_) {
      if (faults_ && now_ > fault_end) {
        faults_ = false;
        event("heal");
      }
      // Healing waits out the outages in progress (link breaks expire on
      // their own), for the reason of min_outage().
      if (!faults_ && now_ - partitioned_at_ >= min_outage()) {
        std::fill(group_.begin(), group_.end(), 0);
      }
      for (Node& n : nodes_) {
        if (!n.core && n.restart_at >= 0 && (n.restart_at <= now_ || !faults_)) {
          start(n);
          settle();
        }
      }
      for (Node& n : nodes_) {
        if (n.core && n.fsync && n.fsync->second <= now_) {
          complete_fsync(n);
          settle();
          check_step();
        }
      }
      for (Node& n : nodes_) {
        if (!n.core || now_ % kStepsPerTick != 0) continue;
        n.core->tick();
        settle();
        check_step();
      }
      deliver_due();
      if (faults_) {
        if (chance(300)) client_write();
        if (chance(15)) client_sync();
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
          if (n.core) {
            crash(n);
            n.restart_at = now_ + 1 + static_cast<int64_t>(rnd(160));
          }
        }
        if (chance(8)) compact(nodes_[rnd(n_nodes)]);
        settle();
        check_step();
      } else {
        done = converged();
      }
      check_tick();
    }
    if (!done) fail("no convergence " + std::to_string(opt_.heal_ticks) + " ticks after healing");
  } catch (const Violation& v) {
    result.ok = false;
    result.failure = "VIOLATION (seed " + std::to_string(opt_.seed) + "): " + v.what() +
                     "\nreplay: ZK_SIM_SEED=" + std::to_string(opt_.seed) +
                     " zk_sim -v\nlast events:\n";
    for (const auto& l : trace_) result.failure += "  " + l + "\n";
  }
  result.stats = stats_;
  return result;
}

}  // namespace

Result run(const Options& options) { return Sim(options).run(); }

}  // namespace zk::sim
