// SPDX-License-Identifier: Apache-2.0
// `zkbench paper fig8`: the ZooKeeper paper's Figure 8, throughput upon
// failures. Per flavour (zkd, Apache) one ensemble of `size` servers (the
// paper: 5) under a saturating load of 70% reads (zklab/load/load.h:
// `sessions` sessions spread over every server, `in_flight` requests each,
// getData or setData of 1 KB), through the paper's failure sequence
// (paper_schedule.h: a step every `period`): the schedule's kills are
// SIGKILLs, its restarts start the same node on its data again (and do not
// wait for it). After each leader's kill the new leader is awaited (srvr)
// and marked.
//
// Output: per flavour the timeline as fig8-<flavour>.svg (ops/s over time,
// the events marked with the paper's numbers) and .csv (timeline_csv.h);
// a table of the ops/s between consecutive steps per flavour (mean and the
// lowest bucket) with the node each step struck, and the time from each
// leader's kill to the new leader.
#pragma once

#include <chrono>

#include "zkbench/paper_lab.h"

namespace zk::bench {

struct FailuresOptions {
  int size = 5;
  std::chrono::milliseconds period{10000};  // between steps (the paper's: ~25 s)
  std::chrono::milliseconds bucket{500};    // of the timeline (the paper samples every 6 s)
  int sessions = 20;
  int in_flight = 8;
  int read_percent = 70;
};

PaperOutput paper_failures(const PaperLab& lab, const FailuresOptions& options);

}  // namespace zk::bench
