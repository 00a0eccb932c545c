// SPDX-License-Identifier: Apache-2.0
#include "zkbench/scenario.h"

#include <algorithm>

namespace zk::bench {

StepFigures::StepFigures(size_t threads, std::vector<std::string> steps)
    : names_(std::move(steps)),
      by_thread_(std::max<size_t>(threads, 1), std::vector<OpFigures>(names_.size())) {}

void StepFigures::record(size_t thread, size_t step, Clock::time_point start, zk::wire::Error e) {
  OpFigures& f = by_thread_[thread][step];
  if (e == zk::wire::Error::kOk) {
    ++f.ok;
    f.latency.record(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
  } else {
    ++f.errors[e];
  }
}

std::vector<ScenarioStep> StepFigures::merged() const {
  std::vector<ScenarioStep> out;
  for (size_t k = 0; k < names_.size(); ++k) {
    ScenarioStep step{names_[k], {}};
    for (const auto& thread : by_thread_) step.figures.merge(thread[k]);
    out.push_back(std::move(step));
  }
  return out;
}

void Measurement::start() {
  wall_from_ = std::chrono::steady_clock::now();
  cpu_from_ = process_cpu_times();
}

void Measurement::stop(ScenarioResult& r) const {
  const auto wall = std::chrono::steady_clock::now() - wall_from_;
  r.measured = std::chrono::duration_cast<std::chrono::nanoseconds>(wall);
  r.cpu = cpu_usage(cpu_from_, process_cpu_times(),
                    std::chrono::duration_cast<std::chrono::microseconds>(wall));
}

}  // namespace zk::bench
