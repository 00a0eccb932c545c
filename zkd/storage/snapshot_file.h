// SPDX-License-Identifier: Apache-2.0
// Snapshot files: `snapshot.<zxid, 16 lowercase hex digits>` in the data dir,
// written under a temporary name and renamed when whole and synced, so a crash
// never leaves a file with the final name half-written. The payload is opaque
// here (zkd/tree encodes the tree and the sessions); this layer frames it,
// checksums it (CRC32C) and finds the newest valid one. Byte format:
// docs/storage-format.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/status/status.h"
#include "zkd/storage/env.h"
#include "zkd/storage/snapshot_compression.h"

namespace zkd::storage {

// Writes one snapshot in pieces (the tree is walked in chunks between applied
// txns, so the snapshot is fuzzy: replaying the log after `zxid` repairs it).
// Used by one thread (the snapshot thread).
class SnapshotWriter {
 public:
  // `compression`: each append() becomes one compressed block
  // (snapshot_compression.h); the file is then of format version 2.
  static StatusOr<std::unique_ptr<SnapshotWriter>> create(
      Env& env, const std::string& dir, int64_t zxid,
      SnapshotCompression compression = SnapshotCompression::kNone);
  virtual ~SnapshotWriter() = default;
  // Creates `dir` if missing and writes the header to `snapshot.<zxid>.tmp`.
  // Destroying an unfinished writer abandons it. Syncs the file after every
  // 8 MiB appended: a snapshot of a big tree (hundreds of MB) then leaves
  // for the disk in pieces, instead of in one flush at finish() behind which
  // every other sync on that disk (the txn log's) would wait.
  virtual Status append(std::string_view chunk) = 0;
  // Seals (checksum), syncs, renames to the final name, syncs the directory.
  virtual Status finish() = 0;
  // Drops the temporary file (a snapshot that will not be finished).
  virtual void abandon() = 0;
};

struct Snapshot {
  int64_t zxid = 0;
  std::string name;                // file name
  std::unique_ptr<FileView> file;  // the whole file, which `payload` views
  // A compressed file's chunks, which `payload` views (a pointer, so that
  // the view survives moving the Snapshot).
  std::unique_ptr<std::string> decompressed;
  std::string_view payload;  // the chunks, concatenated
};

// The newest snapshot whose checksum and framing are intact; skips (and
// reports in `skipped`) newer ones that are cut short or corrupt. nullopt when
// there is no valid snapshot (a fresh data dir).
struct LoadedSnapshot {
  std::optional<Snapshot> snapshot;
  std::vector<std::string> skipped;  // "snapshot.x: why", newest first
};
StatusOr<LoadedSnapshot> read_latest_snapshot(Env& env, const std::string& dir);

// Snapshot file names in `dir`, newest first, with their zxids.
struct SnapshotName {
  std::string name;
  int64_t zxid = 0;
};
StatusOr<std::vector<SnapshotName>> list_snapshots(Env& env, const std::string& dir);
std::string snapshot_name(int64_t zxid);

// Removes every `snapshot.<z>` in `dir` with z > `zxid`, valid or not (a
// replica whose log was truncated must not recover from state past the cut),
// then syncs the directory when it removed any: durable when it returns ok.
// A missing `dir` holds none. The caller makes sure no snapshot above `zxid`
// is being written meanwhile (its `.tmp` is left alone).
Status remove_snapshots_after(Env& env, const std::string& dir, int64_t zxid);

// Reads and validates one snapshot file (for `zkd dump-snapshot`).
StatusOr<Snapshot> read_snapshot_file(Env& env, const std::string& path);

// What purge() has learnt about snapshot files: whether each one it checked
// is valid, by name and size, so that a later purge with the same object does
// not read it again (a snapshot can be hundreds of MB, and every purge looks
// at the newest `retain` of them). Keep one per snapshot directory for the
// life of the process and pass it to every purge of that directory; used by
// one thread at a time. It holds an entry per snapshot file present at the
// last purge.
// A file whose name and size are unchanged is taken to be unchanged: a file
// with a snapshot's final name is never rewritten in place (SnapshotWriter
// renames whole files). So bytes that rot on disk after the check go unnoticed
// here; recovery checks the snapshot it loads again.
class SnapshotChecks {
 public:
  // Whether `dir`/`name` is a valid snapshot, reading it (in pieces of at most
  // 1 MiB, so memory stays bounded whatever its size) unless it was found
  // valid or invalid before at its current size. An error only when it cannot
  // be opened or read (then nothing is remembered).
  StatusOr<bool> valid(Env& env, const std::string& dir, const std::string& name);
  // Forgets every file not in `present` (the directory's current snapshots).
  void keep_only(const std::vector<SnapshotName>& present);

 private:
  struct Verdict {
    uint64_t size = 0;
    bool valid = false;
  };
  std::map<std::string, Verdict> verdicts_;  // by file name
};

// Autopurge: keeps the newest `retain` snapshots (at least 1) and the log
// segments that hold any txn after the oldest kept snapshot; removes the rest.
// Returns the removed file names.
// Only valid snapshots count as kept (each candidate is checked, reading it in
// bounded pieces, unless `checks` already knows it; one that cannot be read
// counts as invalid), so a corrupt newest snapshot never costs the log needed
// by an older one; with no valid snapshot nothing is removed. Also removes leftover
// `snapshot.<zxid>.tmp` files older than the newest kept snapshot (never one
// that may still be being written). Safe to run while the log writer appends:
// the newest segment is never removed. Rule: docs/storage-format.md.
StatusOr<std::vector<std::string>> purge(Env& env, const std::string& snap_dir,
                                         const std::string& log_dir, int retain,
                                         SnapshotChecks& checks);
// The same with a fresh SnapshotChecks: reads every candidate.
StatusOr<std::vector<std::string>> purge(Env& env, const std::string& snap_dir,
                                         const std::string& log_dir, int retain);

}  // namespace zkd::storage
