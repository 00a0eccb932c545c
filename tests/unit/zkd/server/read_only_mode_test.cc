// SPDX-License-Identifier: Apache-2.0
// When read-only mode starts and ends (read_only_mode.h), and the JVM flag
// that enables it as Apache's operators pass it (jvm_properties.h).
#include <gtest/gtest.h>

#include "zkd/server/config.h"
#include "zkd/server/jvm_properties.h"
#include "zkd/server/read_only_mode.h"

namespace zkd::server {
namespace {

TEST(ReadOnlyMode, StartsOnceAfterTheGraceWithoutQuorumAndEndsWithIt) {
  ReadOnlyMode mode(true, 200);  // tickTime 200: the 2 s floor
  EXPECT_EQ(mode.grace_ms(), 2000);
  EXPECT_FALSE(mode.tick(0));  // serving: never
  mode.quorum_lost(1000);
  mode.quorum_lost(2500);  // still the first loss that counts
  EXPECT_FALSE(mode.tick(2999));
  EXPECT_FALSE(mode.active());
  EXPECT_TRUE(mode.tick(3000));
  EXPECT_TRUE(mode.active());
  EXPECT_FALSE(mode.tick(3050));  // started once
  EXPECT_TRUE(mode.active());
  mode.quorum_back();
  EXPECT_FALSE(mode.active());
  EXPECT_FALSE(mode.tick(10000));
  mode.quorum_lost(10000);
  EXPECT_TRUE(mode.tick(12000));
}

TEST(ReadOnlyMode, TheGraceIsTickTimeWhenLongerAndNeverStartsDisabled) {
  ReadOnlyMode slow(true, 5000);
  EXPECT_EQ(slow.grace_ms(), 5000);
  slow.quorum_lost(0);
  EXPECT_FALSE(slow.tick(4999));
  EXPECT_TRUE(slow.tick(5000));

  ReadOnlyMode off(false, 200);
  off.quorum_lost(0);
  EXPECT_FALSE(off.tick(100000));
  EXPECT_FALSE(off.active());
}

TEST(JvmProperties, ReadonlymodeEnabledFromEitherVariableTheLaterWinning) {
  auto enabled = [](const char* server_jvmflags, const char* jvmflags) {
    ServerConfig config;
    apply_jvm_properties(config, server_jvmflags, jvmflags);
    return config.read_only_mode;
  };
  EXPECT_TRUE(enabled("-Xmx1g -Dreadonlymode.enabled=true", ""));
  EXPECT_TRUE(enabled("", "-Dreadonlymode.enabled=TRUE"));
  EXPECT_FALSE(enabled("-Dreadonlymode.enabled=true", "-Dreadonlymode.enabled=false"));
  EXPECT_FALSE(enabled("-Dreadonlymode.enabled=yes", ""));
  EXPECT_FALSE(enabled("", ""));
  // Absent from the flags, zoo.cfg's key stands.
  ServerConfig config;
  config.read_only_mode = true;
  apply_jvm_properties(config, "", "");
  EXPECT_TRUE(config.read_only_mode);
}

TEST(JvmProperties, SuperDigestAsApacheOperatorsPassIt) {
  ServerConfig config;
  config.digest.super_digest = "from-zoo-cfg";
  apply_jvm_properties(config, "", "");
  EXPECT_EQ(config.digest.super_digest, "from-zoo-cfg");
  apply_jvm_properties(
      config,
      "-Dzookeeper.DigestAuthenticationProvider.superDigest=super:D/InIHSb7yEEbrWz8b9l71RjZJU=",
      "");
  EXPECT_EQ(config.digest.super_digest, "super:D/InIHSb7yEEbrWz8b9l71RjZJU=");
}

}  // namespace
}  // namespace zkd::server
