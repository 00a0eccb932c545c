// SPDX-License-Identifier: Apache-2.0
#include "zkd/audit/audit_line.h"

#include <cstdio>
#include <ctime>

namespace zkd::audit {

std::string iso8601_local(int64_t wall_ms) {
  // Floor division: a time before 1970 still gets milliseconds 0..999.
  int64_t seconds = wall_ms / 1000;
  int64_t millis = wall_ms % 1000;
  if (millis < 0) {
    millis += 1000;
    --seconds;
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm local{};
  localtime_r(&t, &local);
  char text[40];
  std::snprintf(text, sizeof text, "%04d-%02d-%02d %02d:%02d:%02d,%03d", local.tm_year + 1900,
                local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec,
                static_cast<int>(millis));
  return text;
}

std::string audit_line(const AuditEvent& event, int64_t wall_ms) {
  std::string line = iso8601_local(wall_ms);
  line.append(event.result == AuditResult::kFailure ? " ERROR " : " INFO ");
  line.append(kAuditLoggerName).append(": ").append(audit_message(event)).append("\n");
  return line;
}

}  // namespace zkd::audit
