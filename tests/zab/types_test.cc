// SPDX-License-Identifier: Apache-2.0
// Unit tests of the pure helpers: zxid arithmetic, the vote order of
// FastLeaderElection, quorum counting, the in-memory log window, config checks.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "zkd/zab/config.h"
#include "zkd/zab/memory_log.h"
#include "zkd/zab/types.h"

namespace zkd::zab {
namespace {

TEST(Zxid, SplitsIntoEpochAndCounter) {
  const Zxid z = make_zxid(3, 17);
  EXPECT_EQ(z, (int64_t{3} << 32) | 17);
  EXPECT_EQ(epoch_of(z), 3);
  EXPECT_EQ(counter_of(z), 17u);
  EXPECT_EQ(zxid_string(z), "3:17");
  EXPECT_EQ(zxid_string(0), "0:0");
}

TEST(Zxid, OrdersByEpochBeforeCounter) {
  EXPECT_LT(make_zxid(1, kMaxCounter), make_zxid(2, 0));
  EXPECT_EQ(counter_of(make_zxid(5, kMaxCounter)), kMaxCounter);
  EXPECT_EQ(epoch_of(make_zxid(kMaxEpoch, kMaxCounter)), kMaxEpoch);
  EXPECT_GT(make_zxid(kMaxEpoch, kMaxCounter), 0);  // never negative
}

TEST(Vote, EpochThenZxidThenId) {
  const Vote base{.leader = 2, .zxid = make_zxid(1, 5), .epoch = 1};
  EXPECT_TRUE(vote_beats({.leader = 1, .zxid = make_zxid(1, 1), .epoch = 2}, base));
  EXPECT_TRUE(vote_beats({.leader = 1, .zxid = make_zxid(1, 6), .epoch = 1}, base));
  EXPECT_TRUE(vote_beats({.leader = 3, .zxid = make_zxid(1, 5), .epoch = 1}, base));
  EXPECT_FALSE(vote_beats({.leader = 1, .zxid = make_zxid(1, 5), .epoch = 1}, base));
  EXPECT_FALSE(vote_beats(base, base));
  // A later epoch wins even with an older zxid: its history was accepted by a quorum.
  EXPECT_FALSE(vote_beats({.leader = 9, .zxid = make_zxid(9, 9), .epoch = 0}, base));
}

TEST(Quorum, Majority) {
  EXPECT_EQ(quorum_size(1), 1u);
  EXPECT_EQ(quorum_size(2), 2u);
  EXPECT_EQ(quorum_size(3), 2u);
  EXPECT_EQ(quorum_size(4), 3u);
  EXPECT_EQ(quorum_size(5), 3u);
}

TEST(Quorum, ZxidAckedByAQuorum) {
  EXPECT_EQ(quorum_zxid({5, 3, 9}, 3), 5);
  EXPECT_EQ(quorum_zxid({5, 3}, 3), 3);
  EXPECT_EQ(quorum_zxid({7}, 3), 0);  // fewer than a quorum answered
  EXPECT_EQ(quorum_zxid({7}, 1), 7);
  EXPECT_EQ(quorum_zxid({1, 2, 3, 4, 5}, 5), 3);
  EXPECT_EQ(quorum_zxid({4, 4, 0, 0}, 4), 0);  // 2 of 4 is no quorum
  EXPECT_EQ(quorum_zxid({4, 4, 4, 0}, 4), 4);
}

TEST(Payload, CopiesShareTheBytes) {
  const Payload payload(std::string(1024, 'x'));
  const Entry entry{make_zxid(1, 1), payload};
  const Entry copy = entry;
  EXPECT_EQ(copy.payload.size(), 1024u);
  EXPECT_EQ(copy.payload.data(), payload.data());  // one buffer, not a copy
  EXPECT_EQ(copy, entry);
  EXPECT_EQ(copy.payload.view(), std::string(1024, 'x'));
}

TEST(Payload, EmptyAndEquality) {
  const Payload none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none, Payload(""));
  EXPECT_EQ(Payload("ab"), Payload(std::string("ab")));
  EXPECT_NE(Payload("ab"), Payload("abc"));
  EXPECT_EQ(std::string_view(Payload("ab")), "ab");
}

std::vector<Entry> entries(std::initializer_list<Zxid> zs) {
  std::vector<Entry> out;
  for (Zxid z : zs) out.push_back({z, "x"});
  return out;
}

TEST(MemoryLog, ContainsAndBefore) {
  const MemoryLog log(make_zxid(1, 2),
                      entries({make_zxid(1, 3), make_zxid(1, 4), make_zxid(2, 1)}));
  EXPECT_TRUE(log.contains(make_zxid(1, 2)));  // the base
  EXPECT_TRUE(log.contains(make_zxid(1, 4)));
  EXPECT_FALSE(log.contains(make_zxid(1, 5)));
  EXPECT_FALSE(log.contains(make_zxid(1, 1)));
  EXPECT_EQ(log.before(make_zxid(1, 5)), make_zxid(1, 4));
  EXPECT_EQ(log.before(make_zxid(1, 3)), make_zxid(1, 2));
  EXPECT_EQ(log.before(make_zxid(3, 1)), make_zxid(2, 1));
  EXPECT_EQ(log.before(make_zxid(1, 2)), std::nullopt);
  EXPECT_EQ(log.range(make_zxid(1, 3), make_zxid(2, 1)).size(), 2u);
}

TEST(MemoryLog, AppendTruncateTrim) {
  MemoryLog log;
  EXPECT_TRUE(log.append({make_zxid(1, 1), "a"}));
  EXPECT_FALSE(log.append({make_zxid(1, 1), "b"}));  // must increase
  for (uint32_t c = 2; c <= 6; ++c) EXPECT_TRUE(log.append({make_zxid(1, c), "x"}));
  log.truncate_after(make_zxid(1, 4));
  EXPECT_EQ(log.last(), make_zxid(1, 4));
  log.trim(make_zxid(1, 3), 1);  // keep 1 entry <= 1:3, and everything after it
  EXPECT_EQ(log.base(), make_zxid(1, 2));
  EXPECT_EQ(log.size(), 2u);
  log.truncate_after(make_zxid(1, 1));  // below the base: empty at 1:1
  EXPECT_EQ(log.base(), make_zxid(1, 1));
  EXPECT_EQ(log.last(), make_zxid(1, 1));
}

TEST(Config, Validate) {
  Config c{.id = 1, .voters = {1, 2, 3}};
  EXPECT_EQ(validate(c), "");
  c.id = 4;  // not a member: a server a reconfiguration removed
  EXPECT_EQ(validate(c), "");
  c.id = 0;
  EXPECT_NE(validate(c), "");
  c = Config{.id = 1, .voters = {1, 1}};
  EXPECT_NE(validate(c), "");
  c = Config{.id = 1, .voters = {1}, .sync_limit = 0};
  EXPECT_NE(validate(c), "");
}

TEST(Config, ObserversAreDisjointFromVoters) {
  Config c{.id = 4, .voters = {1, 2, 3}, .observers = {4, 5}};
  EXPECT_EQ(validate(c), "");
  c.id = 2;  // a voter of an ensemble with observers
  EXPECT_EQ(validate(c), "");
  c = Config{.id = 4, .voters = {1, 2, 3}, .observers = {3, 4}};
  EXPECT_NE(validate(c), "");
  c = Config{.id = 4, .voters = {1, 2, 3}, .observers = {4, 4}};
  EXPECT_NE(validate(c), "");
  c = Config{.id = 4, .voters = {}, .observers = {4}};
  EXPECT_NE(validate(c), "");
  c = Config{.id = 4, .voters = {1}, .observers = {4, 0}};
  EXPECT_NE(validate(c), "");
}

}  // namespace
}  // namespace zkd::zab
