// SPDX-License-Identifier: Apache-2.0
// When to take the next snapshot, Apache's way (SyncRequestProcessor): after
// snapCount/2 + random(0 .. snapCount/2) logged txns, with a fresh random
// part for every snapshot so that the replicas of an ensemble do not all
// snapshot at the same moment. Pure: the random source is passed in.
// Not thread-safe (the state thread owns it).
#pragma once

#include <cstdint>
#include <random>

namespace zkd::server {

class SnapshotSchedule {
 public:
  // snap_count >= 2 (zoo.cfg snapCount, floored at 2 by the config parser).
  SnapshotSchedule(int32_t snap_count, uint64_t seed);

  // One more txn was logged. True when a snapshot is due (the count restarts
  // only when started() is called: a snapshot already running defers the next).
  bool logged();
  // A snapshot starts: counting restarts towards a new random threshold.
  void started();
  // Whether the txns logged since the last start make a snapshot due.
  bool due() const { return since_last_ >= threshold_; }

  int64_t threshold() const { return threshold_; }
  int64_t since_last() const { return since_last_; }

 private:
  void draw();

  int32_t snap_count_;
  std::mt19937_64 random_;
  int64_t threshold_ = 0;
  int64_t since_last_ = 0;
};

}  // namespace zkd::server
