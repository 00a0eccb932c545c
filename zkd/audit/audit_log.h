// SPDX-License-Identifier: Apache-2.0
// Where audit events go: AuditSink, and AuditLogFile, the file Apache's
// RFAAUDIT appender writes (conf/logback.xml): one audit_line() per event,
// appended; once the file has reached its size limit, the next event first
// rolls it over in a fixed window, as logback's FixedWindowRollingPolicy
// (file.N-1 -> file.N, ..., file -> file.1, the oldest dropped) and starts a
// new file.
//
// Thread-safe: lines are written whole and in order, under a mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "zkd/audit/audit_event.h"
#include "zkd/clock/clock.h"
#include "zkd/status/status.h"

namespace zkd::audit {

class AuditSink {
 public:
  virtual ~AuditSink() = default;
  virtual void write(const AuditEvent& event) = 0;
};

struct AuditFileOptions {
  std::string path;  // the file; its directory must exist
  // The size at which the file is rolled over (logback's MaxFileSize, 10MB
  // in Apache's configuration); 0: never.
  uint64_t max_file_size = 10 * 1024 * 1024;
  // Rolled-over files kept, path.1 (newest) .. path.N (logback's maxIndex,
  // 10 in Apache's configuration); 0: none, the full file is truncated.
  int max_backup_index = 10;
};

class AuditLogFile final : public AuditSink {
 public:
  // Opens (creates, or appends to) options.path; an error names the file.
  // Each line is stamped with `clock`'s wall time; `clock` outlives the file.
  static StatusOr<std::unique_ptr<AuditLogFile>> open(AuditFileOptions options, Clock& clock);
  ~AuditLogFile() override;
  AuditLogFile(const AuditLogFile&) = delete;
  AuditLogFile& operator=(const AuditLogFile&) = delete;

  // Appends the event's line. A failure to write or roll over is logged (as
  // a warning, once until a write succeeds again) and the line is lost: an
  // audit log never stops the server, as a logback appender does not.
  void write(const AuditEvent& event) override;

 private:
  AuditLogFile(AuditFileOptions options, Clock& clock, int fd, uint64_t size);
  // Renames the files of the window and reopens `path` empty.
  bool roll_over();
  void warn(const std::string& what);

  const AuditFileOptions options_;
  Clock& clock_;
  std::mutex mutex_;
  int fd_;
  uint64_t size_;
  bool failing_ = false;
};

}  // namespace zkd::audit
