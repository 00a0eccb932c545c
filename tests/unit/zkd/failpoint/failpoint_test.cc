// SPDX-License-Identifier: Apache-2.0
// Failpoints (zkd/failpoint/failpoint.h): the list, arming and its errors,
// error and crash actions, the N-th hit, and the default crash (SIGKILL).
#include "zkd/failpoint/failpoint.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <set>
#include <string>

#include "zkd/failpoint/points.h"

namespace zkd::failpoint {
namespace {

struct Crashed {
  std::string name;
};

void throw_crashed(const Point& point) { throw Crashed{std::string(point.name())}; }

class FailpointTest : public testing::Test {
 protected:
  void SetUp() override { set_crash_handler(&throw_crashed); }
  void TearDown() override {
    disarm_all();
    set_crash_handler(nullptr);
  }
};

TEST_F(FailpointTest, AtLeastTwelvePointsWithUniqueLowercaseDottedNames) {
  std::set<std::string> names;
  for (const Point* p : all_points()) {
    const std::string name(p->name());
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_NE(name.find('.'), std::string::npos) << name;
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz._"), std::string::npos) << name;
    EXPECT_FALSE(p->where().empty()) << name;
    EXPECT_EQ(find_point(name), p);
  }
  EXPECT_GE(names.size(), 12u);
  EXPECT_EQ(find_point("no.such.point"), nullptr);
}

TEST_F(FailpointTest, ADisarmedPointNeitherFailsNorCounts) {
  EXPECT_FALSE(kLogBeforeSync.fail());
  kLogSynced.hit();
  EXPECT_EQ(kLogBeforeSync.hits(), 0u);
}

TEST_F(FailpointTest, ErrorFailsEveryHitAndErrorAtNOnlyTheNth) {
  ASSERT_EQ(arm("log.before_sync=error"), "");
  EXPECT_TRUE(kLogBeforeSync.fail());
  EXPECT_TRUE(kLogBeforeSync.fail());
  EXPECT_EQ(kLogBeforeSync.error_message(), "failpoint log.before_sync: injected I/O error");

  ASSERT_EQ(arm("log.roll=error@3"), "");
  EXPECT_FALSE(kLogRoll.fail());
  EXPECT_FALSE(kLogRoll.fail());
  EXPECT_TRUE(kLogRoll.fail());
  EXPECT_FALSE(kLogRoll.fail());
  EXPECT_EQ(kLogRoll.hits(), 4u);
}

TEST_F(FailpointTest, CrashAtNCrashesAtTheNthHitOnly) {
  ASSERT_EQ(arm("epoch.current_written=crash@2"), "");
  kEpochCurrentWritten.hit();
  try {
    kEpochCurrentWritten.hit();
    ADD_FAILURE() << "the second hit did not crash";
  } catch (const Crashed& c) {
    EXPECT_EQ(c.name, "epoch.current_written");
  }
  EXPECT_NO_THROW(kEpochCurrentWritten.hit());  // the third is past N
}

TEST_F(FailpointTest, SeveralPointsInOneSpecAndOffDisarms) {
  ASSERT_EQ(arm(" log.before_write = error ; snapshot.before_rename=error@1,"), "");
  EXPECT_TRUE(kLogBeforeWrite.fail());
  EXPECT_TRUE(kSnapshotBeforeRename.fail());
  ASSERT_EQ(arm("log.before_write=off"), "");
  EXPECT_FALSE(kLogBeforeWrite.fail());
}

TEST_F(FailpointTest, ABadSpecSaysWhatIsWrongAndArmsNothing) {
  EXPECT_EQ(arm("log.roll=error,no.such=crash"),
            "unknown failpoint 'no.such' (zkd failpoints lists them)");
  EXPECT_FALSE(kLogRoll.fail());
  EXPECT_EQ(arm("log.roll=explode"),
            "failpoint 'log.roll': unknown action 'explode' (crash, crash@N, error, error@N, off)");
  EXPECT_EQ(arm("log.roll"), "failpoint 'log.roll': expected NAME=ACTION");
  EXPECT_EQ(arm("log.roll=crash@0"),
            "failpoint 'log.roll': '0' after @ is not a hit number (1, 2, ...)");
  EXPECT_EQ(arm("log.roll=crash@x"),
            "failpoint 'log.roll': 'x' after @ is not a hit number (1, 2, ...)");
  EXPECT_EQ(arm("log.synced=error"),
            "failpoint 'log.synced' can only crash: no operation fails there");
}

TEST_F(FailpointTest, TheEnvironmentArmsAndItsErrorsNameIt) {
  ASSERT_EQ(setenv("ZKD_FAILPOINTS", "log.roll=error", 1), 0);
  EXPECT_EQ(arm_from_environment(), "");
  EXPECT_TRUE(kLogRoll.fail());
  ASSERT_EQ(setenv("ZKD_FAILPOINTS", "nope=crash", 1), 0);
  EXPECT_EQ(arm_from_environment(),
            "ZKD_FAILPOINTS: unknown failpoint 'nope' (zkd failpoints lists them)");
  ASSERT_EQ(unsetenv("ZKD_FAILPOINTS"), 0);
  EXPECT_EQ(arm_from_environment(), "");
}

TEST(FailpointDeathTest, TheDefaultCrashIsSigkillAfterNamingThePoint) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        set_crash_handler(nullptr);
        (void)arm("session_key.before_write=crash");
        (void)kSessionKeyBeforeWrite.fail();
      },
      testing::KilledBySignal(SIGKILL), "zkd: failpoint session_key.before_write: crash");
}

}  // namespace
}  // namespace zkd::failpoint
