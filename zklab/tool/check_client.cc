// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/check_client.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <thread>

#include "toolkit/poll_until.h"
#include "zklab/tool/check_call.h"

namespace zk::lab::check {

namespace {

using Clock = std::chrono::steady_clock;
using zk::client::SessionState;
using zk::wire::CreateMode;
using zk::wire::Error;

// Between two looks at the session state while it reconnects, and between
// two attempts to open a session.
constexpr auto kPollInterval = std::chrono::milliseconds(10);
constexpr auto kRetryInterval = std::chrono::milliseconds(100);
// Values written are id * kValueBase + a counter of the client.
constexpr int64_t kValueBase = 1'000'000'000;

// The decimal integer a register holds; -1 (a value no one writes) for
// anything else, so that a corrupt read shows up as a violation.
int64_t parse_value(const zk::wire::Buffer& data) {
  if (!data || data->empty()) return -1;
  int64_t v = 0;
  const char* end = data->data() + data->size();
  auto [at, ec] = std::from_chars(data->data(), end, v);
  return ec == std::errc() && at == end ? v : -1;
}

std::chrono::milliseconds left(Clock::time_point until) {
  return std::max(std::chrono::milliseconds(1),
                  std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()));
}

bool terminal(SessionState s) {
  return s == SessionState::kExpired || s == SessionState::kClosed ||
         s == SessionState::kAuthFailed;
}

}  // namespace

struct CheckClient::Answer {
  bool timed_out = false;  // no answer within the deadline
  Error error = Error::kOk;

  template <typename R>
  static Answer of(const std::optional<R>& r) {
    if (!r) return {true, Error::kOk};
    return {false, r->error()};
  }
  bool ok() const { return !timed_out && error == Error::kOk; }
  // The request definitely did not take effect.
  bool refused() const {
    return !timed_out && (error == Error::kBadVersion || error == Error::kNoNode);
  }
  Outcome outcome() const {
    return ok() ? Outcome::kOk : refused() ? Outcome::kFailed : Outcome::kUnknown;
  }
};

std::string sequential_bucket(const CheckPaths& paths, int64_t bucket) {
  char name[32];
  std::snprintf(name, sizeof name, "/b%06lld", static_cast<long long>(bucket));
  return paths.sequential + name;
}

int64_t bucket_size_for(int32_t max_reply_bytes) {
  constexpr int64_t kBytesPerChild = 16;  // length and "s-" and 10 digits
  return std::clamp<int64_t>(max_reply_bytes / 2 / kBytesPerChild, 64, 16384);
}

int64_t parse_sequence(const std::string& path) {
  constexpr size_t kDigits = 10;
  if (path.size() < kDigits) return -1;
  int64_t v = 0;
  const char* begin = path.data() + path.size() - kDigits;
  auto [at, ec] = std::from_chars(begin, path.data() + path.size(), v);
  return ec == std::errc() && at == path.data() + path.size() ? v : -1;
}

CheckClient::CheckClient(int slot, CheckPaths paths, ClientSettings settings, ClientIds& ids,
                         uint64_t seed)
    : slot_(slot),
      paths_(std::move(paths)),
      settings_(std::move(settings)),
      ids_(ids),
      rng_(seed),
      bucket_size_(bucket_size_for(settings_.max_reply_bytes)) {}

CheckClient::~CheckClient() = default;

void CheckClient::run(const std::atomic<bool>& stop, std::optional<Clock::time_point> abandon_at) {
  std::uniform_int_distribution<size_t> pick_key(0, paths_.registers.size() - 1);
  std::uniform_int_distribution<int> pick_op(0, 3);
  while (!stop.load()) {
    if (abandon_at && Clock::now() >= *abandon_at && session_) {
      abandon();
      ++abandoned_on_purpose_;
      abandon_at.reset();
    }
    if (!session_) {
      if (!open_session() && !stop.load()) std::this_thread::sleep_for(kRetryInterval);
      continue;
    }
    const std::string& key = paths_.registers[pick_key(rng_)];
    switch (pick_op(rng_)) {
      case 0:
        read(key);
        break;
      case 1:
        write(key);
        break;
      case 2:
        cas(key);
        break;
      default:
        create();
        break;
    }
  }
}

bool CheckClient::open_session() {
  zk::client::ClientOptions options;
  options.shuffle_hosts = false;
  options.max_reply_bytes = settings_.max_reply_bytes;
  toolkit::apply_client_security(settings_.security, options);
  auto client = std::make_unique<zk::client::SyncClient>(options);
  if (!client->connect(settings_.connect_string, settings_.session_timeout,
                       settings_.request_deadline)) {
    return false;
  }
  session_ = std::move(client);
  ++sessions_opened_;
  client_id_ = ids_.next();
  char id[32];
  std::snprintf(id, sizeof id, "%llx", static_cast<unsigned long long>(session_->session_id()));
  EphemeralRecord record;
  record.path = paths_.ephemeral + "/c" + std::to_string(slot_) + "-" + id;
  record.session_id = session_->session_id();
  ephemerals_.push_back(record);
  holds_ephemeral_ = true;
  auto created =
      call_for(*session_,
               session_->async_client().create(record.path, std::string(), CreateMode::kEphemeral),
               settings_.request_deadline);
  const Answer answer = Answer::of(created);
  if (answer.ok() || (!answer.timed_out && answer.error == Error::kNodeExists)) return true;
  if (answer.error == Error::kSessionExpired) {
    end_expired();
  } else {
    // The node may or may not be there: give the session up, so that it
    // must be gone at the end either way.
    abandon();
  }
  return false;
}

void CheckClient::read(const std::string& key) {
  RegisterOp op = new_op(key, RegisterOpKind::kRead);
  const auto until = Clock::now() + settings_.request_deadline;
  op.invoke_ns = steady_now_ns();
  Answer answer = Answer::of(call_for(*session_, session_->async_client().sync(key), left(until)));
  if (answer.ok()) {
    auto data = call_for(*session_, session_->async_client().get_data(key), left(until));
    answer = Answer::of(data);
    if (answer.ok()) {
      op.complete_ns = steady_now_ns();
      op.value = parse_value((*data)->data);
      op.version = (*data)->stat.version;
    }
  }
  // A read that did not succeed changed nothing and told nothing.
  op.outcome = answer.ok() ? Outcome::kOk : Outcome::kUnknown;
  ops_.push_back(op);
  after(answer, op.outcome);
}

void CheckClient::write(const std::string& key) {
  RegisterOp op = new_op(key, RegisterOpKind::kWrite);
  op.value = next_value();
  op.invoke_ns = steady_now_ns();
  auto set =
      call_for(*session_, session_->async_client().set_data(key, std::to_string(op.value), -1),
               settings_.request_deadline);
  const Answer answer = Answer::of(set);
  if (answer.outcome() != Outcome::kUnknown) op.complete_ns = steady_now_ns();
  op.outcome = answer.outcome();
  if (op.outcome == Outcome::kOk) op.zxid = (*set)->mzxid;
  ops_.push_back(op);
  after(answer, op.outcome);
}

void CheckClient::cas(const std::string& key) {
  // The version to expect: a plain read, not part of the history.
  auto data =
      call_for(*session_, session_->async_client().get_data(key), settings_.request_deadline);
  const Answer read = Answer::of(data);
  if (!read.ok()) {
    after(read, Outcome::kFailed);  // no operation of the history is open: the id stays
    return;
  }
  RegisterOp op = new_op(key, RegisterOpKind::kCas);
  op.value = next_value();
  op.version = (*data)->stat.version;
  op.invoke_ns = steady_now_ns();
  auto set = call_for(*session_,
                      session_->async_client().set_data(key, std::to_string(op.value), op.version),
                      settings_.request_deadline);
  const Answer answer = Answer::of(set);
  if (answer.outcome() != Outcome::kUnknown) op.complete_ns = steady_now_ns();
  op.outcome = answer.outcome();
  if (op.outcome == Outcome::kOk) op.zxid = (*set)->mzxid;
  ops_.push_back(op);
  after(answer, op.outcome);
}

void CheckClient::create() {
  SequentialCreate op;
  op.client = client_id_;
  op.parent = sequential_bucket(paths_, bucket_);
  op.invoke_ns = steady_now_ns();
  auto created = call_for(*session_,
                          session_->async_client().create(op.parent + "/s-", std::string(),
                                                          CreateMode::kPersistentSequential),
                          settings_.request_deadline);
  const Answer answer = Answer::of(created);
  if (answer.ok()) {
    op.complete_ns = steady_now_ns();
    op.sequence = parse_sequence(**created);
    if (op.sequence >= bucket_size_) ++bucket_;
  }
  op.outcome = answer.outcome();
  if (op.outcome == Outcome::kFailed) op.complete_ns = steady_now_ns();
  creates_.push_back(op);
  if (!answer.timed_out && answer.error == Error::kNoNode) {
    // The bucket is not there yet: make it (another client may have).
    const Answer made =
        Answer::of(call_for(*session_, session_->async_client().create(op.parent, std::string()),
                            settings_.request_deadline));
    if (!made.ok() && !(!made.timed_out && made.error == Error::kNodeExists)) {
      after(made, Outcome::kFailed);  // not part of the history: the id stays
    }
    return;
  }
  after(answer, op.outcome);
}

void CheckClient::after(const Answer& answer, Outcome outcome) {
  if (outcome == Outcome::kUnknown) client_id_ = ids_.next();
  if (answer.timed_out) {
    abandon();
  } else if (answer.error == Error::kSessionExpired ||
             session_->state() == SessionState::kExpired) {
    end_expired();
  } else if (terminal(session_->state())) {
    abandon();
  } else if (answer.error == Error::kConnectionLoss) {
    wait_connected();
  }
}

void CheckClient::wait_connected() {
  toolkit::poll_until([&] { return session_->state() != SessionState::kDisconnected; },
                      settings_.request_deadline, kPollInterval);
  if (session_->state() == SessionState::kExpired) end_expired();
}

SessionCheck CheckClient::check_session() {
  if (!session_) return SessionCheck::kUnknown;
  const Answer answer = Answer::of(
      call_for(*session_, session_->async_client().sync(paths_.root), settings_.request_deadline));
  if (answer.ok()) return SessionCheck::kAlive;
  if (!answer.timed_out && answer.error == Error::kSessionExpired) return SessionCheck::kExpired;
  return SessionCheck::kUnknown;
}

void CheckClient::end_expired() {
  if (!session_) return;
  drop_session();
  ++sessions_expired_;
}

void CheckClient::abandon() {
  if (!session_) return;
  abandoned_timeout_ = std::max(abandoned_timeout_, session_->negotiated_timeout());
  drop_session();
  last_abandoned_ns_ = steady_now_ns();
  ++sessions_abandoned_;
}

void CheckClient::drop_session() {
  session_.reset();  // no closeSession
  if (holds_ephemeral_) ephemerals_.back().session_ended = true;
  holds_ephemeral_ = false;
}

void CheckClient::forget_ephemeral() {
  if (holds_ephemeral_) ephemerals_.pop_back();
  holds_ephemeral_ = false;
}

void CheckClient::close() {
  if (!session_) return;
  (void)call_for(*session_, session_->async_client().close(), settings_.request_deadline);
  session_.reset();
  holds_ephemeral_ = false;
}

RegisterOp CheckClient::new_op(const std::string& key, RegisterOpKind kind) const {
  RegisterOp op;
  op.client = client_id_;
  op.key = key;
  op.kind = kind;
  return op;
}

int64_t CheckClient::next_value() { return int64_t{client_id_} * kValueBase + ++counter_; }

}  // namespace zk::lab::check
