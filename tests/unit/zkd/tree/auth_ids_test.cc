// SPDX-License-Identifier: Apache-2.0
// AuthIds: a set of ids listed in the order Apache lists a connection's ids.
// The expected orders were printed by Java 17 with Apache 3.8's Id class in
// Collections.newSetFromMap(new ConcurrentHashMap<>()), as ServerCnxn holds them.
#include "zkd/tree/auth_ids.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zkd::tree {
namespace {

using Ids = std::vector<zk::wire::Id>;

TEST(AuthIds, AddDropsRepeatsAndRemembersTheInsertionOrder) {
  AuthIds ids;
  ids.add({"ip", "127.0.0.1"});
  ids.add({"digest", "alice:h"});
  ids.add({"ip", "127.0.0.1"});
  ids.add({"digest", "alice:h"});
  EXPECT_EQ(ids.added(), (Ids{{"ip", "127.0.0.1"}, {"digest", "alice:h"}}));
  EXPECT_EQ(ids.ids().size(), 2u);
  EXPECT_FALSE(ids.is_super());
  ids.add({"super", ""});
  EXPECT_TRUE(ids.is_super());
}

TEST(AuthIds, ListsIdsInApachesOrder) {
  // Also what a live Apache 3.8.0 answers to whoAmI after these auths.
  const AuthIds ids({{"ip", "127.0.0.1"},
                     {"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="},
                     {"super", ""},
                     {"digest", "super:lK75jTNcA+U9vtVEw5vB51mj/w4="}});
  EXPECT_EQ(ids.ids(), (Ids{{"super", ""},
                            {"digest", "super:lK75jTNcA+U9vtVEw5vB51mj/w4="},
                            {"ip", "127.0.0.1"},
                            {"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="}}));
}

TEST(AuthIds, HashesTheUtf16UnitsOfNonAsciiIds) {
  const AuthIds ids({{"ip", "127.0.0.1"},
                     {"digest", "j\xC3\xBCrgen:h"},     // jürgen
                     {"digest", "\xF0\x9F\x98\x80:h"},  // U+1F600, a surrogate pair
                     {"digest", "zo\xC3\xAB:x"},        // zoë
                     {"super", ""},
                     {"digest", "a:b"},
                     {"digest", "\xC3\xBC:1"},                    // ü
                     {"digest", "\xE6\x97\xA5\xE6\x9C\xAC:2"}});  // 日本
  EXPECT_EQ(ids.ids(), (Ids{{"digest", "zo\xC3\xAB:x"},
                            {"digest", "a:b"},
                            {"digest", "\xE6\x97\xA5\xE6\x9C\xAC:2"},
                            {"digest", "\xC3\xBC:1"},
                            {"super", ""},
                            {"ip", "127.0.0.1"},
                            {"digest", "j\xC3\xBCrgen:h"},
                            {"digest", "\xF0\x9F\x98\x80:h"}}));
}

TEST(AuthIds, FollowsTheMapThroughAResize) {
  Ids added{{"ip", "127.0.0.1"}};
  for (int i = 1; i <= 19; ++i) added.push_back({"digest", "u" + std::to_string(i) + ":h"});
  Ids expected;
  for (int i : {19, 13, 14, 11, 12, 0, 18, 17, 15, 16, 3, 2, 5, 4, 7, 6, 10, 9, 8, 1}) {
    expected.push_back(i == 0 ? zk::wire::Id{"ip", "127.0.0.1"}
                              : zk::wire::Id{"digest", "u" + std::to_string(i) + ":h"});
  }
  AuthIds ids;
  for (const auto& id : added) ids.add(id);
  EXPECT_EQ(ids.ids(), expected);
  EXPECT_EQ(ids.added(), added);
}

}  // namespace
}  // namespace zkd::tree
