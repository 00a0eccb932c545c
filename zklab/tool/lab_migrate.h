// SPDX-License-Identifier: Apache-2.0
// `zklab migrate --to zkd|apache`: a mixed lab (lab_state.h, `up --kinds`)
// moved node by node from one server to the other under a read/write load,
// as an operator replaces Apache ZooKeeper by zkd (or back) without
// downtime. Every node that does not run the wanted kind yet, one at a time,
// by id, the node leading at that moment last: stopped (SIGTERM), its data
// removed (dataDir but myid and session.key: the other kind keeps its data
// in another format, so the node rejoins empty and is sent a SNAP), its kind
// file changed, started as the other kind and waited for until it serves.
// With `kill_leader_between`, between two steps the leader of that moment
// is SIGKILLed and started again (same kind), so that leadership moves
// between kinds mid-migration.
//
// Measured as `zklab roll` (lab_roll.h): the load's longest gap between two
// successful writes, per step and over the run, the sessions lost, the
// leaders; the timeline goes to CSV and SVG.
#pragma once

#include <chrono>
#include <filesystem>

#include "zklab/process/flavour.h"
#include "zklab/tool/lab_commands.h"
#include "zklab/tool/lab_experiment.h"

namespace zk::lab {

struct MigrateOptions {
  Flavour to = Flavour::kZkd;
  ExperimentLoad load;
  bool kill_leader_between = false;
  // The load runs this long before the first step, between two and after
  // the last.
  std::chrono::milliseconds settle{1000};
  std::filesystem::path csv;  // empty: <lab>/migrate.csv
  std::filesystem::path svg;  // empty: <lab>/migrate.svg
};

LabExit lab_migrate(const LabContext& ctx, const MigrateOptions& options);

// Removes everything in `node`'s dataDir but myid and session.key (then an
// empty version-2), as a node changing kinds needs; empty or why not. The
// node must be down.
std::string wipe_node_data(const LabNode& node);

}  // namespace zk::lab
