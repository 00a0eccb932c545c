// SPDX-License-Identifier: Apache-2.0
#include "zkbench/populate.h"

#include <atomic>

#include "zkbench/pool_tasks.h"
#include "zkbench/workload.h"

namespace zk::bench {

namespace {

using zk::client::Task;
using zk::wire::Error;

constexpr int kAttempts = 3;
constexpr auto kCloseDeadline = std::chrono::seconds(10);

bool worth_retrying(Error e) {
  return e == Error::kConnectionLoss || e == Error::kOperationTimeout;
}

}  // namespace

std::string populate_path(const std::string& root, int64_t i) {
  return root + "/p" + std::to_string(i);
}

ScenarioResult populate(const PopulateOptions& o) {
  ScenarioResult result;
  result.unit = "creates";
  toolkit::SessionPool pool(o.pool);
  const zk::wire::Buffer value = make_value(o.value_bytes);
  if (std::string e = connect_and_ensure(pool, o.root); !e.empty()) {
    result.error = e;
    return result;
  }

  StepFigures steps(pool.threads(), {"create"});
  std::atomic<int64_t> created{0}, existing{0};
  const PipelineOp op = [&](size_t session, size_t item) -> Task<Error> {
    const auto& client = pool.client(session);
    const size_t thread = pool.thread_of(session);
    const std::string path = populate_path(o.root, static_cast<int64_t>(item));
    Error e = Error::kOk;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      zk::wire::Buffer data = value;
      const auto start = StepFigures::Clock::now();
      e = (co_await client->create(path, std::move(data))).error();
      if (e == Error::kNodeExists) {
        steps.record(thread, 0, start, Error::kOk);
        existing.fetch_add(1, std::memory_order_relaxed);
        co_return Error::kOk;
      }
      steps.record(thread, 0, start, e);
      if (e == Error::kOk) {
        created.fetch_add(1, std::memory_order_relaxed);
        co_return e;
      }
      if (!worth_retrying(e)) break;
    }
    co_return e;
  };
  Measurement m;
  m.start();
  const PipelineOutcome outcome = pipelined(pool, static_cast<size_t>(o.znodes), o.window, op);
  m.stop(result);
  pool.close(toolkit::SessionPool::Clock::now() + kCloseDeadline);

  result.steps = steps.merged();
  result.done = created.load() + existing.load();
  int64_t failed = 0;
  for (const auto& [code, n] : outcome.errors) failed += n;
  result.counts = {{"created", created.load()},
                   {"existing", existing.load()},
                   {"failed", failed},
                   {"untried", outcome.untried}};
  for (const auto& [session, e] : outcome.ended) {
    result.ended.push_back("session " + std::to_string(session) + ": " +
                           std::string(zk::wire::error_name(e)));
  }
  if (const int64_t missing = o.znodes - result.done; missing > 0) {
    result.problems.push_back(std::to_string(missing) + " of " + std::to_string(o.znodes) +
                              " znodes not created");
  }
  return result;
}

}  // namespace zk::bench
