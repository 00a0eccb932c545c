// SPDX-License-Identifier: Apache-2.0
// An audit event as one line of Apache ZooKeeper 3.8's audit log file: the
// layout of the RFAAUDIT appender in Apache's conf/logback.xml,
// "%d{ISO8601} %p %c{2}: %m%n", with the logger Slf4jAuditLogger logs to:
//
//   2026-11-29 06:12:41,806 ERROR o.a.z.a.Slf4jAuditLogger: session=0x1...<TAB>result=failure
//
// The time is local (the process's time zone, TZ), as logback writes it; the
// level is ERROR for a failure and INFO otherwise (Slf4jAuditLogger); the
// logger name is abbreviated as logback's %c{2} abbreviates
// org.apache.zookeeper.audit.Slf4jAuditLogger. Pure but for the time zone.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "zkd/audit/audit_event.h"

namespace zkd::audit {

// The logger name as the layout prints it.
inline constexpr std::string_view kAuditLoggerName = "o.a.z.a.Slf4jAuditLogger";

// "yyyy-MM-dd HH:mm:ss,SSS" of `wall_ms` (ms since the epoch) in local time.
std::string iso8601_local(int64_t wall_ms);

// The whole line, ending in '\n', for `event` logged at `wall_ms`.
std::string audit_line(const AuditEvent& event, int64_t wall_ms);

}  // namespace zkd::audit
