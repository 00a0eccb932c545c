// SPDX-License-Identifier: Apache-2.0
// Ways of running tasks on a toolkit::SessionPool (session_pool.h) that zkbench's
// scenario workloads share: wait for the pool without a deadline, close every
// session from any thread, run one task and take its result, create a znode
// the workload runs under, and do a numbered list of requests pipelined over
// every session.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>

#include "toolkit/session_pool.h"

namespace zk::bench {

// Waits, without a deadline, until no task of `pool` runs.
void wait_until_idle(const toolkit::SessionPool& pool);

// Closes every session of `pool` now, from any thread (closeSession spawned
// on each; closing twice is harmless): pending watches fire with kClosed and
// later requests fail with CLOSING, so that tasks waiting on a watch end. A
// scenario whose clients depend on each other (lock, barrier) uses it when
// one of them fails.
void close_sessions_now(toolkit::SessionPool& pool);

// Runs `task` on session `session`'s thread and waits for its result (from
// the pool owner's thread, never from a pool thread).
template <typename T>
T run_on(toolkit::SessionPool& pool, size_t session, zk::client::Task<T> task) {
  return boost::asio::co_spawn(pool.executor(session), std::move(task), boost::asio::use_future)
      .get();
}

// Creates `path` with no data on session 0 of `pool` unless it exists, and
// waits for it (from the pool owner's thread). Empty on success, else
// "create PATH: CODE".
std::string ensure_znode(toolkit::SessionPool& pool, const std::string& path);
// Connects `pool`, then ensure_znode(pool, path). Empty on success, else why not.
std::string connect_and_ensure(toolkit::SessionPool& pool, const std::string& path);

// What pipelined() did: items that succeeded, items that failed by their
// error code, items never tried (every session had ended), and the sessions
// that ended, with the error that ended them.
struct PipelineOutcome {
  int64_t ok = 0;
  std::map<zk::wire::Error, int64_t> errors;
  int64_t untried = 0;
  std::map<size_t, zk::wire::Error> ended;
};

// One item of pipelined(): its request(s) on session `session`; the error
// code of the item (kOk on success). Runs on the session's thread.
using PipelineOp = std::function<zk::client::Task<zk::wire::Error>(size_t session, size_t item)>;

// Does items 0..count-1 over every session of `pool`, `window` in flight per
// session: each in-flight slot takes the next item not yet taken and
// co_awaits `op` for it, until none is left. A slot whose item failed with an
// error after which its session can never succeed (session_over) stops; the
// slots of other sessions take what it leaves. Blocks the calling thread (the
// pool owner's) until every slot has stopped; `op` must outlive that.
PipelineOutcome pipelined(toolkit::SessionPool& pool, size_t count, int window,
                          const PipelineOp& op);

}  // namespace zk::bench
