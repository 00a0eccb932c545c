// SPDX-License-Identifier: Apache-2.0
#include "zkbench/progress.h"

namespace zk::bench {

std::string progress_text(const Progress& p, double rate) {
  const char* phase = p.phase == Phase::kWarmup ? "warm-up"
                      : p.phase == Phase::kDone ? "done"
                                                : "measure";
  char line[160];
  std::snprintf(line, sizeof line, "%-7s %7.1f s %10.0f ops/s %11lld requests %7lld errors", phase,
                std::chrono::duration<double>(p.measured).count(), rate,
                static_cast<long long>(p.requests), static_cast<long long>(p.errors));
  return line;
}

ProgressLine::ProgressLine(const Engine& engine, std::FILE* out, std::chrono::milliseconds period)
    : engine_(engine), out_(out), period_(period), thread_([this] { run(); }) {}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
}

void ProgressLine::run() {
  using Clock = std::chrono::steady_clock;
  Progress last = engine_.progress();
  auto last_at = Clock::now();
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, period_, [this] { return done_; })) {
    const Progress now = engine_.progress();
    const auto at = Clock::now();
    const double span = std::chrono::duration<double>(at - last_at).count();
    const double rate = span > 0 ? static_cast<double>(now.requests - last.requests) / span : 0;
    std::fprintf(out_, "\r\033[K%s", progress_text(now, rate).c_str());
    std::fflush(out_);
    last = now;
    last_at = at;
  }
}

}  // namespace zk::bench
