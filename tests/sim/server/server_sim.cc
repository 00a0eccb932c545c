// SPDX-License-Identifier: Apache-2.0
#include "tests/sim/server/server_sim.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "tests/sim/server/sim_ensemble.h"
#include "zkd/log/log.h"
#include "zkd/net/queued_client_connection.h"
#include "zklab/checker/check_history.h"
#include "zklab/checker/check_verdict.h"

namespace zk::sim {
namespace {

namespace check = zk::lab::check;
using std::chrono::milliseconds;
using zk::wire::Error;
using zk::wire::OpCode;

constexpr milliseconds kStep{20};
constexpr int32_t kSessionTimeoutMs = 400;  // tickTime 100: 200..2,000 allowed
constexpr int kPingEverySteps = 5;          // 100 ms: well within the timeout
constexpr int kRegisters = 3;
constexpr int kHealSteps = 100;  // no faults, no silence: living sessions stay

std::string register_path(int k) { return "/r" + std::to_string(k); }

using SimConnection = zkd::net::QueuedClientConnection;

// The request a client has in flight (one at a time, as zklab check's).
struct InFlight {
  enum class Kind { kRegister, kEphemeral, kWatch, kPing } kind = Kind::kPing;
  int32_t xid = 0;
  int32_t sync_xid = 0;  // a read in an ensemble: the sync sent before it
  size_t record = 0;     // kRegister: history.registers; kEphemeral: ephemerals_
};

struct SimClient {
  int index = 0;
  size_t node = 0;  // the server it is (or was last) connected to
  std::shared_ptr<SimConnection> connection;
  bool connecting = false;  // ConnectRequest sent, no answer yet
  int connections = 0;      // connections opened (numbers watch records)
  int64_t session = 0;      // 0: none yet, or the last one ended
  std::string password;
  int64_t last_zxid = 0;
  int32_t next_xid = 1;
  std::optional<InFlight> in_flight;
  int silent_until = 0;        // sends nothing (not even pings) before this step
  int last_sent = 0;           // the step of its last request
  bool has_ephemeral = false;  // for the current session
  int watched = 0;             // registers under a persistent watch on this connection
  std::map<std::string, int32_t> versions_read;
};

// An ephemeral a client's create was acknowledged for.
struct Ephemeral {
  std::string path;
  int64_t session = 0;
  int client = 0;
};

// The faults of one server of the simulation (SimEnsemble::Node).
struct NodeFaults {
  int down_until = 0;      // a crashed server restarts at this step
  int isolated_until = 0;  // an isolated one is joined again at this step
};

constexpr const char* kZooCfg =
    "tickTime=100\ninitLimit=10\nsyncLimit=5\ndataDir=/data\nclientPort=2181\n"
    "admin.enableServer=false\n4lw.commands.whitelist=isro,srvr\n"
    "snapCount=40\nautopurge.snapRetainCount=3\npreAllocSize=64\n";

class ServerSim {
 public:
  explicit ServerSim(const ServerSimOptions& options)
      : options_(options),
        ensemble_(kZooCfg, options.servers, options.seed),
        faults_(ensemble_.size()),
        random_(options.seed) {
    clients_.resize(static_cast<size_t>(options.clients));
    for (size_t i = 0; i < clients_.size(); ++i) clients_[i].index = static_cast<int>(i);
  }

  ServerSimResult run() {
    ServerSimResult result;
    try {
      for (size_t i = 0; i < ensemble_.size(); ++i) start(i);
      wait_until_all_serve();
      create_registers();
      for (step_ = 0; step_ < options_.steps + kHealSteps; ++step_) {
        const bool faults = step_ < options_.steps;
        if (faults) inject_faults();
        heal_due();
        for (size_t i : shuffled_clients()) step_client(clients_[i], faults);
        advance(milliseconds(1));
        for (SimClient& c : clients_) read_inbox(c);
        advance(kStep - milliseconds(1));
        for (SimClient& c : clients_) read_inbox(c);
      }
      heal_all();
      wait_until_all_serve();
      final_look();
      check::Verdict verdict = check::check_history(history_);
      stats_.histories_checked = static_cast<int64_t>(clients_.size());
      stats_.operations = static_cast<int64_t>(history_.registers.size());
      stats_.watch_events = static_cast<int64_t>(history_.watch_events.size());
      if (!verdict.ok()) {
        result.ok = false;
        for (const check::Violation& v : verdict.violations) {
          result.failure += v.kind + ": " + v.what + "\n";
          for (const check::RegisterOp& op : v.window) {
            result.failure += "  c" + std::to_string(op.client) + " " +
                              std::string(check::kind_name(op.kind)) + " " + op.key + " value " +
                              std::to_string(op.value) + " v" + std::to_string(op.version) + " " +
                              std::string(check::outcome_name(op.outcome)) + " [" +
                              std::to_string(op.invoke_ns / 1000000) + " ms, " +
                              (op.complete_ns == check::kNever
                                   ? std::string("never")
                                   : std::to_string(op.complete_ns / 1000000) + " ms") +
                              "] zxid " + std::to_string(op.zxid) + "\n";
          }
        }
      }
    } catch (const std::exception& e) {
      result.ok = false;
      result.failure = std::string(e.what()) + " (at step " + std::to_string(step_) + ")\n";
    }
    ensemble_.stop_all();
    if (!result.ok) result.failure += "replay: ZK_SIM_SEED=" + std::to_string(options_.seed);
    result.stats = stats_;
    return result;
  }

 private:
  bool chance(int in, int of) { return std::uniform_int_distribution<int>(1, of)(random_) <= in; }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  void trace(const std::string& line) {
    if (options_.verbose) {
      std::fprintf(stderr, "[%d %lld ms] %s\n", step_, static_cast<long long>(now_ns() / 1000000),
                   line.c_str());
    }
  }
  int64_t now_ns() { return ensemble_.node(0).env->clock().steady_us() * 1000; }

  std::vector<size_t> shuffled_clients() {
    std::vector<size_t> order(clients_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random_);
    return order;
  }

  void start(size_t i) { ensemble_.start(i, random_()); }

  // A server crashes: what it had not synced is lost; its connections end,
  // and what was in flight on them has an unknown outcome.
  void crash(size_t i) {
    trace("server " + std::to_string(ensemble_.node(i).id) + " crashes");
    ++stats_.restarts;
    ensemble_.crash(i);
    for (SimClient& c : clients_) {
      if (c.node == i) lose_connection(c);
    }
  }

  // At most one server is down or cut off at a time, so that a quorum is
  // left; a standalone server only crashes.
  void inject_faults() {
    if (!chance(1, 150)) return;
    for (size_t i = 0; i < ensemble_.size(); ++i) {
      if (!ensemble_.node(i).server || ensemble_.network().isolated(ensemble_.node(i).id)) return;
    }
    const size_t i = static_cast<size_t>(pick(static_cast<int>(ensemble_.size())));
    if (ensemble_.size() > 1 && chance(1, 2)) {
      trace("server " + std::to_string(ensemble_.node(i).id) + " is cut off");
      ++stats_.partitions;
      ensemble_.network().isolate(ensemble_.node(i).id, true);
      faults_[i].isolated_until = step_ + 10 + pick(50);
      return;
    }
    crash(i);
    faults_[i].down_until = step_ + pick(ensemble_.size() > 1 ? 60 : 2);
  }

  void heal_due() {
    for (size_t i = 0; i < ensemble_.size(); ++i) {
      const zkd::zab::ServerId id = ensemble_.node(i).id;
      if (!ensemble_.node(i).server && step_ >= faults_[i].down_until) start(i);
      if (ensemble_.network().isolated(id) && step_ >= faults_[i].isolated_until) {
        ensemble_.network().isolate(id, false);
      }
    }
  }
  void heal_all() {
    for (NodeFaults& f : faults_) f.down_until = f.isolated_until = 0;
    heal_due();
  }

  void advance(milliseconds by) { ensemble_.advance(by); }
  void settle() { ensemble_.settle(); }

  // Simulated time passes (at most a minute) until every server serves.
  void wait_until_all_serve() {
    for (int i = 0; i < 600; ++i) {
      bool all = true;
      for (size_t n = 0; n < ensemble_.size(); ++n) all = all && ensemble_.serves(n);
      if (all) return;
      advance(milliseconds(100));
    }
    throw std::runtime_error("the servers did not all serve within a minute");
  }

  // The registers exist, each with value 0 at version 0, before the history.
  void create_registers() {
    SimClient setup;
    setup.index = -1;
    connect(setup);
    settle();
    read_inbox(setup);
    for (int k = 0; k < kRegisters; ++k) {
      zk::wire::CreateRequest create;
      create.path = register_path(k);
      create.data = "0";
      create.acl = zk::wire::open_acl_unsafe();
      setup.connection->receive(zk::wire::encode(zk::wire::RequestHeader{k + 1, OpCode::kCreate}) +
                                zk::wire::encode(create));
    }
    settle();
    if (setup.connection->sent.size() != static_cast<size_t>(kRegisters)) {
      throw std::runtime_error("the registers were not created");
    }
    for (const std::string& frame : setup.connection->sent) {
      zk::wire::ReplyHeader header;
      if (!zk::wire::decode(frame, header) || header.err != Error::kOk) {
        throw std::runtime_error("a register was not created");
      }
    }
    setup.connection->close();
    settle();
  }

  // A new connection to a server that runs, chosen at random; none while
  // every server is down.
  void connect(SimClient& c) {
    std::vector<size_t> running;
    for (size_t i = 0; i < ensemble_.size(); ++i) {
      if (ensemble_.node(i).server) running.push_back(i);
    }
    if (running.empty()) return;
    c.node = running[static_cast<size_t>(pick(static_cast<int>(running.size())))];
    c.connection = ensemble_.open(c.node);
    ++c.connections;
    zk::wire::ConnectRequest request;
    request.timeout_ms = kSessionTimeoutMs;
    request.last_zxid_seen = c.last_zxid;
    request.session_id = c.session;
    if (c.session != 0) request.passwd = c.password;
    c.connecting = true;
    c.connection->receive(zk::wire::encode(request));
  }

  void lose_connection(SimClient& c) {
    if (c.in_flight && c.in_flight->kind == InFlight::Kind::kRegister) {
      trace("client " + std::to_string(c.index) + ": in flight when its connection was lost");
    }
    c.in_flight.reset();  // unknown: its record keeps kNever
    c.connection.reset();
    c.connecting = false;
    c.watched = 0;  // a new connection watches anew
  }

  void step_client(SimClient& c, bool faults) {
    if (!c.connection) {
      if (step_ >= c.silent_until) connect(c);
      return;
    }
    if (c.connecting || c.in_flight || step_ < c.silent_until) return;
    if (faults && chance(1, 80)) {
      // Silent for 200 to 800 ms: past the 400 ms timeout, about half the time.
      c.silent_until = step_ + 10 + pick(31);
      trace("client " + std::to_string(c.index) + " goes silent until step " +
            std::to_string(c.silent_until));
      return;
    }
    if (c.watched < kRegisters) {
      // Every change of a register is seen on this connection from now on
      // (the checker wants each acknowledged write's event, in zxid order).
      zk::wire::AddWatchRequest watch{register_path(c.watched), /*mode=persistent*/ 0};
      send(c, InFlight{InFlight::Kind::kWatch, c.next_xid++, 0, 0}, OpCode::kAddWatch,
           zk::wire::encode(watch));
    } else if (!c.has_ephemeral) {
      create_ephemeral(c);
    } else if (chance(2, 3)) {
      register_op(c);
    } else if (step_ - c.last_sent >= kPingEverySteps) {
      send(c, InFlight{InFlight::Kind::kPing, zk::wire::kPingXid, 0, 0}, OpCode::kPing, "");
    }
  }

  void send(SimClient& c, InFlight op, OpCode code, const std::string& body) {
    c.in_flight = op;
    c.last_sent = step_;
    if (op.sync_xid != 0) {
      // A read in an ensemble is a sync, then the read: linearizable.
      c.connection->receive(zk::wire::encode(zk::wire::RequestHeader{op.sync_xid, OpCode::kSync}) +
                            zk::wire::encode(zk::wire::PathWatchRequest{"/", false}));
    }
    c.connection->receive(zk::wire::encode(zk::wire::RequestHeader{op.xid, code}) + body);
  }

  void create_ephemeral(SimClient& c) {
    zk::wire::CreateRequest create;
    create.path = "/e-" + std::to_string(c.index) + "-" + std::to_string(ephemerals_.size());
    create.acl = zk::wire::open_acl_unsafe();
    create.flags = 1;
    ephemerals_.push_back(Ephemeral{create.path, c.session, c.index});
    c.has_ephemeral = true;
    send(c, InFlight{InFlight::Kind::kEphemeral, c.next_xid++, 0, ephemerals_.size() - 1},
         OpCode::kCreate, zk::wire::encode(create));
  }

  void register_op(SimClient& c) {
    check::RegisterOp op;
    op.client = c.index;
    op.key = register_path(pick(kRegisters));
    op.invoke_ns = now_ns();
    const int what = pick(3);
    std::string body;
    OpCode code = OpCode::kGetData;
    if (what == 0) {
      op.kind = check::RegisterOpKind::kRead;
      body = zk::wire::encode(zk::wire::PathWatchRequest{op.key, false});
    } else {
      op.kind = what == 1 ? check::RegisterOpKind::kWrite : check::RegisterOpKind::kCas;
      op.value = ++values_;
      zk::wire::SetDataRequest set;
      set.path = op.key;
      set.data = std::to_string(op.value);
      if (op.kind == check::RegisterOpKind::kCas) {
        auto known = c.versions_read.find(op.key);
        op.version = known != c.versions_read.end() ? known->second : pick(3);
        set.version = op.version;
      }
      body = zk::wire::encode(set);
      code = OpCode::kSetData;
    }
    trace("client " + std::to_string(c.index) + " at server " +
          std::to_string(ensemble_.node(c.node).id) + ": " +
          std::string(check::kind_name(op.kind)) + " " + op.key +
          (op.kind == check::RegisterOpKind::kRead ? "" : " := " + std::to_string(op.value)));
    history_.registers.push_back(op);
    InFlight request{InFlight::Kind::kRegister, 0, 0, history_.registers.size() - 1};
    if (op.kind == check::RegisterOpKind::kRead && ensemble_.size() > 1)
      request.sync_xid = c.next_xid++;
    request.xid = c.next_xid++;
    send(c, request, code, body);
  }

  // Takes every frame the client was sent, in order.
  void read_inbox(SimClient& c) {
    while (c.connection && !c.connection->sent.empty()) {
      std::string frame = std::move(c.connection->sent.front());
      c.connection->sent.pop_front();
      if (c.connecting) {
        connected(c, frame);
      } else {
        reply(c, frame);
      }
    }
    if (c.connection && !c.connection->accepting_sends()) {
      trace("client " + std::to_string(c.index) + ": the server closed its connection");
      lose_connection(c);
    }
  }

  void connected(SimClient& c, const std::string& frame) {
    zk::wire::ConnectResponse response;
    if (!zk::wire::decode(frame, response)) throw std::runtime_error("bad ConnectResponse");
    c.connecting = false;
    if (response.timeout_ms == 0) {
      // The session expired: its ephemerals must be gone.
      trace("client " + std::to_string(c.index) + ": session expired");
      ++stats_.sessions_expired;
      ended_sessions_.push_back(c.session);
      c.session = 0;
      lose_connection(c);
      return;
    }
    if (c.session == 0) {
      ++stats_.sessions_created;
      c.has_ephemeral = false;
      c.versions_read.clear();
    }
    c.session = response.session_id;
    c.password = response.passwd;
  }

  void reply(SimClient& c, const std::string& frame) {
    zk::wire::ReplyHeader header;
    if (!zk::wire::decode(frame, header)) throw std::runtime_error("bad reply header");
    if (header.zxid > c.last_zxid) c.last_zxid = header.zxid;
    const std::string body = frame.substr(zk::wire::kReplyHeaderSize);
    if (header.xid == zk::wire::kNotificationXid) {
      zk::wire::WatcherEvent event;
      if (!zk::wire::decode(body, event)) throw std::runtime_error("bad notification");
      if (event.type == zk::wire::EventType::kNodeDataChanged) {
        history_.watch_events.push_back(
            check::WatchEventRecord{c.index, c.connections, event.path, header.zxid});
      }
      return;
    }
    if (c.in_flight && c.in_flight->sync_xid != 0 && header.xid == c.in_flight->sync_xid) {
      return;  // the sync before a read: the read's reply says what it got
    }
    if (!c.in_flight || header.xid != c.in_flight->xid) {
      throw std::runtime_error("client " + std::to_string(c.index) + ": a reply to xid " +
                               std::to_string(header.xid) + " it did not wait for");
    }
    const InFlight op = *c.in_flight;
    c.in_flight.reset();
    if (op.kind == InFlight::Kind::kWatch) {
      if (header.err != Error::kOk) throw std::runtime_error("addWatch failed");
      ++c.watched;
      return;
    }
    if (op.kind == InFlight::Kind::kEphemeral) {
      if (header.err == Error::kOk) {
        ephemerals_[op.record].session = c.session;
        acknowledged_ephemerals_.push_back(op.record);
      }
      return;
    }
    if (op.kind != InFlight::Kind::kRegister) return;
    check::RegisterOp& record = history_.registers[op.record];
    record.complete_ns = now_ns();
    if (header.err == Error::kOk) {
      record.outcome = check::Outcome::kOk;
      ++stats_.acknowledged;
      if (record.kind == check::RegisterOpKind::kRead) {
        zk::wire::GetDataResponse data;
        if (!zk::wire::decode(body, data)) throw std::runtime_error("bad GetDataResponse");
        record.value = std::stoll(data.data.value_or("0"));
        record.version = data.stat.version;
        c.versions_read[record.key] = data.stat.version;
      } else {
        zk::wire::Stat stat;
        zk::wire::Reader reader(body);
        stat.read(reader);
        if (!reader.ok()) throw std::runtime_error("bad SetDataResponse");
        record.zxid = stat.mzxid;
      }
    } else if (header.err == Error::kBadVersion && record.kind == check::RegisterOpKind::kCas) {
      record.outcome = check::Outcome::kFailed;
    } else {
      throw std::runtime_error("client " + std::to_string(c.index) + ": " + record.key + " got " +
                               std::string(zk::wire::error_name(header.err)));
    }
  }

  // After the heal: every acknowledged ephemeral is looked at; it must be
  // there exactly while its session lives.
  void final_look() {
    SimClient looker;
    looker.index = -1;
    connect(looker);
    settle();
    read_inbox(looker);
    for (size_t record : acknowledged_ephemerals_) {
      const Ephemeral& e = ephemerals_[record];
      looker.connection->sent.clear();
      looker.connection->receive(zk::wire::encode(zk::wire::RequestHeader{1, OpCode::kExists}) +
                                 zk::wire::encode(zk::wire::PathWatchRequest{e.path, false}));
      settle();
      if (looker.connection->sent.empty()) throw std::runtime_error("no answer to exists");
      zk::wire::ReplyHeader header;
      zk::wire::decode(looker.connection->sent.front(), header);
      const bool ended = std::find(ended_sessions_.begin(), ended_sessions_.end(), e.session) !=
                         ended_sessions_.end();
      history_.ephemerals.push_back(
          check::EphemeralRecord{e.path, e.session, ended, header.err == Error::kOk});
    }
  }

  ServerSimOptions options_;
  SimEnsemble ensemble_;
  std::vector<NodeFaults> faults_;  // by node
  std::mt19937_64 random_;
  std::vector<SimClient> clients_;
  int step_ = 0;
  int64_t values_ = 0;
  std::vector<Ephemeral> ephemerals_;
  std::vector<size_t> acknowledged_ephemerals_;
  std::vector<int64_t> ended_sessions_;
  check::History history_;
  ServerSimStats stats_;
};

}  // namespace

ServerSimResult run_server_sim(const ServerSimOptions& options) {
  // The server's log lines are the simulation's noise; failures say what
  // they need.
  zkd::net::set_log_sink([](zkd::net::LogLevel, std::string_view) {});
  ServerSimResult result = ServerSim(options).run();
  zkd::net::set_log_sink(nullptr);
  return result;
}

}  // namespace zk::sim
