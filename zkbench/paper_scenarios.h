// SPDX-License-Identifier: Apache-2.0
// `zkbench paper table2` and `table3`: the ZooKeeper paper's Table 2 (create
// requests per second) and Table 3 (the barrier experiment), on zkd and on
// Apache ZooKeeper, beside the paper's figures (paper_reference.h).
//
// table2: per ensemble size and flavour one ensemble; per worker count w,
// create_bench (create_bench.h) with w workers (sessions spread over the
// servers), one create in flight each, `creates` creates of 1 KB per worker;
// creates per second = successful creates / the time until every worker
// finished. (The paper's worker also deletes each znode asynchronously after
// its create; create_bench deletes them after the measured phase.)
//
// table3: per flavour one ensemble of `size` servers; per client count c and
// barrier count b, double_barrier (double_barrier.h) in the paper's order:
// each of c clients enters b barriers in turn, then leaves them in turn;
// the time until every client left the last barrier (the paper averages
// over clients; ours is the slowest client's, a slight overstatement).
//
// Output: a table each (ours beside the paper's where the paper has the
// cell), and the plots table2.svg (creates/s against workers, a line per
// flavour and size) and table3.svg (seconds against barriers, a line per
// flavour and client count).
#pragma once

#include <cstdint>
#include <vector>

#include "zkbench/paper_lab.h"

namespace zk::bench {

struct CreatesTableOptions {
  std::vector<int> sizes = {3, 5, 7};
  std::vector<int> workers = {1, 10, 20};
  int64_t creates = 5000;  // per worker (the paper: 50,000)
  int value_bytes = 1024;
};

PaperOutput paper_creates_table(const PaperLab& lab, const CreatesTableOptions& options);

struct BarrierTableOptions {
  int size = 3;                                   // servers
  std::vector<int> clients = {50, 100, 200};      // the paper's
  std::vector<int> barriers = {20, 40, 80, 160};  // the paper: 200, 400, 800, 1600
};

PaperOutput paper_barrier_table(const PaperLab& lab, const BarrierTableOptions& options);

}  // namespace zk::bench
