// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper paper's own figures (Hunt, Konar, Junqueira, Reed:
// "ZooKeeper: wait-free coordination for Internet-scale systems", USENIX
// ATC 2010, section 5), which `zkbench paper` prints beside its own. Copied
// from the paper's tables; the plotted figures (5, 6, 7, 8) are curves whose
// only numbers the text gives are Table 1's extremes and the failure
// sequence of Figure 8.
//
// The paper's setup: a cluster of 50 servers, each one dual-core Xeon at
// 2.1 GHz, 4 GB of RAM, gigabit ethernet and two SATA disks (the log on a
// dedicated disk, snapshots on the other); 35 machines simulating 250
// clients of the asynchronous Java client, each with at least 100 requests
// outstanding, reads and writes of 1 KB; servers throttled to 2,000 requests
// in process.
#pragma once

#include <array>

namespace zk::bench::paper {

// Table 1: throughput of a saturated system at the extremes (Figure 5), in
// operations per second.
struct Table1Row {
  int servers;
  double all_reads;  // 100% reads
  double no_reads;   // 0% reads
};
inline constexpr std::array<Table1Row, 5> kTable1 = {{
    {3, 87000, 21000},
    {5, 165000, 18000},
    {7, 257000, 14000},
    {9, 296000, 12000},
    {13, 460000, 8000},
}};

// Table 2: create requests processed per second, by workers (rows) and
// servers (columns 3, 5, 7, 9). Each worker creates 50,000 znodes of 1 KB,
// one at a time (create, wait, asynchronous delete, next create).
inline constexpr std::array<int, 4> kTable2Servers = {3, 5, 7, 9};
struct Table2Row {
  int workers;
  std::array<double, 4> creates_per_s;  // by kTable2Servers
};
inline constexpr std::array<Table2Row, 3> kTable2 = {{
    {1, {776, 748, 758, 711}},
    {10, {2074, 1832, 1572, 1540}},
    {20, {2740, 2336, 1934, 1890}},
}};

// Table 3: the barrier experiment, seconds for every client to enter b
// barriers and then leave them (the average over clients and five runs), by
// barriers (rows) and clients (columns 50, 100, 200).
inline constexpr std::array<int, 3> kTable3Clients = {50, 100, 200};
struct Table3Row {
  int barriers;
  std::array<double, 3> seconds;  // by kTable3Clients
};
inline constexpr std::array<Table3Row, 4> kTable3 = {{
    {200, {9.4, 19.8, 41.0}},
    {400, {16.4, 34.1, 62.0}},
    {800, {28.9, 55.9, 112.1}},
    {1600, {54.0, 102.7, 234.4}},
}};

// Figure 8: a 5-server ensemble under the saturation benchmark at 30%
// writes, for about 300 s.
inline constexpr int kFigure8Servers = 5;
inline constexpr int kFigure8ReadPercent = 70;

}  // namespace zk::bench::paper
