// SPDX-License-Identifier: Apache-2.0
// barrier: the double barrier of the ZooKeeper paper (`zkbench barrier`):
// `clients` sessions enter and leave a barrier together, `rounds` times.
//
// Each round has a barrier znode of its own, <path>/r<tag>-<round> (<path>
// persistent, created if missing; the round znodes created before the
// measured phase, pipelined, and deleted after it with their ready child when
// the run completed). Client c, in each round, on barrier znode b:
//   enter: exists(b/ready) with a watch; create b/c<c> ephemeral;
//     getChildren(b): with fewer than `clients` children (ready apart) it
//     waits for the ready watch, else it creates b/ready (persistent;
//     NODEEXISTS is fine). Entered.
//   leave: getChildren(b) (ready apart; NONODE: every client has left and b
//     is gone): none left: done; only its own: delete it, done; its own the
//     lowest (by name): watch the highest (exists) and wait; else delete its
//     own (once) and watch the lowest; then read the children again.
// Requests that fail with CONNECTIONLOSS or OPERATIONTIMEOUT are sent again
// (client_group.h). When a client fails otherwise, the run stops (every
// session closed) with a problem; the round znodes then stay.
//
// Result: steps enter and leave (per client and round, from the first request
// to entered or left; failed requests under their codes), unit "rounds" (done:
// rounds every client completed), counts rounds, notifications; a problem
// when fewer than `rounds` rounds were completed.
#pragma once

#include <string>

#include "toolkit/session_pool.h"
#include "zkbench/scenario.h"

namespace zk::bench {

struct BarrierOptions {
  toolkit::SessionPoolOptions pool;  // pool.sessions is the number of clients
  int rounds = 100;
  std::string path = "/zkbench-barrier";
  int setup_window = 64;  // creates (and deletes) in flight per session around the run
  // The paper's order (section 5.3, `zkbench paper table3`): each client
  // enters every round's barrier in turn, then leaves them all in turn,
  // instead of entering and leaving one round before the next. A round is
  // then done when its client has left the last barrier.
  bool enter_all_first = false;
};

// Connects, creates the round znodes, runs the rounds, deletes the round
// znodes and closes the sessions. <path> stays.
ScenarioResult double_barrier(const BarrierOptions& options);

}  // namespace zk::bench
