// SPDX-License-Identifier: Apache-2.0
// `zklab failover`: a failover experiment on a running lab. A read/write load
// runs against every node; at `kill_at` the fault strikes the leader (SIGKILL,
// SIGSTOP, or every peer link cut), at `restart_at` it is undone (the node
// started again, SIGCONT, the cuts healed); the run ends at `duration`.
// Recorded, per 100 ms bucket from the start: completed reads and writes,
// errors by code, and each node's role (srvr polled by a watcher thread).
// Printed: time from the fault to a new leader, to the first committed write
// after the fault, to the old leader serving again (rejoined, as follower
// after a pause or an isolation), and the writes/s before and after. Written: the timeline as CSV
// and as an SVG plot in the style of the ZooKeeper paper's figure of throughput under failures
// (throughput over time, with the kill, the new leader and the rejoin
// marked).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "zklab/tool/lab_commands.h"
#include "zklab/tool/lab_experiment.h"

namespace zk::lab {

// What strikes the leader, and how it is undone.
enum class FailoverFault {
  kKill,     // SIGKILL; undone by starting the node again
  kPause,    // SIGSTOP (a hung host, a long GC pause); undone by SIGCONT
  kIsolate,  // every peer link cut (zklab isolate); undone by zklab heal
};

struct FailoverOptions {
  FailoverFault fault = FailoverFault::kKill;
  ExperimentLoad load;
  std::chrono::milliseconds duration{8000};
  std::chrono::milliseconds kill_at{2000};
  std::chrono::milliseconds restart_at{4000};
  std::filesystem::path csv;  // empty: <lab>/failover.csv
  std::filesystem::path svg;  // empty: <lab>/failover.svg
};

LabExit lab_failover(const LabContext& ctx, const FailoverOptions& options);

}  // namespace zk::lab
