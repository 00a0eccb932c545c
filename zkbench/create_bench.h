// SPDX-License-Identifier: Apache-2.0
// creates: the create benchmark of the ZooKeeper paper (`zkbench creates`):
// `workers` sessions, each issuing `creates` creates of new znodes, `window`
// in flight per worker (1: a worker waits for each create before the next,
// as the paper's workers do).
//
// Znodes: <root>/r<tag>/w<worker>/c<i> (fresh names), or with `sequential`
// persistent-sequential creates of <root>/r<tag>/w<worker>/c, each holding
// `value_bytes` bytes (make_value). <root>, the run's znode r<tag> (<tag>
// fixed per run) and the workers' znodes are created before the measured
// phase. After it, unless `keep`, every znode the run created is deleted
// (pipelined, not measured), the run's znode included; <root> stays.
//
// Failed creates are recorded under their codes and not sent again. A worker
// whose session can never succeed again (SESSIONEXPIRED, CLOSING,
// AUTHFAILED) stops. Cleanup finds what a create that failed with
// CONNECTIONLOSS may have created (getChildren of a worker's znode that is
// not empty).
//
// Result: step create, unit "creates" (done: successful creates), counts
// created, failed, deleted; notes on the cleanup; problems when fewer than
// workers x creates creates were sent or the cleanup left znodes.
#pragma once

#include <cstdint>
#include <string>

#include "toolkit/session_pool.h"
#include "zkbench/scenario.h"

namespace zk::bench {

struct CreatesOptions {
  toolkit::SessionPoolOptions pool;  // pool.sessions is the number of workers
  int64_t creates = 1000;            // per worker
  int window = 1;                    // creates in flight per worker
  int value_bytes = 1024;
  bool sequential = false;
  std::string root = "/zkbench-creates";
  bool keep = false;        // leave the created znodes in place
  int cleanup_window = 64;  // deletes in flight per session during cleanup
};

// Connects, sets up, runs the workers, cleans up and closes the sessions.
ScenarioResult create_bench(const CreatesOptions& options);

}  // namespace zk::bench
