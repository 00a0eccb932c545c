// SPDX-License-Identifier: Apache-2.0
#include "zkd/storage/simulated_time.h"

namespace zkd::storage {

class SimulatedTime::SimTimer final : public Timer {
 public:
  explicit SimTimer(SimulatedTime& time) : time_(time) {}
  ~SimTimer() override { cancel(); }

  void arm(std::chrono::milliseconds delay, std::function<void()> fire) override {
    cancel();
    key_ = time_.arm(
        [this, fire = std::move(fire)] {
          key_.reset();
          fire();
        },
        delay);
  }
  void cancel() override {
    if (key_) time_.cancel(*key_);
    key_.reset();
  }

 private:
  SimulatedTime& time_;
  std::optional<Key> key_;
};

SimulatedTime::SimulatedTime(uint64_t seed, int64_t wall_start_ms)
    : wall_offset_us_(wall_start_ms * 1000 - steady_us_), random_state_(seed) {}

int64_t SimulatedTime::wall_ms() {
  std::lock_guard lock(mu_);
  return (steady_us_ + wall_offset_us_) / 1000;
}

int64_t SimulatedTime::steady_us() {
  std::lock_guard lock(mu_);
  return steady_us_;
}

std::unique_ptr<Timer> SimulatedTime::new_timer() { return std::make_unique<SimTimer>(*this); }

SimulatedTime::Key SimulatedTime::arm(std::function<void()> fire, std::chrono::milliseconds delay) {
  std::lock_guard lock(mu_);
  Key key{steady_us_ + std::chrono::microseconds(delay).count(), next_order_++};
  due_.emplace(key, std::move(fire));
  return key;
}

void SimulatedTime::cancel(const Key& key) {
  std::lock_guard lock(mu_);
  due_.erase(key);
}

void SimulatedTime::run_until(int64_t until_us) {
  for (;;) {
    std::function<void()> fire;
    {
      std::lock_guard lock(mu_);
      auto first = due_.begin();
      if (first == due_.end() || first->first.first > until_us) {
        if (until_us > steady_us_) steady_us_ = until_us;
        return;
      }
      if (first->first.first > steady_us_) steady_us_ = first->first.first;
      fire = std::move(first->second);
      due_.erase(first);
    }
    fire();
  }
}

void SimulatedTime::advance(std::chrono::microseconds by) {
  int64_t until;
  {
    std::lock_guard lock(mu_);
    until = steady_us_ + by.count();
  }
  run_until(until);
}

bool SimulatedTime::advance_to_next() {
  auto next = next_deadline();
  if (!next) return false;
  run_until(*next);
  return true;
}

std::optional<int64_t> SimulatedTime::next_deadline() const {
  std::lock_guard lock(mu_);
  if (due_.empty()) return std::nullopt;
  return due_.begin()->first.first;
}

size_t SimulatedTime::armed() const {
  std::lock_guard lock(mu_);
  return due_.size();
}

uint64_t SimulatedTime::random() {
  std::lock_guard lock(mu_);
  uint64_t z = (random_state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace zkd::storage
