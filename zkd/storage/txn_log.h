// SPDX-License-Identifier: Apache-2.0
// The transaction log: a directory of segment files `log.<zxid of first
// record, 16 lowercase hex digits>`, each preallocated with zeros and filled
// with records. Byte format: docs/storage-format.md.
//
// Every write txn (error txns and session create/close too) is appended here
// and made durable before its effect is visible or acknowledged.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::storage {

struct LogOptions {
  std::string dir;                     // dataLogDir/version-2 (or as configured)
  uint64_t preallocate = 64ull << 20;  // zoo.cfg preAllocSize (KiB there, bytes here)
  bool force_sync = true;              // zoo.cfg forceSync=no makes sync() a no-op: UNSAFE
};

// Where writing resumes after recovery.
struct LogTail {
  std::string segment;  // file name of the last segment; empty when there is none
  uint64_t offset = 0;  // end of its last whole record
  int64_t last_zxid = 0;
};

// Appends records to the newest segment. Not thread-safe: one owner (the log
// thread). append() buffers nothing itself: bytes reach the OS at once, and
// are durable after sync().
//
// Segments: a new one is started (named by the zxid being appended) when the
// next record would end past `preallocate`; a record bigger than that gets a
// segment of its own. Leaving a segment (roll() or a full one) syncs it first
// when force_sync, so only the newest segment can hold unsynced bytes; the
// first sync() after a new segment also syncs the directory. Those syncs are
// not counted by syncs().
//
// After a failed write (append, sync, roll or truncate_after returned an
// error) the writer refuses everything with that error: restart and recover.
class TxnLogWriter {
 public:
  // Starts writing after the last record of a recovered log (`tail`, from
  // read_txn_log): continues in tail.segment at tail.offset. With
  // tail.segment empty, the first append starts a new segment. Creates
  // options.dir if missing. Refuses (at append) to overwrite an existing
  // segment, so opening with an empty tail over an existing log fails
  // instead of destroying it.
  static StatusOr<std::unique_ptr<TxnLogWriter>> open(Env& env, const LogOptions& options,
                                                      const LogTail& tail);
  virtual ~TxnLogWriter() = default;

  // zxids must increase (> tail.last_zxid, then > the previous append). The
  // first append after roll() starts a new segment named by that zxid.
  // Records are buffered: they reach the file at sync() (with force_sync or
  // without), roll(), truncate_after(), when a segment fills, past 1 MiB
  // buffered, and when the writer is destroyed; a batch costs one write.
  virtual Status append(int64_t zxid, std::string_view txn) = 0;
  virtual Status sync() = 0;
  // Closes the current segment; the next append opens a new one.
  virtual Status roll() = 0;
  // Drops every record with a zxid above `zxid` (Zab's TRUNC, or discarding
  // the log under an installed snapshot with zxid 0). Afterwards the log holds
  // exactly the records <= `zxid`: segments whose records all lie above it are
  // removed, and the segment holding the cut is zeroed from the end of its
  // last kept record (its preallocated size is kept), which read_txn_log
  // reads as the end of the log. The removal is durable when it returns ok,
  // even with force_sync off: segment removals and the directory are synced
  // first, then the cut segment, so a crash at any point leaves a prefix of
  // the old log. Appending goes on after the cut, in the cut segment (or,
  // when nothing is left, in a new segment named by the next zxid); the next
  // zxid must be greater than `zxid`. With `zxid` at or above the last
  // record nothing changes on disk. A log that cannot be read back (a bad
  // record before the cut) is an error, and any error breaks the writer.
  virtual Status truncate_after(int64_t zxid) = 0;
  // Number of sync() calls that reached the disk (for stats: txns per fsync).
  virtual uint64_t syncs() const = 0;
};

struct LogRecord {
  int64_t zxid = 0;
  std::string txn;  // the txn's bytes as appended
};

struct RecoveredLog {
  std::vector<LogRecord> records;  // zxid > after_zxid, in order
  LogTail tail;
  // Non-empty when a torn last record was cut off: says which file, where, and
  // how many bytes (start-up goes on).
  std::string repaired;
};

// Reads every segment in order and returns the records with zxid > after_zxid.
// A torn tail (a record cut short by a crash: a bad length or checksum followed
// only by zeros, in the last segment) is cut back to the last whole record.
// Any other bad record is corruption: the Status names the file and offset and
// says what to do; nothing is changed on disk.
// The repair zeroes the torn bytes (keeping the preallocation) and syncs; if
// the last segment is left with no whole record it is removed and the tail
// moves to the segment before. `repaired` then reads
// "log.X: cut torn record at offset N (M bytes)" (M: bytes from N to the last
// non-zero one). Segments that can only hold zxids <= after_zxid (the next
// segment starts at or before after_zxid + 1) are not read, except the last
// two. A missing `dir` is an empty log.
StatusOr<RecoveredLog> read_txn_log(Env& env, const std::string& dir, int64_t after_zxid);

// Reads one segment file on its own (for `zkd dump-log`), without repairing:
// the records up to the first bad one, and a Status naming the offset of that
// one (ok when the segment ends in zeros or at end of file).
struct SegmentContents {
  std::vector<LogRecord> records;
  Status status;
};
StatusOr<SegmentContents> read_segment_file(Env& env, const std::string& path);

// Log segment file names in `dir`, oldest first, with the first zxid of each.
struct SegmentName {
  std::string name;
  int64_t first_zxid = 0;
};
StatusOr<std::vector<SegmentName>> list_segments(Env& env, const std::string& dir);
std::string segment_name(int64_t first_zxid);

}  // namespace zkd::storage
