// SPDX-License-Identifier: Apache-2.0
// `zkbench paper fig5` and `fig6`: the ZooKeeper paper's Figure 5 (with
// Table 1) and Figure 6. Per ensemble size, per flavour (zkd, Apache), one
// ensemble is started and the saturation benchmark runs on it once per read
// percentage: an Engine run (engine.h) of get=R,set=100-R on 1 KB znodes,
// closed loop, `sessions` sessions with `in_flight` requests each spread
// over every server (fig5), or all on the leader (fig6: the paper's "all
// clients connect to the leader", Chubby's way).
//
// Output: a table of operations per second against reads (a column per
// flavour and size, and zkd/apache per size), the same of the servers' CPU
// per request (server_cpu.h: every node's process summed), for fig5 Table
// 1 (the extremes, beside the paper's), and the plot fig5.svg or fig6.svg
// (sweep_plot_svg: a line per flavour and size).
#pragma once

#include <chrono>
#include <vector>

#include "zkbench/paper_lab.h"

namespace zk::bench {

struct ThroughputOptions {
  std::vector<int> sizes = {3, 5, 7};
  std::vector<int> steps = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  int sessions = 24;  // over all servers
  int in_flight = 8;  // per session: 192 outstanding (the paper: 250 x >= 100)
  int value_bytes = 1024;
  std::chrono::milliseconds warmup{1000};
  std::chrono::milliseconds duration{5000};  // per step
  bool leader_only = false;                  // fig6
};

PaperOutput paper_throughput(const PaperLab& lab, const ThroughputOptions& options);

}  // namespace zk::bench
