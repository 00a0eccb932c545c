// SPDX-License-Identifier: Apache-2.0
// ProgressLine: while it exists, rewrites one line on a terminal every
// `period` with the engine's progress: phase, elapsed time of the measured
// phase, requests/s over the last period, requests and errors so far. The
// destructor stops its thread and erases the line. The caller decides whether
// `out` is a terminal (zkbench shows the line only then).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "zkbench/engine.h"

namespace zk::bench {

// "measure  12.0 s  45210 ops/s  540000 requests  3 errors" for `p`, with
// `rate` the requests/s of the last period.
std::string progress_text(const Progress& p, double rate);

class ProgressLine {
 public:
  ProgressLine(const Engine& engine, std::FILE* out,
               std::chrono::milliseconds period = std::chrono::seconds(1));
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void run();

  const Engine& engine_;
  std::FILE* out_;
  const std::chrono::milliseconds period_;
  std::mutex mu_;  // guards done_
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace zk::bench
