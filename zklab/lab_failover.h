// SPDX-License-Identifier: Apache-2.0
// `zklab failover`: a failover experiment on a running lab. A read/write load
// runs against every node; at `kill_at` the leader is SIGKILLed, at
// `restart_at` it is started again; the run ends at `duration`. Recorded, per
// 100 ms bucket from the start: completed reads and writes, errors by code,
// and each node's role (srvr polled by a watcher thread). Printed: time from
// the kill to a new leader, to the first committed write after the kill, to
// the old leader serving again (rejoined as follower), and the writes/s
// before and after. Written: the timeline as CSV and as an SVG plot in the
// style of the ZooKeeper paper's figure of throughput under failures
// (throughput over time, with the kill, the new leader and the rejoin
// marked).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "zklab/lab_commands.h"

namespace zk::lab {

struct FailoverOptions {
  int clients = 8;          // sessions, spread evenly over the nodes
  double read_ratio = 0.5;  // share of reads (getData) among requests
  int in_flight = 1;        // requests in flight per session
  int value_bytes = 100;    // size of every setData
  std::chrono::milliseconds duration{8000};
  std::chrono::milliseconds kill_at{2000};
  std::chrono::milliseconds restart_at{4000};
  std::filesystem::path csv;  // empty: <lab>/failover.csv
  std::filesystem::path svg;  // empty: <lab>/failover.svg
};

LabExit lab_failover(const LabContext& ctx, const FailoverOptions& options);

}  // namespace zk::lab
