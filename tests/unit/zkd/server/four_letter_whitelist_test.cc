// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/four_letter_whitelist.h"

#include <gtest/gtest.h>

namespace zkd::server {
namespace {

TEST(FourLetterWhitelist, DefaultAllowsOnlySrvr) {
  FourLetterWhitelist w("srvr");
  EXPECT_TRUE(w.allows("srvr"));
  EXPECT_FALSE(w.allows("ruok"));
  EXPECT_FALSE(w.allows("mntr"));
}

TEST(FourLetterWhitelist, SrvrIsAlwaysAllowed) {
  FourLetterWhitelist w("ruok");
  EXPECT_TRUE(w.allows("srvr"));
  EXPECT_TRUE(w.allows("ruok"));
  EXPECT_FALSE(w.allows("stat"));
}

TEST(FourLetterWhitelist, CommaListWithSpaces) {
  FourLetterWhitelist w(" ruok , mntr,stat ");
  EXPECT_TRUE(w.allows("ruok"));
  EXPECT_TRUE(w.allows("mntr"));
  EXPECT_TRUE(w.allows("stat"));
  EXPECT_FALSE(w.allows("cons"));
}

TEST(FourLetterWhitelist, StarAllowsEverything) {
  FourLetterWhitelist w("*");
  EXPECT_TRUE(w.allows("cons"));
  EXPECT_TRUE(w.allows("wchp"));
}

TEST(FourLetterWhitelist, MessageMatchesApache) {
  EXPECT_EQ(not_whitelisted_message("mntr"),
            "mntr is not executed because it is not in the whitelist.\n");
}

}  // namespace
}  // namespace zkd::server
