// SPDX-License-Identifier: Apache-2.0
#include "tests/sim/server_sim.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "tests/common/run_until.h"
#include "zkd/net/client_connection.h"
#include "zkd/log/log.h"
#include "zkd/server/config.h"
#include "zkd/server/server.h"
#include "zkd/storage/memory_env.h"
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

// A client connection without a socket: frames the server sends wait in
// `inbox` (payloads, without the length) until the client reads them;
// close() tells the server's handler once, on the state thread, as a TCP
// connection does.
class SimConnection final : public zkd::net::ClientConnection {
 public:
  SimConnection(boost::asio::io_context& io, zkd::net::ConnectionHandler& handler,
                zkd::net::ConnectionId id)
      : ClientConnection(id, {boost::asio::ip::make_address("127.0.0.1"),
                              static_cast<uint16_t>(10000 + id % 50000)}),
        io_(io),
        handler_(handler) {}

  void send(std::string bytes) override {
    if (!open_) return;
    ++packets_sent_;
    inbox.push_back(bytes.substr(4));
  }
  void close_after_flush() override { close(); }
  void close() override {
    if (!open_) return;
    open_ = false;
    boost::asio::post(io_, [self = shared_from_this(), this] { handler_.closed(*this); });
  }
  void mark_established() override {}
  void hold_handshake(milliseconds, std::string) override {}
  void resume_reading() override {}
  bool secure() const override { return false; }
  const std::string& peer_certificate_subject() const override { return subject_; }
  bool accepting_sends() const override { return open_; }
  size_t queued() const override { return 0; }

  void receive(const std::string& payload) {
    if (!open_) return;
    ++packets_received_;
    handler_.frame(*this, payload);
  }

  std::deque<std::string> inbox;

 private:
  boost::asio::io_context& io_;
  zkd::net::ConnectionHandler& handler_;
  bool open_ = true;
  std::string subject_;
};

// The request a client has in flight (one at a time, as zklab check's).
struct InFlight {
  enum class Kind { kRegister, kEphemeral, kWatch, kPing } kind = Kind::kPing;
  int32_t xid = 0;
  size_t record = 0;  // kRegister: history.registers; kEphemeral: ephemerals_
};

struct SimClient {
  int index = 0;
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

class ServerSim {
 public:
  explicit ServerSim(const ServerSimOptions& options)
      : options_(options), env_(options.seed), random_(options.seed) {
    auto parsed = zkd::server::parse_config(
        "tickTime=100\ndataDir=/data\nclientPort=2181\nadmin.enableServer=false\n"
        "snapCount=40\nautopurge.snapRetainCount=3\npreAllocSize=64\n",
        "zoo.cfg");
    if (!parsed.config) throw std::runtime_error("zoo.cfg: " + parsed.error);
    config_ = *parsed.config;
    clients_.resize(static_cast<size_t>(options.clients));
    for (size_t i = 0; i < clients_.size(); ++i) clients_[i].index = static_cast<int>(i);
  }

  ServerSimResult run() {
    ServerSimResult result;
    try {
      start_server();
      create_registers();
      for (step_ = 0; step_ < options_.steps + kHealSteps; ++step_) {
        const bool faults = step_ < options_.steps;
        if (faults && chance(1, 150)) crash_and_restart();
        for (size_t i : shuffled_clients()) step_client(clients_[i], faults);
        env_.time().advance(milliseconds(1));
        settle();
        for (SimClient& c : clients_) read_inbox(c);
        env_.time().advance(kStep - milliseconds(1));
        settle();
        for (SimClient& c : clients_) read_inbox(c);
      }
      final_look();
      check::Verdict verdict = check::check_history(history_);
      stats_.histories_checked = static_cast<int64_t>(clients_.size());
      stats_.operations = static_cast<int64_t>(history_.registers.size());
      stats_.watch_events = static_cast<int64_t>(history_.watch_events.size());
      if (!verdict.ok()) {
        result.ok = false;
        for (const check::Violation& v : verdict.violations) {
          result.failure += v.kind + ": " + v.what + "\n";
        }
      }
    } catch (const std::exception& e) {
      result.ok = false;
      result.failure = std::string(e.what()) + " (at step " + std::to_string(step_) + ")\n";
    }
    if (server_) {
      server_->stop();
      io_.poll();
    }
    if (!result.ok) result.failure += "replay: ZK_SIM_SEED=" + std::to_string(options_.seed);
    result.stats = stats_;
    return result;
  }

 private:
  bool chance(int in, int of) { return std::uniform_int_distribution<int>(1, of)(random_) <= in; }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  void trace(const std::string& line) {
    if (options_.verbose) std::fprintf(stderr, "[%d] %s\n", step_, line.c_str());
  }
  int64_t now_ns() { return env_.clock().steady_us() * 1000; }

  std::vector<size_t> shuffled_clients() {
    std::vector<size_t> order(clients_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random_);
    return order;
  }

  void start_server() {
    server_.emplace(io_, config_, env_, random_());
    if (auto status = server_->open_storage(); !status.ok()) {
      throw std::runtime_error("the server did not recover: " + status.message());
    }
    if (auto ec = server_->start(zkd::server::Server::Listeners::kNone)) {
      throw std::runtime_error("the server did not start: " + ec.message());
    }
  }

  // The server crashes: what it had not synced is lost; every connection
  // ends, and what was in flight on it has an unknown outcome.
  void crash_and_restart() {
    trace("crash and restart");
    ++stats_.restarts;
    server_->stop();
    io_.poll();
    server_.reset();
    env_.drop_unsynced();
    for (SimClient& c : clients_) lose_connection(c);
    start_server();
  }

  // Runs the state thread until nothing is left to do now: every write the
  // log thread took has come back (a bound of real time: a failure).
  void settle() {
    const bool settled = zk::test::run_until(io_, [&] {
      while (io_.poll() > 0) {
      }
      return server_->writes_pending() == 0;
    });
    if (!settled) throw std::runtime_error("the server did not settle");
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
    if (setup.connection->inbox.size() != static_cast<size_t>(kRegisters)) {
      throw std::runtime_error("the registers were not created");
    }
    for (const std::string& frame : setup.connection->inbox) {
      zk::wire::ReplyHeader header;
      if (!zk::wire::decode(frame, header) || header.err != Error::kOk) {
        throw std::runtime_error("a register was not created");
      }
    }
    setup.connection->close();
    settle();
  }

  void connect(SimClient& c) {
    c.connection = std::make_shared<SimConnection>(io_, server_->client_handler(), ++ids_);
    ++c.connections;
    server_->client_handler().opened(c.connection);
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
      send(c, InFlight{InFlight::Kind::kWatch, c.next_xid++, 0}, OpCode::kAddWatch,
           zk::wire::encode(watch));
    } else if (!c.has_ephemeral) {
      create_ephemeral(c);
    } else if (chance(2, 3)) {
      register_op(c);
    } else if (step_ - c.last_sent >= kPingEverySteps) {
      send(c, InFlight{InFlight::Kind::kPing, zk::wire::kPingXid, 0}, OpCode::kPing, "");
    }
  }

  void send(SimClient& c, InFlight op, OpCode code, const std::string& body) {
    c.in_flight = op;
    c.last_sent = step_;
    c.connection->receive(zk::wire::encode(zk::wire::RequestHeader{op.xid, code}) + body);
  }

  void create_ephemeral(SimClient& c) {
    zk::wire::CreateRequest create;
    create.path = "/e-" + std::to_string(c.index) + "-" + std::to_string(ephemerals_.size());
    create.acl = zk::wire::open_acl_unsafe();
    create.flags = 1;
    ephemerals_.push_back(Ephemeral{create.path, c.session, c.index});
    c.has_ephemeral = true;
    send(c, InFlight{InFlight::Kind::kEphemeral, c.next_xid++, ephemerals_.size() - 1},
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
    history_.registers.push_back(op);
    send(c, InFlight{InFlight::Kind::kRegister, c.next_xid++, history_.registers.size() - 1}, code,
         body);
  }

  // Takes every frame the client was sent, in order.
  void read_inbox(SimClient& c) {
    while (c.connection && !c.connection->inbox.empty()) {
      std::string frame = std::move(c.connection->inbox.front());
      c.connection->inbox.pop_front();
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
      looker.connection->inbox.clear();
      looker.connection->receive(zk::wire::encode(zk::wire::RequestHeader{1, OpCode::kExists}) +
                                 zk::wire::encode(zk::wire::PathWatchRequest{e.path, false}));
      settle();
      if (looker.connection->inbox.empty()) throw std::runtime_error("no answer to exists");
      zk::wire::ReplyHeader header;
      zk::wire::decode(looker.connection->inbox.front(), header);
      const bool ended = std::find(ended_sessions_.begin(), ended_sessions_.end(), e.session) !=
                         ended_sessions_.end();
      history_.ephemerals.push_back(
          check::EphemeralRecord{e.path, e.session, ended, header.err == Error::kOk});
    }
  }

  ServerSimOptions options_;
  boost::asio::io_context io_;
  // While the simulation runs, waiting for the log thread's answer blocks
  // instead of finding the io_context out of work.
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  zkd::storage::MemoryEnv env_;
  std::mt19937_64 random_;
  zkd::server::ServerConfig config_;
  std::optional<zkd::server::Server> server_;
  std::vector<SimClient> clients_;
  zkd::net::ConnectionId ids_ = 0;
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
