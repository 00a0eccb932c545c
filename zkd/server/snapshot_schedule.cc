// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/snapshot_schedule.h"

#include <algorithm>

namespace zkd::server {

SnapshotSchedule::SnapshotSchedule(int32_t snap_count, uint64_t seed)
    : snap_count_(std::max<int32_t>(snap_count, 2)), random_(seed) {
  draw();
}

void SnapshotSchedule::draw() {
  int64_t half = snap_count_ / 2;
  std::uniform_int_distribution<int64_t> extra(0, half);
  threshold_ = std::max<int64_t>(half + extra(random_), 1);
}

bool SnapshotSchedule::logged() { return ++since_last_ >= threshold_; }

void SnapshotSchedule::started() {
  since_last_ = 0;
  draw();
}

}  // namespace zkd::server
