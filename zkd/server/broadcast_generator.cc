// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/broadcast_generator.h"

#include <chrono>
#include <utility>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "zkd/server/replica_host.h"
#include "zkd/tree/data_tree.h"

namespace zkd::server {
namespace {

admin::BroadcastBench::Result failed(int64_t applied, std::string why) {
  admin::BroadcastBench::Result result;
  result.count = applied;
  result.error = std::move(why);
  return result;
}

}  // namespace

BroadcastGenerator::BroadcastGenerator(Parts parts)
    : db_(parts.db), writes_(parts.writes), clock_(parts.clock), timer_(std::move(parts.timer)) {}

void BroadcastGenerator::stop() {
  timer_->cancel();
  active_.reset();
}

std::string BroadcastGenerator::cannot_make(int64_t session) const {
  if (const ReplicaHost* host = writes_.host();
      host != nullptr && (host->status().role != zab::Role::kLeading || !host->status().serving)) {
    return "this server is not the serving leader: ask the leader";
  }
  if (!db_.session_exists(session)) return "no open session " + std::to_string(session);
  return {};
}

void BroadcastGenerator::broadcast(Run run, std::function<void(Result)> done) {
  std::string why = active_ ? "a broadcast run is under way" : cannot_make(run.session);
  if (why.empty() && db_.tree().find(run.path) == nullptr) why = "no znode " + run.path;
  if (!why.empty()) {
    done(failed(0, std::move(why)));
    return;
  }
  zk::wire::SetDataRequest set;
  set.path = run.path;
  set.data = std::string(static_cast<size_t>(run.bytes), 'x');
  std::string body;
  zk::wire::Writer writer(body);
  set.write(writer);
  const int64_t now = clock_.steady_us();
  active_.emplace();
  active_->run = std::move(run);
  active_->done = std::move(done);
  active_->request_body = std::move(body);
  active_->start_version = db_.tree().find(set.path)->stat().version;
  active_->started_us = now;
  active_->progress_us = now;
  turn();
}

void BroadcastGenerator::turn() {
  Active& a = *active_;
  const tree::Node* node = db_.tree().find(a.run.path);
  if (node == nullptr) {
    finish(failed(a.applied, "the znode " + a.run.path + " was deleted"));
    return;
  }
  const int64_t now = clock_.steady_us();
  const int64_t applied = static_cast<int64_t>(node->stat().version) - a.start_version;
  if (applied > a.applied) {
    a.applied = applied;
    a.progress_us = now;
  }
  if (a.applied >= a.run.count) {
    Result done;
    done.count = a.applied;
    done.elapsed_us = now - a.started_us;
    done.last_zxid = node->stat().mzxid;
    finish(std::move(done));
    return;
  }
  std::string why = cannot_make(a.run.session);
  if (why.empty() && now - a.progress_us > kStallUs) why = "none applied for 10 s";
  if (!why.empty()) {
    finish(failed(a.applied, "stopped after " + std::to_string(a.applied) + " txns: " + why));
    return;
  }
  while (a.submitted < a.run.count && a.submitted - a.applied < a.run.in_flight) {
    WriteRequest request;
    request.session = a.run.session;
    request.op = zk::wire::OpCode::kSetData;
    request.body = a.request_body;
    PendingWrite write;
    write.kind = PendingWrite::Kind::kExpiry;  // the server's own: nobody to answer
    write.op = zk::wire::OpCode::kSetData;
    write.started_ms = now / 1000;
    writes_.submit(Pipeline::kNoConnection, std::move(write), request);
    ++a.submitted;
  }
  timer_->arm(std::chrono::milliseconds(1), [this] { turn(); });
}

void BroadcastGenerator::finish(Result result) {
  timer_->cancel();
  auto done = std::move(active_->done);
  active_.reset();
  done(std::move(result));
}

}  // namespace zkd::server
