// SPDX-License-Identifier: Apache-2.0
// Zab's hard state on disk, as Apache keeps it: the files `acceptedEpoch`
// (the newest epoch this replica agreed to join, from a LeaderInfo) and
// `currentEpoch` (the epoch whose NewLeader it acknowledged) in the snapshot
// directory (<dataDir>/version-2), each holding the number as decimal text.
// docs/zab.md, "The Ready contract", step 1: they must be durable before any
// message that depends on them leaves the replica.
#pragma once

#include <cstdint>
#include <string>

#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::server {

struct EpochFiles {
  int64_t accepted_epoch = 0;
  int64_t current_epoch = 0;
  bool operator==(const EpochFiles&) const = default;
};

// `epochs` raised, where behind, to the epoch of `zxid`: what a data dir
// whose last txn is `zxid` must hold (files missing, as a standalone
// Apache leaves them, or lost).
EpochFiles covering(EpochFiles epochs, int64_t zxid);

inline constexpr char kAcceptedEpochFile[] = "acceptedEpoch";
inline constexpr char kCurrentEpochFile[] = "currentEpoch";

// Reads both files from `snap_dir`. A missing file reads as 0 (a fresh
// replica; Apache's files may also be absent after an upgrade). A file that
// is not a non-negative decimal number (surrounding whitespace and a trailing
// newline are allowed) is an error naming the file.
StatusOr<EpochFiles> read_epoch_files(storage::Env& env, const std::string& snap_dir);

// Replaces each file whose content differs from `epochs` (written in full
// under a temporary name, synced, renamed, directory synced); files that
// already hold the value are not touched. acceptedEpoch is written before
// currentEpoch, so a crash in between never leaves currentEpoch ahead of the
// new acceptedEpoch when the caller raises both. Durable when it returns ok.
// Creates `snap_dir` if missing.
Status write_epoch_files(storage::Env& env, const std::string& snap_dir, const EpochFiles& epochs);

}  // namespace zkd::server
