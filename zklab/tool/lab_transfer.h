// SPDX-License-Identifier: Apache-2.0
// `zklab transfer`: moves leadership under a read/write load, as an operator
// does before maintenance on the leader's host. The leader is asked to hand
// its leadership to its most up-to-date follower (zkd's ydld four-letter
// word: writes pause until that follower has every proposal, then it leads
// with no election timeout); zklab waits until another node leads. With
// --to N, node N asks to lead instead (ClickHouse Keeper's rqld word) and
// zklab waits until N leads.
//
// Measured by the load's own clients, as `zklab roll`: the longest gap
// between two successful writes, the sessions lost, the new leaders; the
// timeline goes to CSV and SVG.
#pragma once

#include <chrono>
#include <filesystem>

#include "zklab/tool/lab_commands.h"
#include "zklab/tool/lab_experiment.h"

namespace zk::lab {

struct TransferOptions {
  ExperimentLoad load;
  // The load runs this long before the transfer and after it.
  std::chrono::milliseconds settle{1000};
  // 0: the leader picks (ydld); else this node asks to lead (rqld).
  int to = 0;
  std::filesystem::path csv;  // empty: <lab>/transfer.csv
  std::filesystem::path svg;  // empty: <lab>/transfer.svg
};

LabExit lab_transfer(const LabContext& ctx, const TransferOptions& options);

}  // namespace zk::lab
