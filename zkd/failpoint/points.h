// SPDX-License-Identifier: Apache-2.0
// zkd's failpoints (failpoint.h), in the order a replica meets them: the
// Ready contract's hard state (docs/zab.md, "The Ready contract", step 1),
// synchronisation with a leader (SNAP, TRUNC, the acknowledgement of
// NEWLEADER), the txn log thread, snapshots, the session key. `zkd
// failpoints` prints this list; each point's `where` says what is durable
// when it is hit.
#pragma once

#include "zkd/failpoint/failpoint.h"

namespace zkd::failpoint {

// Ready step 1: the epoch files (zkd/server/epoch_files.h).
extern Point kEpochBeforeWrite;
extern Point kEpochAcceptedWritten;
extern Point kEpochCurrentWritten;

// Ready step 2: the leader's snapshot replaces state and log (SNAP).
extern Point kSnapLogCleared;
extern Point kSnapBeforeWrite;
extern Point kSnapInstalled;

// Ready step 3: truncation (TRUNC).
extern Point kTruncBeforeCut;
extern Point kTruncLogCut;

// Ready step 6: the learner's acknowledgement of NEWLEADER.
extern Point kAckNewLeaderBeforeSend;
extern Point kAckNewLeaderSent;

// Ready step 10: a learner compares its tree digest with its leader's.
extern Point kDigestCompare;

// The txn log thread (zkd/server/log_thread.h): DIFF and broadcast txns alike.
extern Point kLogBeforeWrite;
extern Point kLogBeforeSync;
extern Point kLogSynced;
extern Point kLogRoll;

// Snapshot files (zkd/storage/snapshot_file.h).
extern Point kSnapshotBeforeRename;
extern Point kSnapshotRenamed;

// The session key (dataDir/version-2/session.key).
extern Point kSessionKeyBeforeWrite;

}  // namespace zkd::failpoint
