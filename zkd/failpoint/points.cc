// SPDX-License-Identifier: Apache-2.0
#include "zkd/failpoint/points.h"

#include <array>

namespace zkd::failpoint {

using F = Point::Faults;

Point kEpochBeforeWrite{"epoch.before_write",
                        "a new acceptedEpoch or currentEpoch is about to be written",
                        F::kCrashOrError};
Point kEpochAcceptedWritten{"epoch.accepted_written",
                            "acceptedEpoch is durable; currentEpoch is not yet written", F::kCrash};
Point kEpochCurrentWritten{"epoch.current_written",
                           "currentEpoch is durable; nothing of its Ready has been sent",
                           F::kCrash};

Point kSnapLogCleared{"sync.snap.log_cleared",
                      "installing a SNAP: the leader's snapshot is durable in the staging "
                      "directory, the txn log emptied",
                      F::kCrash};
Point kSnapBeforeWrite{"sync.snap.before_write",
                       "installing a SNAP: the leader's snapshot is about to be staged",
                       F::kCrashOrError};
Point kSnapInstalled{"sync.snap.installed", "installing a SNAP: done on disk, not yet the state",
                     F::kCrash};

Point kTruncBeforeCut{"sync.trunc.before_cut", "a TRUNC: the txn log is about to be cut",
                      F::kCrashOrError};
Point kTruncLogCut{"sync.trunc.log_cut",
                   "a TRUNC: the txn log is cut, snapshots past the cut not yet removed",
                   F::kCrash};

Point kAckNewLeaderBeforeSend{"sync.ack_newleader.before_send",
                              "the learner's txns are durable; its ACK of NEWLEADER is not sent",
                              F::kCrash};
Point kAckNewLeaderSent{"sync.ack_newleader.sent",
                        "the ACK of NEWLEADER is handed to the peer link", F::kCrash};

Point kDigestCompare{"digest.compare",
                     "a learner compares its tree digest with its leader's (error: it compares a "
                     "wrong one, as a replica whose tree diverged would)",
                     F::kCrashOrError};

Point kLogBeforeWrite{"log.before_write", "a txn is about to be appended to the txn log",
                      F::kCrashOrError};
Point kLogBeforeSync{"log.before_sync",
                     "a batch of txns is written to the txn log, not yet fsynced",
                     F::kCrashOrError};
Point kLogSynced{"log.synced", "a batch of txns is fsynced; none of them is acknowledged yet",
                 F::kCrash};
Point kLogRoll{"log.roll", "the txn log is about to start a new segment", F::kCrashOrError};

Point kSnapshotBeforeRename{"snapshot.before_rename",
                            "a snapshot is written and fsynced under its temporary name",
                            F::kCrashOrError};
Point kSnapshotRenamed{"snapshot.renamed",
                       "a snapshot has its final name; the directory is not yet fsynced",
                       F::kCrash};

Point kSessionKeyBeforeWrite{"session_key.before_write", "a new session.key is about to be written",
                             F::kCrashOrError};

std::span<Point* const> all_points() {
  static constexpr std::array kAll{
      &kEpochBeforeWrite,
      &kEpochAcceptedWritten,
      &kEpochCurrentWritten,
      &kSnapLogCleared,
      &kSnapBeforeWrite,
      &kSnapInstalled,
      &kTruncBeforeCut,
      &kTruncLogCut,
      &kAckNewLeaderBeforeSend,
      &kAckNewLeaderSent,
      &kDigestCompare,
      &kLogBeforeWrite,
      &kLogBeforeSync,
      &kLogSynced,
      &kLogRoll,
      &kSnapshotBeforeRename,
      &kSnapshotRenamed,
      &kSessionKeyBeforeWrite,
  };
  return kAll;
}

}  // namespace zkd::failpoint
