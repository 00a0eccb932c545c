// SPDX-License-Identifier: Apache-2.0
// Sessions: createSession / closeSession txns, ephemeral removal
// (docs/wire-protocol.md §2.4, §9.3).
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using V = std::vector<std::string>;
using zk::wire::Stat;

TEST_F(TreeTest, CreateSessionRecordsTimeout) {
  ApplyResult r = open_session(kOther, 4000);
  EXPECT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(r.response.zxid, 2);
  EXPECT_TRUE(r.response.body.empty());
  EXPECT_TRUE(db.session_exists(kOther));
  EXPECT_EQ(db.session_timeout(kOther), std::optional<int32_t>(4000));
  EXPECT_EQ(db.session_timeout(42), std::nullopt);
  EXPECT_EQ(db.sessions(), (std::vector<SessionId>{kSession, kOther}));
  EXPECT_EQ(db.counts().sessions, 2);
  EXPECT_EQ(db.last_zxid(), 2);
}

TEST_F(TreeTest, CreateSessionTxnShape) {
  Txn t = db.prepare_create_session(kOther, 5000, 9, 1234);
  EXPECT_EQ(t.header.type, OpCode::kCreateSession);
  EXPECT_EQ(t.header.session_id, kOther);
  EXPECT_EQ(t.header.zxid, 9);
  EXPECT_EQ(t.header.time_ms, 1234);
  EXPECT_EQ(std::get<CreateSessionTxn>(t.body).timeout_ms, 5000);
}

TEST_F(TreeTest, CloseSessionListsEphemeralsSorted) {
  create("/p");
  create("/p/z", std::string(), 1);
  create("/a", std::string(), 1);
  create("/p/e-", std::string(), 3);
  create("/persistent");
  EXPECT_EQ(db.ephemerals(kSession), (V{"/a", "/p/e-0000000001", "/p/z"}));
  Txn t = db.prepare_close_session(kSession, 0, 50, time_of(50));
  EXPECT_EQ(t.header.type, OpCode::kCloseSession);
  EXPECT_EQ(t.header.session_id, kSession);
  EXPECT_EQ(std::get<CloseSessionTxn>(t.body).paths_to_delete,
            (V{"/a", "/p/e-0000000001", "/p/z"}));
}

TEST_F(TreeTest, CloseSessionDeletesEphemeralsAndFiresWatches) {
  open_session(kOther);                         // 2
  create("/p");                                 // 3
  create("/p/e", std::string(), 1);             // 4
  create("/p/keep", std::string(), 1, kOther);  // 5
  create("/f", std::string(), 1);               // 6
  read(OpCode::kGetData, "/p/e", true, 1);
  read(OpCode::kGetChildren, "/p", true, 2);
  read(OpCode::kExists, "/f", true, 3);
  read(OpCode::kGetChildren, "/", true, 4);

  ApplyResult r = write(OpCode::kCloseSession, "");  // 7
  EXPECT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(r.response.zxid, 7);
  EXPECT_TRUE(r.response.body.empty());
  EXPECT_EQ(events(r.notifications), (V{"3:NodeDeleted:/f", "4:NodeChildrenChanged:/",
                                        "1:NodeDeleted:/p/e", "2:NodeChildrenChanged:/p"}));

  EXPECT_FALSE(exists("/p/e"));
  EXPECT_FALSE(exists("/f"));
  EXPECT_TRUE(exists("/p/keep"));
  EXPECT_FALSE(db.session_exists(kSession));
  EXPECT_TRUE(db.ephemerals(kSession).empty());
  EXPECT_EQ(db.ephemerals(kOther), V{"/p/keep"});
  EXPECT_EQ(db.counts().ephemerals, 1);
  EXPECT_EQ(db.counts().sessions, 1);
  Stat p = stat("/p");
  EXPECT_EQ(p.pzxid, 7);
  EXPECT_EQ(p.num_children, 1);
  EXPECT_EQ(p.cversion, 3);  // two creates, one delete
  EXPECT_EQ(stat("/").pzxid, 7);
}

TEST_F(TreeTest, WritesAfterCloseAreSessionExpired) {
  db.apply(db.prepare_close_session(kSession, 0, next_zxid(), 0));
  EXPECT_EQ(create("/a").response.err, Error::kSessionExpired);
  EXPECT_EQ(set_data("/", std::string()).response.err, Error::kSessionExpired);
  EXPECT_EQ(set_acl("/", zk::wire::open_acl_unsafe()).response.err, Error::kSessionExpired);
}

TEST_F(TreeTest, CloseSessionReplayIsHarmless) {
  create("/e", std::string(), 1);
  Txn close = db.prepare_close_session(kSession, 0, next_zxid(), 0);
  db.apply(close);
  ApplyResult again = db.apply(close);
  EXPECT_EQ(again.response.err, Error::kOk);
  EXPECT_TRUE(again.notifications.empty());
}

TEST_F(TreeTest, CloseSessionWithoutPathListStillRemovesEphemerals) {
  // Old logs carry closeSession with no record: Apache deletes all the
  // session's ephemerals anyway.
  create("/e", std::string(), 1);
  Txn close{{kSession, 0, next_zxid(), 0, OpCode::kCloseSession}, CloseSessionTxn{}};
  db.apply(close);
  EXPECT_FALSE(exists("/e"));
}

TEST_F(TreeTest, CloseSessionDeletesListedPathsWhateverTheirOwnerAsApacheDoes) {
  // A closeSession txn listing a path that, by the time it is applied (a
  // replay over a snapshot that caught a later incarnation), belongs to
  // another session: Apache's killSession deletes it; the later create in
  // the log brings it back.
  open_session(kOther);
  create("/e", std::string(), 1);
  remove("/e");
  create("/e", std::string(), 1, kOther);
  Txn close{{kSession, 0, next_zxid(), 0, OpCode::kCloseSession}, CloseSessionTxn{{"/e"}}};
  db.apply(close);
  EXPECT_FALSE(exists("/e"));
  EXPECT_EQ(stat("/").pzxid, close.header.zxid);
  EXPECT_TRUE(db.ephemerals(kOther).empty());
}

}  // namespace
}  // namespace zkd::tree::testing
