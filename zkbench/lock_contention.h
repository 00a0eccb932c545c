// SPDX-License-Identifier: Apache-2.0
// lock: contention for the herd-free lock of the ZooKeeper paper (`zkbench
// lock`). `clients` sessions each acquire and release the lock `holds`
// times; a client that has released tries again at once.
//
// The lock (one per `path`, a persistent znode created if missing):
//   acquire: create <path>/r<tag>-c<client>- ephemeral-sequential; then
//     getChildren(path) and order the children by their sequence suffix; the
//     lowest holds the lock; any other client sets an exists watch on its
//     predecessor only (the child just before it) and, once that watch fires
//     or the predecessor is found gone, reads the children again.
//   release: delete its own child.
// <tag> is fixed per run and the client number is in the name, so that after
// a CONNECTIONLOSS on the create a client finds the child it may have
// created (getChildren, by its prefix) instead of leaving it behind. Other
// errors of a request are retried too (after CONNECTIONLOSS the session
// reconnects). Children of other lock users (the same suffix of 10 digits)
// are contenders like any other; children without that suffix are ignored.
//
// Checks: an in-process count of the clients that hold the lock is raised
// when a client acquires and lowered just before it sends its delete; it must
// never exceed 1 (violations and max_holders in the result, and a problem
// when violated). The hold lasts `hold` (a timer), or with a hold of 0 until
// the client's thread has run what else it had queued (a yield), so that
// overlapping holders would be seen. Watch notifications (node events of the
// clients' watches) are counted: herd-free means at most one per release.
//
// When a client fails (its session ends, or a request fails with an error
// other than CONNECTIONLOSS, OPERATIONTIMEOUT or the NONODE of a vanished
// predecessor), the run stops: every session is closed (their children go
// with them), the result covers what was done and has a problem.
//
// Result: steps acquire (from the create to holding, per acquisition; the
// failed requests in it under their codes) and release (the delete); unit
// "acquisitions"; counts acquisitions, releases, notifications,
// children_reads, max_holders, violations; notes with notifications per
// release.
#pragma once

#include <chrono>
#include <string>

#include "toolkit/session_pool.h"
#include "zkbench/scenario.h"

namespace zk::bench {

struct LockOptions {
  toolkit::SessionPoolOptions pool;  // pool.sessions is the number of clients
  int holds = 100;                   // acquisitions per client
  std::string path = "/zkbench-lock";
  std::chrono::microseconds hold{0};
};

// Connects, runs the clients and closes the sessions. The lock znode stays.
ScenarioResult lock_contention(const LockOptions& options);

}  // namespace zk::bench
