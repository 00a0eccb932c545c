// SPDX-License-Identifier: Apache-2.0
// `zklab roll`: a rolling restart of a running lab under a read/write load,
// as an operator upgrades an ensemble. Every follower (and observer) is
// restarted, one at a time, by id, each waited for until it serves again;
// the leader of that moment goes last, after handing its leadership to a
// follower (unless told not to). A restart is graceful (SIGTERM: the
// node closes its links, so its peers see it go at once), or with `kill` a
// SIGKILL, as a plain kill and start. The nodes start with the lab's zkd,
// or the one zklab is given (--zkd): an upgrade rehearsal.
//
// Measured by the load's own clients: the longest gap between two successful
// writes (over all sessions, from the first write of the run to its end) and
// the sessions that expired; also each restart's time (stop to serving) and
// the new leaders. The timeline goes to CSV and SVG as failover's does.
#pragma once

#include <chrono>
#include <filesystem>

#include "zklab/tool/lab_commands.h"
#include "zklab/tool/lab_experiment.h"

namespace zk::lab {

struct RollOptions {
  ExperimentLoad load;
  bool kill = false;  // SIGKILL and start, instead of SIGTERM and start
  // Before the leader's restart, hand its leadership to a follower (ydld,
  // transfer_leadership); one that cannot (an older zkd) is restarted as it is.
  bool transfer = true;
  // The load runs this long before the first restart, between two and after
  // the last.
  std::chrono::milliseconds settle{1000};
  std::filesystem::path csv;  // empty: <lab>/roll.csv
  std::filesystem::path svg;  // empty: <lab>/roll.svg
};

LabExit lab_roll(const LabContext& ctx, const RollOptions& options);

}  // namespace zk::lab
