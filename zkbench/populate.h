// SPDX-License-Identifier: Apache-2.0
// populate: creates N znodes fast, for memory and recovery measurements
// (`zkbench populate`): <root>/p0 .. <root>/p<N-1>, flat under one parent (a
// million children under one parent is what the memory tests measure), each
// holding `value_bytes` bytes (make_value), persistent.
//
// The root is created first if missing (outside the measured phase). Then
// the creates run pipelined over the sessions (pool_tasks.h: `window` in
// flight per session, each slot taking the next znode not yet taken). A
// create answered NODEEXISTS counts as done ("existing"), so populating
// twice creates nothing the second time. A create that fails with
// CONNECTIONLOSS or OPERATIONTIMEOUT is sent again, up to 3 attempts in all
// (the znode may exist by then: it counts as existing); every failed attempt
// is recorded under its code.
//
// Result: step "create" (every attempt; NODEEXISTS as a success), unit
// "creates" with done = created + existing, counts created, existing, failed
// (znodes given up), untried (never attempted: every session had ended), and
// a problem when any znode is missing (failed or untried).
#pragma once

#include <cstdint>
#include <string>

#include "toolkit/session_pool.h"
#include "zkbench/scenario.h"

namespace zk::bench {

struct PopulateOptions {
  toolkit::SessionPoolOptions pool;
  int64_t znodes = 0;
  int value_bytes = 100;
  std::string root = "/zkbench-pop";
  int window = 64;  // creates in flight per session
};

// The path of znode `i`: <root>/p<i>.
std::string populate_path(const std::string& root, int64_t i);

// Connects, creates the root and the znodes; closes the sessions.
ScenarioResult populate(const PopulateOptions& options);

}  // namespace zk::bench
