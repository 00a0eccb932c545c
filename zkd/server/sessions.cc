// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/sessions.h"

#include <chrono>

#include "zkd/log/log.h"

namespace zkd::server {

using net::hex;
using net::log_info;

SessionsOptions sessions_options(const ServerConfig& config) {
  return SessionsOptions{
      .tick_time_ms = config.tick_time_ms,
      .max_session_timeout_ms = config.max_session_timeout_ms,
      .replicated = config.replicated(),
      .my_id = config.my_id,
      .containers = {.check_interval_ms = config.container_check_interval_ms,
                     .max_per_minute = config.container_max_per_minute,
                     .max_never_used_ms = config.container_max_never_used_interval_ms},
  };
}

Sessions::Sessions(boost::asio::io_context& io, storage::Env& env, const SessionsOptions& options,
                   tree::Database& db, ClientRegistry& clients, WritePath& writes,
                   std::function<bool()> decides)
    : clock_(env.clock()),
      options_(options),
      db_(db),
      clients_(clients),
      writes_(writes),
      decides_(std::move(decides)),
      tracker_(options.tick_time_ms),
      ids_(options.replicated ? static_cast<uint8_t>(options.my_id) : 1, clock_.steady_ms()),
      passwords_(SessionPasswords::random_key([&env] { return env.secure_random(); })),
      containers_(options.containers),
      tick_timer_(env.new_timer(io)),
      container_timer_(env.new_timer(io)) {}

void Sessions::start() {
  repeat(*tick_timer_, std::chrono::milliseconds(options_.tick_time_ms), &Sessions::expire_due);
  repeat(*container_timer_, containers_.check_interval(), &Sessions::check_containers);
}

void Sessions::repeat(storage::Timer& timer, std::chrono::milliseconds period,
                      void (Sessions::*action)()) {
  if (stopped_) return;
  timer.arm(period, [this, &timer, period, action] {
    (this->*action)();
    repeat(timer, period, action);
  });
}

void Sessions::stop() {
  stopped_ = true;
  tick_timer_->cancel();
  container_timer_->cancel();
}

Sessions::SessionId Sessions::new_id() {
  SessionId session = ids_.next();
  // Ids restored from disk were drawn by an earlier process.
  while (db_.session_exists(session)) session = ids_.next();
  return session;
}

bool Sessions::alive(SessionId session) const {
  return tracker_.contains(session) && db_.session_exists(session);
}

void Sessions::used(SessionId session, int32_t timeout_ms, int64_t now_ms) {
  tracker_.touch(session, now_ms);
  if (options_.replicated) used_[session] = timeout_ms;
}

void Sessions::resumed(SessionId session, int32_t timeout_ms, int64_t now_ms) {
  tracker_.touch(session, timeout_ms, now_ms);
  if (options_.replicated) used_[session] = timeout_ms;
}

void Sessions::track(SessionId session, int32_t timeout_ms, int64_t now_ms) {
  tracker_.touch(session, timeout_ms, now_ms);
}

void Sessions::touch_all(int64_t now_ms) {
  for (SessionId session : db_.sessions()) {
    tracker_.touch(session, db_.session_timeout(session).value_or(options_.max_session_timeout_ms),
                   now_ms);
  }
}

void Sessions::state_replaced(int64_t now_ms) {
  for (const auto& [expiry, sessions] : tracker_.buckets()) {
    for (SessionId session : sessions) {
      if (!db_.session_exists(session)) forget(session);
    }
  }
  used_.clear();
  touch_all(now_ms);
}

void Sessions::forget(SessionId session) {
  tracker_.remove(session);
  used_.erase(session);
}

Sessions::Touches Sessions::take_used() {
  Touches touches(used_.begin(), used_.end());
  used_.clear();
  return touches;
}

void Sessions::expire_due() {
  if (!decides_()) return;
  for (SessionId session : tracker_.expire(clock_.steady_ms())) {
    log_info("session ", hex(session), " expired");
    ++clients_.metrics().stale_sessions_expired;
    end(session);
  }
}

void Sessions::end(SessionId session) {
  tracker_.remove(session);
  // The session's own connection gets no frame (§2.4): close it before the
  // closeSession txn fires watches.
  if (ClientState* owner = clients_.owner(session)) ClientRegistry::close(*owner);
  clients_.unbind(session);
  if (db_.session_exists(session)) {
    WriteRequest close;
    close.kind = WriteRequest::Kind::kCloseSession;
    close.session = session;
    PendingWrite write;
    write.kind = PendingWrite::Kind::kExpiry;
    write.op = zk::wire::OpCode::kCloseSession;
    write.started_ms = clock_.steady_ms();
    writes_.submit(Pipeline::kNoConnection, std::move(write), close);
  }
}

void Sessions::check_containers() {
  if (!decides_()) return;
  std::vector<std::string> due = containers_.admit(
      db_.sweep_candidates(clock_.wall_ms(), containers_.max_never_used_ms()), clock_.steady_ms());
  for (std::string& path : due) {
    log_info("deleting container or expired TTL node ", path);
    WriteRequest request;  // Apache's: session 0, the path's bytes as the body
    request.op = zk::wire::OpCode::kDeleteContainer;
    request.body = std::move(path);
    PendingWrite write;
    write.kind = PendingWrite::Kind::kExpiry;
    write.op = zk::wire::OpCode::kDeleteContainer;
    write.started_ms = clock_.steady_ms();
    writes_.submit(Pipeline::kNoConnection, std::move(write), request);
  }
}

}  // namespace zkd::server
