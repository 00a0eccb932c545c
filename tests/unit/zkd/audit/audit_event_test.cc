// SPDX-License-Identifier: Apache-2.0
// The text of an audit event and of its line, against lines Apache
// ZooKeeper 3.8 wrote.
#include "zkd/audit/audit_event.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <ctime>

#include "zkd/audit/audit_line.h"

namespace zkd::audit {
namespace {

AuditEvent create_event() {
  AuditEvent event;
  event.session = "0x100027bbf1d0000";
  event.user = "127.0.0.1,alice";
  event.ip = "127.0.0.1";
  event.operation = "create";
  event.znode = "/a";
  event.znode_type = "persistent";
  return event;
}

TEST(AuditEvent, FieldsComeInApachesOrderSeparatedByTabs) {
  AuditEvent event = create_event();
  event.acl = "world:anyone:r";  // not on a create in practice: order only
  EXPECT_EQ(audit_message(event),
            "session=0x100027bbf1d0000\tuser=127.0.0.1,alice\tip=127.0.0.1\toperation=create\t"
            "znode=/a\tznode_type=persistent\tacl=world:anyone:r\tresult=success");
}

TEST(AuditEvent, AbsentFieldsAreLeftOutAndResultIsAlwaysLast) {
  AuditEvent event;
  event.user = "root";
  event.operation = "serverStop";
  event.result = AuditResult::kInvoked;
  EXPECT_EQ(audit_message(event), "user=root\toperation=serverStop\tresult=invoked");
  AuditEvent bare;
  bare.result = AuditResult::kFailure;
  EXPECT_EQ(audit_message(bare), "result=failure");
}

TEST(AuditEvent, AnEmptyValueIsWritten) {
  AuditEvent event;
  event.ip = "";
  EXPECT_EQ(audit_message(event), "ip=\tresult=success");
}

TEST(AuditEvent, CreateModesAreCreateModeNamesInLowerCase) {
  EXPECT_EQ(create_mode_name(0), "persistent");
  EXPECT_EQ(create_mode_name(1), "ephemeral");
  EXPECT_EQ(create_mode_name(2), "persistent_sequential");
  EXPECT_EQ(create_mode_name(3), "ephemeral_sequential");
  EXPECT_EQ(create_mode_name(4), "container");
  EXPECT_EQ(create_mode_name(5), "persistent_with_ttl");
  EXPECT_EQ(create_mode_name(6), "persistent_sequential_with_ttl");
  EXPECT_EQ(create_mode_name(7), std::nullopt);
  EXPECT_EQ(create_mode_name(-1), std::nullopt);
}

TEST(AuditEvent, AclTextRunsEntriesTogetherWithPermsInCdrwaOrder) {
  zk::wire::ACLs acl{{31, {"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="}},
                     {1, {"world", "anyone"}},
                     {0, {"ip", "10.0.0.1"}},
                     {2 | 16, {"sasl", "bob"}}};
  EXPECT_EQ(acl_text(acl),
            "digest:alice:V55/p2T0OpjQ+low3NVAH4aLvm0=:cdrwaworld:anyone:rip:10.0.0.1:sasl:bob:wa");
  EXPECT_EQ(acl_text({}), "");
}

// The process's time zone, for the duration of a test.
class TimeZone {
 public:
  explicit TimeZone(const char* tz) {
    if (const char* old = getenv("TZ")) saved_ = old;
    setenv("TZ", tz, 1);
    tzset();
  }
  ~TimeZone() {
    if (saved_.empty()) {
      unsetenv("TZ");
    } else {
      setenv("TZ", saved_.c_str(), 1);
    }
    tzset();
  }

 private:
  std::string saved_;
};

TEST(AuditLine, IsLogbacksLayoutOfApachesAuditAppender) {
  TimeZone utc("UTC");
  // 2023-11-14 22:13:20.045 UTC
  EXPECT_EQ(audit_line(create_event(), 1'700'000'000'045),
            "2023-11-14 22:13:20,045 INFO o.a.z.a.Slf4jAuditLogger: session=0x100027bbf1d0000\t"
            "user=127.0.0.1,alice\tip=127.0.0.1\toperation=create\tznode=/a\t"
            "znode_type=persistent\tresult=success\n");
}

TEST(AuditLine, AFailureIsLoggedAtErrorAndInvokedAtInfo) {
  TimeZone utc("UTC");
  AuditEvent event = create_event();
  event.result = AuditResult::kFailure;
  EXPECT_EQ(audit_line(event, 0).substr(0, 30), "1970-01-01 00:00:00,000 ERROR ");
  event.result = AuditResult::kInvoked;
  EXPECT_EQ(audit_line(event, 0).substr(0, 29), "1970-01-01 00:00:00,000 INFO ");
}

TEST(AuditLine, TheTimeIsLocal) {
  TimeZone cet("CET-1");
  EXPECT_EQ(iso8601_local(1'700'000'000'999), "2023-11-14 23:13:20,999");
}

}  // namespace
}  // namespace zkd::audit
