// SPDX-License-Identifier: Apache-2.0
#include "zkd/clock/real_time.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <random>
#include <utility>

namespace zkd {
namespace {

class RealClock final : public Clock {
 public:
  int64_t wall_ms() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  int64_t steady_us() override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// A steady_timer whose waits carry a generation, so that a wait already
// completed (its handler queued) when the timer is armed again, cancelled or
// destroyed does not call the old `fire`. The generation is shared with the
// handlers, which may run after the timer is gone.
class AsioTimer final : public Timer {
 public:
  explicit AsioTimer(boost::asio::io_context& io)
      : timer_(io), generation_(std::make_shared<uint64_t>(0)) {}
  ~AsioTimer() override { ++*generation_; }

  void arm(std::chrono::milliseconds delay, std::function<void()> fire) override {
    timer_.expires_after(delay);
    timer_.async_wait([current = generation_, armed = ++*generation_,
                       fire = std::move(fire)](const boost::system::error_code& ec) {
      if (!ec && *current == armed) fire();
    });
  }
  void cancel() override {
    ++*generation_;
    timer_.cancel();
  }

 private:
  boost::asio::steady_timer timer_;
  std::shared_ptr<uint64_t> generation_;
};

}  // namespace

Clock& real_clock() {
  static RealClock clock;
  return clock;
}

std::unique_ptr<Timer> new_real_timer(boost::asio::io_context& io) {
  return std::make_unique<AsioTimer>(io);
}

uint64_t real_secure_random() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) | device();
}

}  // namespace zkd
