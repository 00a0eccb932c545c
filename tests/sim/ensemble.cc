// SPDX-License-Identifier: Apache-2.0
#include "tests/sim/ensemble.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "libzk/wire/records.h"
#include "zkd/failpoint/failpoint.h"
#include "zkd/server/write_request.h"

namespace zk::sim {

using zkd::zab::ServerId;

namespace {

// A replica died at an armed failpoint (thrown by the crash handler).
struct DiedAtFailpoint {};

[[noreturn]] void throw_died(const zkd::failpoint::Point&) { throw DiedAtFailpoint{}; }

zkd::zab::Config config_for(size_t voters, size_t commit_window) {
  zkd::zab::Config c;
  c.finalize_ticks = 1;
  c.vote_resend_ticks = 2;
  c.init_limit = 10;
  c.sync_limit = 5;
  c.commit_window = commit_window;
  for (size_t i = 1; i <= voters; ++i) c.voters.push_back(static_cast<ServerId>(i));
  return c;
}

}  // namespace

Ensemble::Ensemble(size_t voters, size_t commit_window)
    : verbose_(std::getenv("ZK_ENSEMBLE_VERBOSE") != nullptr) {
  zkd::failpoint::disarm_all();
  zkd::failpoint::set_crash_handler(throw_died);
  for (size_t i = 1; i <= voters; ++i) {
    zkd::zab::Config c = config_for(voters, commit_window);
    c.id = static_cast<ServerId>(i);
    replicas_.push_back(std::make_unique<SimReplica>(std::move(c), *this));
  }
}

Ensemble::~Ensemble() {
  zkd::failpoint::disarm_all();
  zkd::failpoint::set_crash_handler(nullptr);
}

void Ensemble::start(ServerId id) {
  event(std::to_string(id) + " start");
  input(id, [&] {
    SimReplica& r = replica(id);
    r.start(++starts_[id]);
    r.host().start();
  });
}

void Ensemble::crash(ServerId id) {
  event(std::to_string(id) + " crash, durable " +
        zkd::zab::zxid_string(replica(id).disk().durable));
  replica(id).crash();
  for (auto& [link, queue] : queues_) {
    if (link.first == id || link.second == id) queue.clear();
  }
}

void Ensemble::cut(ServerId a, ServerId b) {
  cut_.insert({a, b});
  cut_.insert({b, a});
  queues_[{a, b}].clear();
  queues_[{b, a}].clear();
}

void Ensemble::reconnect(ServerId a, ServerId b) {
  cut_.erase({a, b});
  cut_.erase({b, a});
}

void Ensemble::isolate(ServerId id) {
  for (const auto& r : replicas_) {
    if (r->id() != id) cut(id, r->id());
  }
}

void Ensemble::reconnect_all() { cut_.clear(); }

void Ensemble::hold_syncs(ServerId id, bool held) {
  if (held) {
    held_.insert(id);
  } else {
    held_.erase(id);
  }
}

void Ensemble::sync(ServerId id) {
  input(id, [&] { replica(id).sync(); });
}

bool Ensemble::arm(const std::string& spec) { return zkd::failpoint::arm(spec).empty(); }

std::optional<ServerId> Ensemble::died() { return std::exchange(died_, std::nullopt); }

void Ensemble::input(ServerId id, const std::function<void()>& f) {
  SimReplica& r = replica(id);
  try {
    f();
    while (r.up() && r.unsynced() && !held_.contains(id)) r.sync();
  } catch (const DiedAtFailpoint&) {
    zkd::failpoint::disarm_all();
    died_ = id;
    crash(id);
    event(std::to_string(id) + " died at a failpoint");
  }
}

bool Ensemble::connected(ServerId a, ServerId b) const {
  return !cut_.contains({a, b}) && replicas_.at(b - 1)->up() && replicas_.at(a - 1)->up();
}

void Ensemble::event(const std::string& line) {
  if (verbose_) std::fprintf(stderr, "t%lld %s\n", static_cast<long long>(ticks_), line.c_str());
}

void Ensemble::status_changed(SimReplica& r, const zkd::zab::Status& now) {
  event(std::to_string(r.id()) + ": " + zkd::zab::to_string(now.role) +
        " leader=" + std::to_string(now.leader) + " epoch=" + std::to_string(now.epoch) +
        (now.serving ? " serving" : ""));
}

void Ensemble::send(SimReplica& r, zkd::zab::Message m, std::string attachment) {
  if (m.type != zkd::zab::MsgType::kPing) {
    event(std::to_string(r.id()) + "->" + std::to_string(m.to) + " " + zkd::zab::describe(m) +
          (connected(r.id(), m.to) ? "" : " (lost)"));
  }
  if (!connected(r.id(), m.to)) return;
  queues_[{r.id(), m.to}].push_back(InFlight{std::move(m), std::move(attachment)});
}

uint64_t Ensemble::queued_bytes(SimReplica& r, zkd::zab::ServerId peer) {
  uint64_t bytes = 0;
  for (const InFlight& f : queues_[{r.id(), peer}]) bytes += f.attachment.size();
  return bytes;
}

void Ensemble::failed(SimReplica& r, const std::string& why) {
  if (failure_.empty()) failure_ = std::to_string(r.id()) + ": " + why;
}

bool Ensemble::deliver() {
  bool any = false;
  for (bool more = true; more;) {
    more = false;
    for (auto& [link, queue] : queues_) {
      while (!queue.empty()) {
        InFlight f = std::move(queue.front());
        queue.pop_front();
        if (!connected(link.first, link.second)) continue;
        input(link.second, [&] {
          replica(link.second).host().receive(std::move(f.m), std::move(f.attachment));
        });
        more = any = true;
      }
    }
  }
  return any;
}

bool Ensemble::run_until(const std::function<bool()>& done, int max_ticks) {
  for (int t = 0; t <= max_ticks; ++t) {
    deliver();
    if (done()) return true;
    ++ticks_;
    for (auto& r : replicas_) {
      if (r->up()) input(r->id(), [&] { r->host().tick(); });
    }
  }
  deliver();
  return done();
}

bool Ensemble::serving(ServerId id) const {
  const SimReplica& r = *replicas_.at(id - 1);
  return r.up() && r.status().serving;
}

std::optional<ServerId> Ensemble::leader() const {
  for (const auto& r : replicas_) {
    if (r->up() && r->status().serving && r->status().role == zkd::zab::Role::kLeading) {
      return r->id();
    }
  }
  return std::nullopt;
}

void Ensemble::create(ServerId via, const std::string& path, const std::string& data) {
  if (!session_created_) {
    // The client's session: created through the replicas like any write.
    zkd::server::WriteRequest session;
    session.kind = zkd::server::WriteRequest::Kind::kCreateSession;
    session.session = kSession;
    session.timeout_ms = 30000;
    input(via, [&] { replica(via).host().write(session); });
    session_created_ = true;
  }
  zkd::server::WriteRequest w;
  w.kind = zkd::server::WriteRequest::Kind::kOp;
  w.session = kSession;
  w.xid = next_xid_++;
  w.op = zk::wire::OpCode::kCreate;
  w.body = zk::wire::encode(zk::wire::CreateRequest{path, data, zk::wire::open_acl_unsafe(), 0});
  input(via, [&] { replica(via).host().write(w); });
}

bool Ensemble::has(ServerId id, const std::string& path) {
  const std::string request = zk::wire::encode(zk::wire::PathWatchRequest{path, false});
  return replica(id).db().read(0, zk::wire::OpCode::kExists, request).err == zk::wire::Error::kOk;
}

zkd::zab::Zxid Ensemble::applied(ServerId id) const {
  return replicas_.at(id - 1)->db().last_zxid();
}

}  // namespace zk::sim
