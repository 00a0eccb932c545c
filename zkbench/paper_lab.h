// SPDX-License-Identifier: Apache-2.0
// The ensembles `zkbench paper` measures: zk::lab Ensembles
// (zklab/process/ensemble.h) of zkd or of Apache ZooKeeper 3.8, started on
// this machine, one at a time, for one figure's run on one ensemble size.
// What a figure shares (flavours, zkd, output) and what it returns.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zkbench/paper_table.h"
#include "zklab/process/ensemble.h"

namespace zk::bench {

struct PaperLab {
  std::vector<zk::lab::Flavour> flavours = {zk::lab::Flavour::kZkd, zk::lab::Flavour::kApache};
  std::string zkd;  // the zkd executable (zklab/process/zkd_lookup.h found it)
  int tick_ms = 200;
  // Apache's heap: the JVM flags of scripts/apache-ensemble (full JIT, a
  // fixed heap) rather than zk::lab's start-up defaults (C1 only, 256 MiB),
  // which would measure a handicapped Apache.
  std::string apache_heap = "512m";
  // Before a figure measures an ensemble: a run of get=50,set=50 (24
  // sessions, 8 in flight each) for this long, not measured, so that
  // Apache's JIT has compiled its hot paths (zkd needs none; both get it).
  // Measured on a 3-server Apache: after 5 s it wrote 3.7k/s, after 15 s
  // 7.2k/s.
  std::chrono::milliseconds ensemble_warmup{15000};
  bool keep_dirs = false;  // leave each ensemble's directory (logs) behind
  bool progress = true;    // a line on stderr per ensemble and step
};

// What one figure produced: its tables (in print order), its plots (file
// name, SVG text) and what went wrong without stopping it.
struct PaperOutput {
  std::vector<PaperTable> tables;
  std::vector<std::pair<std::string, std::string>> plots;
  std::vector<std::string> problems;
};

// Starts an ensemble of `voters` voters of `flavour`, waits until it serves
// and warms it up (lab.ensemble_warmup); nullptr after adding why not to
// `problems`.
std::unique_ptr<zk::lab::Ensemble> start_paper_ensemble(const PaperLab& lab,
                                                        zk::lab::Flavour flavour, int voters,
                                                        std::vector<std::string>& problems);

// Every node's process id (for the server CPU meter).
std::vector<pid_t> ensemble_pids(const zk::lab::Ensemble& ensemble);
// Every node's address.
std::vector<std::string> ensemble_addresses(const zk::lab::Ensemble& ensemble);

// "zkd" or "apache".
std::string flavour_label(zk::lab::Flavour flavour);

// SIGINT and SIGTERM, once install_paper_stop() was called: every figure
// stops at its next step (no run or ensemble starts any more, fig8's wait
// ends) and returns what it measured; the ensembles are stopped as always
// (their destructors SIGKILL every node), so that no server outlives zkbench.
void install_paper_stop();
bool paper_stopped();
// Waits until `t` or a stop, whichever comes first; false on a stop.
bool paper_sleep_until(std::chrono::steady_clock::time_point t);

// A line on stderr when lab.progress.
void paper_progress(const PaperLab& lab, const std::string& line);

}  // namespace zk::bench
