// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/check_workload.h"

#include <algorithm>
#include <charconv>
#include <thread>

#include "toolkit/poll_until.h"
#include "zklab/tool/check_call.h"
#include "zklab/tool/check_cleanup.h"

namespace zk::lab::check {

namespace {

using Clock = std::chrono::steady_clock;
using zk::wire::CreateMode;
using zk::wire::Error;

// The session timeout the clients ask for, in ticks (the servers clamp it).
constexpr int kSessionTicks = 10;
// Beyond a session's timeout, before its expiry is sure to be applied: the
// expiry check runs once a tick, and the closeSession it proposes is
// committed and applied shortly after.
constexpr int kExpiryTicks = 2;
constexpr auto kExpirySlack = std::chrono::milliseconds(500);
// Sessions that delete the run's znodes in parallel.
constexpr size_t kCleanupSessions = 6;
constexpr auto kRetryInterval = std::chrono::milliseconds(100);

// The addresses of `nodes` starting with node `first` (0-based), comma separated.
std::string rotated_connect_string(const std::vector<LabNode>& nodes, size_t first) {
  std::string out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    out += (out.empty() ? "" : ",") + nodes[(first + i) % nodes.size()].address();
  }
  return out;
}

// Why a bounded call (call_for) did not succeed, for the report.
template <typename R>
std::string failure(const std::optional<R>& answer, const zk::client::SyncClient& client,
                    int32_t max_reply_bytes) {
  if (!answer) return "no answer in time";
  if (answer->error() == Error::kReplyTooLarge) {
    return "reply of " + std::to_string(client.refused_reply_bytes()) +
           " bytes exceeds the client's jute.maxbuffer (" + std::to_string(max_reply_bytes) + ")";
  }
  return std::string(zk::wire::error_name(answer->error()));
}

int64_t parse_int(const std::string& s, size_t from) {
  int64_t v = -1;
  if (from > s.size()) return -1;
  auto [at, ec] = std::from_chars(s.data() + from, s.data() + s.size(), v);
  return ec == std::errc() && at == s.data() + s.size() ? v : -1;
}

}  // namespace

CheckWorkload::CheckWorkload(std::vector<LabNode> nodes, WorkloadSettings settings)
    : nodes_(std::move(nodes)), settings_(std::move(settings)) {
  client_settings_.session_timeout = settings_.limits.clamp(kSessionTicks * settings_.limits.tick);
  client_settings_.request_deadline = std::max<std::chrono::milliseconds>(
      std::chrono::seconds(2), 2 * client_settings_.session_timeout);
  client_settings_.max_reply_bytes = settings_.max_reply_bytes;
  if (!nodes_.empty()) client_settings_.security = nodes_.front().client;
}

CheckWorkload::~CheckWorkload() { stop(); }

bool CheckWorkload::connect_own() {
  if (own_) return true;
  zk::client::ClientOptions options;
  toolkit::apply_client_security(client_settings_.security, options);
  options.max_reply_bytes = client_settings_.max_reply_bytes;
  auto client = std::make_unique<zk::client::SyncClient>(options);
  if (!client->connect(connect_string(nodes_), client_settings_.session_timeout,
                       settings_.deadline)) {
    return false;
  }
  own_ = std::move(client);
  return true;
}

void CheckWorkload::close_own() {
  if (!own_) return;
  (void)call_for(*own_, own_->async_client().close(), client_settings_.request_deadline);
  own_.reset();
}

std::string CheckWorkload::setup(const std::string& root) {
  paths_.root = root;
  for (int i = 0; i < settings_.registers; ++i) {
    paths_.registers.push_back(root + "/r" + std::to_string(i));
  }
  paths_.sequential = root + "/seq";
  paths_.ephemeral = root + "/eph";
  if (!connect_own()) return "cannot connect to " + connect_string(nodes_);
  std::vector<std::pair<std::string, std::string>> nodes = {{root, ""}};
  for (const auto& r : paths_.registers) nodes.emplace_back(r, "0");
  nodes.emplace_back(paths_.sequential, "");
  nodes.emplace_back(sequential_bucket(paths_, 0), "");
  nodes.emplace_back(paths_.ephemeral, "");
  for (const auto& [path, value] : nodes) {
    auto created = call_for(*own_, own_->async_client().create(path, value),
                            client_settings_.request_deadline);
    if (!created || !*created) {
      return "cannot create " + path + ": " +
             (created ? std::string(zk::wire::error_name(created->error())) : "no answer in time");
    }
  }
  return {};
}

void CheckWorkload::start(std::chrono::milliseconds duration) {
  stop_ = false;
  ClientSettings watcher_settings = client_settings_;
  watcher_settings.connect_string = connect_string(nodes_);
  watcher_ = std::make_unique<CheckWatcher>(watcher_settings, paths_.registers);
  watcher_->start();
  const auto begin = Clock::now();
  for (int slot = 0; slot < settings_.clients; ++slot) {
    ClientSettings s = client_settings_;
    s.connect_string = rotated_connect_string(nodes_, static_cast<size_t>(slot));
    clients_.push_back(std::make_unique<CheckClient>(
        slot, paths_, s, ids_, settings_.seed * 1'000'003 + static_cast<uint64_t>(slot)));
  }
  for (int slot = 0; slot < settings_.clients; ++slot) {
    std::optional<Clock::time_point> abandon_at;
    if (slot < 2) abandon_at = begin + duration * (slot + 1) / 3;
    threads_.emplace_back(
        [this, slot, abandon_at] { clients_[static_cast<size_t>(slot)]->run(stop_, abandon_at); });
  }
}

void CheckWorkload::stop() {
  stop_ = true;
  for (auto& t : threads_) t.join();
  threads_.clear();
  if (watcher_) watcher_->stop();
}

std::string CheckWorkload::finish(int64_t healed_ns, History& history) {
  std::string error = final_reads(healed_ns, history);
  if (watcher_) history.watch_events = watcher_->events();
  collect(history);
  return error;
}

std::string CheckWorkload::final_reads(int64_t healed_ns, History& history) {
  const auto until = Clock::now() + settings_.deadline;
  // The setup's session may have expired under the faults (its client was
  // cut off for longer than its timeout): the final looks take a new one.
  close_own();
  if (!connect_own()) return "connecting to " + connect_string(nodes_) + ": no session in time";
  if (auto error = final_registers(history, until); !error.empty()) return error;
  if (auto error = final_listing(history, until); !error.empty()) return error;
  // Sessions that ended while the clients did not look, or whose fate
  // cannot be told now, end here (the latter abandoned).
  for (auto& c : clients_) {
    switch (c->check_session()) {
      case SessionCheck::kAlive:
        break;
      case SessionCheck::kExpired:
        c->end_expired();
        break;
      case SessionCheck::kUnknown:
        c->abandon();
        break;
    }
  }
  wait_for_expiry(healed_ns);
  if (auto error = final_ephemerals(Clock::now() + settings_.deadline); !error.empty()) {
    return error;
  }
  // A session that is not alive now may have ended before the look or
  // after it: its record proves nothing.
  for (auto& c : clients_) {
    if (c->has_session() && c->check_session() != SessionCheck::kAlive) {
      c->forget_ephemeral();
      ++ephemerals_dropped_;
    }
  }
  return {};
}

void CheckWorkload::collect(History& history) const {
  for (const auto& c : clients_) {
    history.registers.insert(history.registers.end(), c->ops().begin(), c->ops().end());
    history.creates.insert(history.creates.end(), c->creates().begin(), c->creates().end());
    history.ephemerals.insert(history.ephemerals.end(), c->ephemerals().begin(),
                              c->ephemerals().end());
  }
  std::stable_sort(
      history.registers.begin(), history.registers.end(),
      [](const RegisterOp& a, const RegisterOp& b) { return a.invoke_ns < b.invoke_ns; });
  std::stable_sort(history.creates.begin(), history.creates.end(),
                   [](const SequentialCreate& a, const SequentialCreate& b) {
                     return a.invoke_ns < b.invoke_ns;
                   });
}

int64_t CheckWorkload::buckets() const {
  int64_t highest = 0;
  for (const auto& c : clients_) highest = std::max(highest, c->bucket());
  return highest + 1;
}

std::string CheckWorkload::final_registers(History& history, Clock::time_point until) {
  const auto deadline = client_settings_.request_deadline;
  for (const auto& key : paths_.registers) {
    std::string why;
    const bool read = toolkit::poll_until(
        [&] {
          RegisterOp op;
          op.client = ids_.next();
          op.key = key;
          op.kind = RegisterOpKind::kRead;
          op.invoke_ns = steady_now_ns();
          auto synced = call_for(*own_, own_->async_client().sync(key), deadline);
          if (synced && *synced) {
            auto data = call_for(*own_, own_->async_client().get_data(key), deadline);
            if (data && *data) {
              op.complete_ns = steady_now_ns();
              op.outcome = Outcome::kOk;
              const auto& bytes = (*data)->data;
              op.value = bytes ? parse_int(*bytes, 0) : -1;
              op.version = (*data)->stat.version;
            } else {
              why = failure(data, *own_, client_settings_.max_reply_bytes);
            }
          } else {
            why = failure(synced, *own_, client_settings_.max_reply_bytes);
          }
          history.registers.push_back(op);
          return op.outcome == Outcome::kOk;
        },
        until, kRetryInterval);
    if (!read) return "reading " + key + ": " + why;
  }
  return {};
}

std::string CheckWorkload::final_listing(History& history, Clock::time_point until) {
  const auto deadline = client_settings_.request_deadline;
  // Buckets 0, 1, ... until the first that is not there (check_client.h:
  // none after it is).
  for (int64_t bucket = 0;; ++bucket) {
    const std::string parent = sequential_bucket(paths_, bucket);
    std::string why;
    bool absent = false;
    bool hopeless = false;  // a reply too long to read will not shrink
    const bool listed = toolkit::poll_until(
        [&] {
          auto synced = call_for(*own_, own_->async_client().sync(parent), deadline);
          if (!synced || !*synced) {
            why = failure(synced, *own_, client_settings_.max_reply_bytes);
            return false;
          }
          auto names = call_for(*own_, own_->async_client().get_children(parent), deadline);
          if (names && names->error() == Error::kNoNode) {
            absent = true;
            return true;
          }
          if (!names || !*names) {
            why = failure(names, *own_, client_settings_.max_reply_bytes);
            hopeless = names && names->error() == Error::kReplyTooLarge;
            return hopeless;
          }
          std::vector<int64_t> sequences;
          sequences.reserve((*names)->size());
          for (const auto& name : **names) {
            sequences.push_back(parse_sequence(name));
          }
          std::sort(sequences.begin(), sequences.end());
          history.final_children.emplace_back(parent, std::move(sequences));
          return true;
        },
        until, kRetryInterval);
    if (!listed || hopeless) return "listing " + parent + ": " + why;
    if (absent) return {};
  }
}

void CheckWorkload::wait_for_expiry(int64_t healed_ns) {
  int64_t abandoned_ns = 0;
  std::chrono::milliseconds timeout{0};
  for (const auto& c : clients_) {
    abandoned_ns = std::max(abandoned_ns, c->last_abandoned_ns());
    timeout = std::max(timeout, c->abandoned_timeout());
  }
  if (abandoned_ns == 0) return;
  // The leader expires a session `timeout` after it last heard of it, and a
  // new leader restarts every session's clock: by then both are behind us.
  const auto margin = timeout + kExpiryTicks * settings_.limits.tick + kExpirySlack;
  const int64_t ready_ns = std::max(abandoned_ns, healed_ns) +
                           std::chrono::duration_cast<std::chrono::nanoseconds>(margin).count();
  const int64_t now = steady_now_ns();
  if (ready_ns <= now) return;
  expiry_wait_ = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::nanoseconds(ready_ns - now));
  std::this_thread::sleep_for(std::chrono::nanoseconds(ready_ns - now));
}

std::string CheckWorkload::final_ephemerals(Clock::time_point until) {
  const auto deadline = client_settings_.request_deadline;
  std::string why;
  const bool synced = toolkit::poll_until(
      [&] {
        auto answer = call_for(*own_, own_->async_client().sync(paths_.ephemeral), deadline);
        if (answer && *answer) return true;
        why = failure(answer, *own_, client_settings_.max_reply_bytes);
        return false;
      },
      until, kRetryInterval);
  if (!synced) return "syncing " + paths_.ephemeral + ": " + why;
  for (auto& c : clients_) {
    for (auto& record : c->ephemerals()) {
      const bool looked = toolkit::poll_until(
          [&] {
            auto stat = call_for(*own_, own_->async_client().exists(record.path), deadline);
            if (stat && *stat) {
              record.present_at_end = (*stat)->has_value();
              return true;
            }
            why = failure(stat, *own_, client_settings_.max_reply_bytes);
            return false;
          },
          until, kRetryInterval);
      if (!looked) return "looking at " + record.path + ": " + why;
    }
  }
  return {};
}

void CheckWorkload::cleanup() {
  stop();
  for (auto& c : clients_) c->close();
  close_own();
  if (paths_.root.empty()) return;
  std::vector<std::string> connect_strings;
  for (size_t i = 0; i < kCleanupSessions; ++i) {
    connect_strings.push_back(rotated_connect_string(nodes_, i));
  }
  std::vector<std::string> parents = {paths_.ephemeral};
  std::vector<std::string> rest = paths_.registers;
  for (int64_t bucket = 0; bucket < buckets(); ++bucket) {
    parents.push_back(sequential_bucket(paths_, bucket));
    rest.push_back(parents.back());
  }
  rest.push_back(paths_.sequential);
  rest.push_back(paths_.ephemeral);
  rest.push_back(paths_.root);
  (void)delete_tree(connect_strings, parents, rest, client_settings_.session_timeout,
                    client_settings_.request_deadline, client_settings_.security);
}

WorkloadFigures CheckWorkload::figures() const {
  WorkloadFigures f;
  for (const auto& c : clients_) {
    f.sessions_opened += c->sessions_opened();
    f.sessions_expired += c->sessions_expired();
    f.sessions_abandoned += c->sessions_abandoned();
    f.abandoned_on_purpose += c->abandoned_on_purpose();
  }
  f.ephemerals_dropped = ephemerals_dropped_;
  f.session_timeout = client_settings_.session_timeout;
  f.expiry_wait = expiry_wait_;
  return f;
}

}  // namespace zk::lab::check
