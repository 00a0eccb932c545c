// SPDX-License-Identifier: Apache-2.0
#include "zkbench/flood_measure.h"

#include <algorithm>
#include <thread>

#include "zkbench/workload.h"

namespace zk::bench::flood {

namespace {

using Clock = std::chrono::steady_clock;
using zk::client::SessionState;

constexpr int kValueBytes = 100;

zk::client::ClientOptions options_with(zk::client::SessionListener listener) {
  zk::client::ClientOptions o;
  o.on_session_event = std::move(listener);
  return o;
}

}  // namespace

MeasuringSession::MeasuringSession()
    : value_(make_value(kValueBytes)),
      client_(options_with([this](SessionState s) { on_event(s); })) {}

MeasuringSession::~MeasuringSession() = default;

void MeasuringSession::on_event(SessionState s) {
  std::lock_guard lock(mu_);
  if (s == SessionState::kConnected && !first_connected_) {
    first_connected_ = true;
    connected_ = Clock::now();
    return;
  }
  events_.push_back(
      {phase_, std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - connected_),
       std::string(zk::client::session_state_name(s))});
}

std::string MeasuringSession::setup(const std::string& servers, const std::string& root,
                                    const std::vector<std::string>& more,
                                    std::chrono::milliseconds session_timeout,
                                    std::chrono::milliseconds connect_deadline) {
  if (auto s = client_.connect(servers, session_timeout, connect_deadline); !s.ok()) {
    return "measuring session: connect: " + std::string(zk::wire::error_name(s.error()));
  }
  path_ = root + "/measure";
  std::vector<std::string> paths = {root, path_};
  paths.insert(paths.end(), more.begin(), more.end());
  for (const std::string& p : paths) {
    auto r = client_.create(p, value_);
    if (!r.ok() && r.error() != zk::wire::Error::kNodeExists) {
      return "create " + p + ": " + std::string(zk::wire::error_name(r.error()));
    }
  }
  return "";
}

PhaseFigures MeasuringSession::measure(const std::string& phase, double rate,
                                       std::chrono::nanoseconds duration) {
  {
    std::lock_guard lock(mu_);
    phase_ = phase;
  }
  PhaseFigures out;
  const auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / rate));
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + duration;
  const Clock::time_point cutoff = end + std::max<std::chrono::nanoseconds>(duration, kMinGrace);
  Clock::time_point last_answer = start;
  for (int64_t k = 0;; ++k) {
    const Clock::time_point slot = start + k * interval;
    if (slot >= end) break;
    if (Clock::now() >= cutoff) {
      out.unsent = (end - slot + interval - Clock::duration(1)) / interval;
      break;
    }
    std::this_thread::sleep_until(slot);
    const bool read = sent_++ % 2 == 0;
    const zk::wire::Error e =
        read ? client_.get_data(path_).error() : client_.set_data(path_, value_).error();
    last_answer = Clock::now();
    if (phase.empty()) continue;
    OpFigures& f = out.figures.of(read ? OpType::kGet : OpType::kSet);
    if (e == zk::wire::Error::kOk) {
      ++f.ok;
      f.latency.record(
          std::chrono::duration_cast<std::chrono::nanoseconds>(last_answer - slot).count());
    } else {
      ++f.errors[e];
    }
  }
  out.measured = last_answer - start;
  return out;
}

std::vector<SessionEvent> MeasuringSession::events() const {
  std::lock_guard lock(mu_);
  return events_;
}

// A close that fails (the session is gone already) leaves nothing to do.
void MeasuringSession::close() { (void)client_.close(); }

}  // namespace zk::bench::flood
