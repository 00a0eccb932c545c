// SPDX-License-Identifier: Apache-2.0
#include "zkbench/pool_tasks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

namespace zk::bench {

namespace {

using zk::client::Task;
using zk::wire::Error;

Task<void> close_one(std::shared_ptr<zk::client::Client> client) { (void)co_await client->close(); }

// What the slots of one pipelined() call share.
struct Pipeline {
  Pipeline(const PipelineOp& o, size_t n) : op(o), count(n) {}

  const PipelineOp& op;
  const size_t count;
  std::atomic<size_t> next{0};
  std::mutex mu;  // guards outcome
  PipelineOutcome outcome;

  Task<void> slot(size_t session) {
    for (size_t item; (item = next.fetch_add(1, std::memory_order_relaxed)) < count;) {
      const Error e = co_await op(session, item);
      std::lock_guard lock(mu);
      if (e == Error::kOk) {
        ++outcome.ok;
      } else {
        ++outcome.errors[e];
        if (toolkit::session_over(e)) {
          outcome.ended.emplace(session, e);
          break;
        }
      }
    }
  }
};

}  // namespace

void wait_until_idle(const toolkit::SessionPool& pool) {
  while (!pool.wait_idle(toolkit::SessionPool::Clock::now() + std::chrono::hours(1))) {
  }
}

void close_sessions_now(toolkit::SessionPool& pool) {
  for (size_t i = 0; i < pool.size(); ++i) pool.spawn(i, close_one(pool.client(i)));
}

std::string ensure_znode(toolkit::SessionPool& pool, const std::string& path) {
  const auto s = run_on(pool, 0, toolkit::create_if_missing(pool.client(0), path, std::string()));
  return s.ok() ? "" : "create " + path + ": " + std::string(zk::wire::error_name(s.error()));
}

std::string connect_and_ensure(toolkit::SessionPool& pool, const std::string& path) {
  if (std::string e = pool.connect(); !e.empty()) return e;
  return ensure_znode(pool, path);
}

PipelineOutcome pipelined(toolkit::SessionPool& pool, size_t count, int window,
                          const PipelineOp& op) {
  Pipeline p{op, count};
  for (size_t s = 0; s < pool.size(); ++s) {
    for (int w = 0; w < std::max(window, 1); ++w) pool.spawn(s, p.slot(s));
  }
  wait_until_idle(pool);
  std::lock_guard lock(p.mu);
  const size_t taken = std::min(p.next.load(), count);
  p.outcome.untried = static_cast<int64_t>(count - taken);
  return p.outcome;
}

}  // namespace zk::bench
