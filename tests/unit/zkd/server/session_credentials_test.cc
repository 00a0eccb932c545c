// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/session_credentials.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>

namespace zkd::server {
namespace {

TEST(SessionIds, ServerIdInTopByteClockBitsBelowAndIncrementing) {
  SessionIdGenerator ids(1, 0x4c216);
  EXPECT_EQ(ids.next(), 0x1000004c2160000);  // Apache's layout (docs/wire-protocol.md §2.4)
  EXPECT_EQ(ids.next(), 0x1000004c2160001);
}

TEST(SessionIds, KeepsOnlyLow40ClockBits) {
  SessionIdGenerator ids(1, static_cast<int64_t>(0xABCDEF1234567ULL));
  int64_t id = ids.next();
  EXPECT_EQ(static_cast<uint64_t>(id) >> 56, 1u);
  EXPECT_EQ((static_cast<uint64_t>(id) >> 16) & 0xFFFFFFFFFFULL, 0xDEF1234567ULL);
}

TEST(SessionIds, SkipsTheContainerMarker) {
  SessionIdGenerator ids(0x80, 0);
  EXPECT_EQ(static_cast<uint64_t>(ids.next()), 0x8000000000000001ULL);
}

TEST(SipHash, MatchesPublishedVector) {
  // Reference vector from the SipHash paper: key 00..0f, message 00..0e.
  std::array<uint64_t, 2> key{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};
  std::string msg;
  for (int i = 0; i < 15; ++i) msg.push_back(static_cast<char>(i));
  EXPECT_EQ(siphash24(key, msg), 0xa129ca6149be45e5ULL);
}

TEST(SessionPasswords, SixteenBytesStableAndPerSession) {
  SessionPasswords p({1, 2});
  auto a = p.password(0x100);
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(a, p.password(0x100));
  EXPECT_NE(a, p.password(0x101));
  EXPECT_TRUE(p.matches(0x100, a));
  EXPECT_FALSE(p.matches(0x101, a));
  EXPECT_FALSE(p.matches(0x100, std::string(16, '\0')));
  EXPECT_FALSE(p.matches(0x100, a.substr(0, 15)));
}

TEST(SessionPasswords, DependOnTheSecret) {
  SessionPasswords a({1, 2});
  SessionPasswords b({1, 3});
  EXPECT_NE(a.password(7), b.password(7));
  uint64_t draws = 0;
  const auto random = [&draws] { return ++draws; };
  std::set<std::string> random_keys{
      SessionPasswords(SessionPasswords::random_key(random)).password(7),
      SessionPasswords(SessionPasswords::random_key(random)).password(7)};
  EXPECT_EQ(random_keys.size(), 2u);
}

// A replica made passwords with an earlier key (zkd 0.1's, from the server
// list): they still match, while new ones are made with the current key.
TEST(SessionPasswords, PasswordsOfTheEarlierKeyStillMatch) {
  SessionPasswords earlier({1, 2});
  SessionPasswords now({3, 4}, SessionPasswords::Key{1, 2});
  EXPECT_EQ(now.password(7), SessionPasswords({3, 4}).password(7));
  EXPECT_TRUE(now.matches(7, earlier.password(7)));
  EXPECT_TRUE(now.matches(7, now.password(7)));
  EXPECT_FALSE(now.matches(8, earlier.password(7)));
  EXPECT_FALSE(SessionPasswords({3, 4}).matches(7, earlier.password(7)));
}

}  // namespace
TEST(SessionPasswords, ApachesAreJavaRandomSeededWithTheIdAndItsSecret) {
  // Computed with java.util.Random(id ^ 0xB3415C00L).nextBytes(16 bytes).
  const auto hex = [](const std::string& bytes) {
    std::string out;
    char two[3];
    for (unsigned char c : bytes) {
      std::snprintf(two, sizeof two, "%02x", c);
      out += two;
    }
    return out;
  };
  EXPECT_EQ(hex(SessionPasswords::apache_password(0x100000000000001)),
            "054cc74a37327db215e702e20c73f005");
  EXPECT_EQ(hex(SessionPasswords::apache_password(0x1234567890abcdef)),
            "f7721b383fd583ba74d220ede39f7b43");
  const SessionPasswords apache = SessionPasswords::apache();
  EXPECT_EQ(apache.password(0x1234567890abcdef),
            SessionPasswords::apache_password(0x1234567890abcdef));
  EXPECT_TRUE(apache.matches(0x1234567890abcdef, apache.password(0x1234567890abcdef)));
  EXPECT_FALSE(apache.matches(0x1234567890abcdef, apache.password(0x100000000000001)));
}

}  // namespace zkd::server
