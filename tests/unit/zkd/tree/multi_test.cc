// SPDX-License-Identifier: Apache-2.0
// multi (14), check (13) and multiRead (22): §7 of docs/wire-protocol.md.
#include "libzk/wire/multi.h"

#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::MultiOp;
using zk::wire::MultiResult;
using zk::wire::Stat;
using V = std::vector<std::string>;

std::vector<MultiResult> results_of(const std::string& body) {
  std::vector<MultiResult> out;
  EXPECT_TRUE(zk::wire::decode_multi_response(body, out));
  return out;
}

// "type:err" per result, e.g. "1:0" for a create, "-1:-101" for a failure.
V shape(const std::vector<MultiResult>& results) {
  V out;
  for (const MultiResult& r : results) {
    out.push_back(std::to_string(static_cast<int32_t>(r.type)) + ":" +
                  std::to_string(static_cast<int32_t>(r.err)));
  }
  return out;
}

class MultiTest : public TreeTest {
 protected:
  ApplyResult multi(const std::vector<MultiOp>& ops) {
    return write(OpCode::kMulti, zk::wire::encode_multi_request(ops));
  }
  Response multi_read(const std::vector<MultiOp>& ops) {
    return db.read(5, OpCode::kMultiRead, zk::wire::encode_multi_request(ops));
  }
};

TEST_F(MultiTest, AllOperationsApplyAtOneZxidWithTheirOwnResults) {
  create("/p");                          // 2
  create("/p/old", std::string("old"));  // 3
  MultiOp create2 = zk::wire::multi_create("/p/s-", std::string("v"),
                                           zk::wire::CreateMode::kPersistentSequential);
  create2.type = OpCode::kCreate2;
  ApplyResult r = multi({zk::wire::multi_create("/p/a", std::string("a")), create2,
                         zk::wire::multi_set_data("/p/old", std::string("new"), 0),
                         zk::wire::multi_check("/p/old", 1), zk::wire::multi_remove("/p/a")});
  ASSERT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(r.response.zxid, 4);
  std::vector<MultiResult> results = results_of(r.response.body);
  EXPECT_EQ(shape(results), (V{"1:0", "15:0", "5:0", "13:0", "2:0"}));
  EXPECT_EQ(results[0].path, "/p/a");
  EXPECT_EQ(results[1].path, "/p/s-0000000002");  // /p had two creates before: /p/old, /p/a
  EXPECT_EQ(results[1].stat, fresh_stat(4, 1));
  EXPECT_EQ(results[2].stat.version, 1);
  EXPECT_EQ(results[2].stat.mzxid, 4);

  EXPECT_FALSE(exists("/p/a"));
  EXPECT_EQ(data("/p/old"), std::optional<std::string>("new"));
  EXPECT_EQ(children("/p"), (V{"old", "s-0000000002"}));
  Stat parent = stat("/p");
  EXPECT_EQ(parent.pzxid, 4);
  EXPECT_EQ(parent.cversion, 4);  // three creates and one delete
  EXPECT_EQ(last_txn.header.type, OpCode::kMulti);
}

TEST_F(MultiTest, EachOperationSeesTheOnesBeforeIt) {
  create("/p");
  ApplyResult r =
      multi({zk::wire::multi_create("/p/a", std::string()),
             zk::wire::multi_create("/p/a/b", std::string()), zk::wire::multi_remove("/p/a/b"),
             zk::wire::multi_check("/p/a", 0), zk::wire::multi_remove("/p/a"),
             zk::wire::multi_create("/p/a", std::string("again"))});
  EXPECT_EQ(shape(results_of(r.response.body)), (V{"1:0", "1:0", "2:0", "13:0", "2:0", "1:0"}));
  EXPECT_EQ(data("/p/a"), std::optional<std::string>("again"));
  EXPECT_TRUE(children("/p/a").empty());
}

TEST_F(MultiTest, AFailureRollsBackEveryOperationAndStillUsesAZxid) {
  create("/p", std::string("x"));  // 2
  ApplyResult r = multi({zk::wire::multi_create("/p/a", std::string()),
                         zk::wire::multi_set_data("/p", std::string("y")),
                         zk::wire::multi_check("/p", 7), zk::wire::multi_remove("/p")});
  ASSERT_EQ(r.response.err, Error::kOk);  // the failure is in the results only
  EXPECT_EQ(r.response.zxid, 3);
  EXPECT_EQ(shape(results_of(r.response.body)), (V{"-1:0", "-1:0", "-1:-103", "-1:-2"}));
  EXPECT_FALSE(exists("/p/a"));
  EXPECT_EQ(data("/p"), std::optional<std::string>("x"));
  EXPECT_EQ(stat("/p"), fresh_stat(2, 1));
  EXPECT_EQ(db.last_zxid(), 3);
  EXPECT_EQ(next_zxid(), 4);
}

TEST_F(MultiTest, AFailedMultiAsApacheLogsItChangesNothing) {
  // Apache logs a failed multi with the real txns of the operations before
  // the failing one (zkd logs only error txns); replaying it must change
  // nothing and answer as the rolled-back multi did (zkd import reads such logs).
  create("/p", std::string("x"));  // 2
  const int64_t z = next_zxid();
  const TxnHeader h{kSession, 9, z, time_of(z), OpCode::kMulti};
  const auto sub = [&h](OpCode type, TxnBody body) {
    TxnHeader sub_header = h;
    sub_header.type = type;
    return Txn{sub_header, std::move(body)};
  };
  MultiTxn logged;
  logged.ops.push_back(sub(
      OpCode::kCreate, CreateTxn{"/p/a", std::string(), zk::wire::open_acl_unsafe(), false, 1}));
  logged.ops.push_back(sub(OpCode::kSetData, SetDataTxn{"/p", std::string("y"), 1}));
  logged.ops.push_back(sub(OpCode::kError, ErrorTxn{Error::kBadVersion}));
  logged.ops.push_back(sub(OpCode::kError, ErrorTxn{Error::kRuntimeInconsistency}));
  ApplyResult r = db.apply(Txn{h, logged});
  EXPECT_EQ(shape(results_of(r.response.body)), (V{"-1:0", "-1:0", "-1:-103", "-1:-2"}));
  EXPECT_FALSE(exists("/p/a"));
  EXPECT_EQ(data("/p"), std::optional<std::string>("x"));
  EXPECT_EQ(stat("/p"), fresh_stat(2, 1));
  EXPECT_EQ(db.last_zxid(), z);
}

TEST_F(MultiTest, AFailedMultiLeavesNothingPendingBehind) {
  // Prepared but not applied: a later prepare must not see the rolled-back create.
  int64_t z = next_zxid();
  Txn failed =
      db.prepare(kSession, 1, OpCode::kMulti,
                 zk::wire::encode_multi_request({zk::wire::multi_create("/a", std::string()),
                                                 zk::wire::multi_check("/missing", -1)}),
                 z, time_of(z));
  Txn create_a = db.prepare(
      kSession, 2, OpCode::kCreate,
      encode(zk::wire::CreateRequest{"/a", std::string(), zk::wire::open_acl_unsafe(), 0}), z + 1,
      time_of(z + 1));
  EXPECT_TRUE(std::holds_alternative<CreateTxn>(create_a.body));
  EXPECT_EQ(shape(results_of(db.apply(failed).response.body)), (V{"-1:0", "-1:-101"}));
  EXPECT_EQ(db.apply(create_a).response.err, Error::kOk);
}

TEST_F(MultiTest, ASuccessfulMultiIsSeenByLaterPrepares) {
  int64_t z = next_zxid();
  Txn multi_txn =
      db.prepare(kSession, 1, OpCode::kMulti,
                 zk::wire::encode_multi_request({zk::wire::multi_create("/a", std::string()),
                                                 zk::wire::multi_create("/a/b", std::string())}),
                 z, time_of(z));
  Txn again = db.prepare(
      kSession, 2, OpCode::kCreate,
      encode(zk::wire::CreateRequest{"/a/b", std::string(), zk::wire::open_acl_unsafe(), 0}), z + 1,
      time_of(z + 1));
  EXPECT_EQ(std::get<ErrorTxn>(again.body).err, Error::kNodeExists);
  db.apply(multi_txn);
  db.apply(again);
  EXPECT_TRUE(exists("/a/b"));
}

TEST_F(MultiTest, AnEmptyMultiUsesAZxidAndAnswersNoResults) {
  ApplyResult r = multi({});
  EXPECT_EQ(r.response.err, Error::kOk);
  EXPECT_TRUE(results_of(r.response.body).empty());
  EXPECT_EQ(db.last_zxid(), 2);
}

TEST_F(MultiTest, WhatAMultiMayNotHoldIsAMarshallingErrorForTheWhole) {
  create("/p");
  EXPECT_EQ(multi({zk::wire::multi_create("/p/a", std::string()), zk::wire::multi_get_data("/p")})
                .response.err,
            Error::kMarshallingError);
  std::string truncated = zk::wire::encode_multi_request({zk::wire::multi_remove("/p")});
  truncated.resize(truncated.size() - 9);  // no terminator
  EXPECT_EQ(write(OpCode::kMulti, truncated).response.err, Error::kMarshallingError);
  EXPECT_FALSE(exists("/p/a"));
}

// Apache 3.8.0 (checked live): a create's kind comes from its flags.
TEST_F(MultiTest, CreatesAreJudgedByTheirFlags) {
  create("/p");
  auto with_flags = [](int32_t flags, OpCode type = OpCode::kCreate) {
    MultiOp op =
        zk::wire::multi_create("/p/a", std::string(), static_cast<zk::wire::CreateMode>(flags));
    op.type = type;
    return op;
  };
  // Not a CreateMode: that operation fails with BADARGUMENTS.
  EXPECT_EQ(shape(results_of(multi({with_flags(7)}).response.body)), V{"-1:-8"});
  EXPECT_EQ(shape(results_of(multi({with_flags(-1)}).response.body)), V{"-1:-8"});
  // TTL flags with extended types off: the whole request, once reached.
  EXPECT_EQ(multi({zk::wire::multi_check("/p", 0), with_flags(5)}).response.err,
            Error::kMarshallingError);
  EXPECT_EQ(shape(results_of(multi({zk::wire::multi_check("/p", 9), with_flags(5)}).response.body)),
            (V{"-1:-103", "-1:-2"}));
  // A createContainer or createTTL header with flags 0 is a plain create.
  EXPECT_EQ(shape(results_of(multi({with_flags(0, OpCode::kCreateContainer)}).response.body)),
            V{"1:0"});
  EXPECT_EQ(stat("/p/a").ephemeral_owner, 0);
}

TEST_F(MultiTest, WatchesFirePerOperationAfterTheCommit) {
  create("/p");
  create("/p/x");
  read(OpCode::kGetChildren, "/p", true, 1);
  read(OpCode::kGetData, "/p/x", true, 2);
  read(OpCode::kExists, "/p/new", true, 3);
  ApplyResult r = multi({zk::wire::multi_create("/p/new", std::string()),
                         zk::wire::multi_set_data("/p/x", std::string("d"))});
  EXPECT_EQ(events(r.notifications),
            (V{"3:NodeCreated:/p/new", "1:NodeChildrenChanged:/p", "2:NodeDataChanged:/p/x"}));
}

TEST_F(MultiTest, AFailedMultiFiresNothing) {
  create("/p");
  read(OpCode::kGetChildren, "/p", true, 1);
  ApplyResult r =
      multi({zk::wire::multi_create("/p/new", std::string()), zk::wire::multi_check("/p", 3)});
  EXPECT_TRUE(r.notifications.empty());
}

TEST_F(MultiTest, StandaloneCheckAnswersTheVersionCheck) {
  create("/a");
  EXPECT_EQ(write(OpCode::kCheck, encode(zk::wire::CheckVersionRequest{"/a", 0})).response.err,
            Error::kOk);
  EXPECT_EQ(write(OpCode::kCheck, encode(zk::wire::CheckVersionRequest{"/a", 4})).response.err,
            Error::kBadVersion);
  EXPECT_EQ(write(OpCode::kCheck, encode(zk::wire::CheckVersionRequest{"/b", -1})).response.err,
            Error::kNoNode);
}

TEST_F(MultiTest, MultiTxnRoundTripsThroughTheLogEncoding) {
  create("/p");
  for (int32_t check_version : {0, 5}) {  // a committed and a failed multi
    multi({zk::wire::multi_create("/p/a", std::string("v"), zk::wire::CreateMode::kEphemeral),
           zk::wire::multi_check("/p", check_version), zk::wire::multi_remove("/p/a")});
    std::string bytes;
    zk::wire::Writer w(bytes);
    write_txn(w, last_txn);
    Txn back;
    ASSERT_TRUE(read_txn(bytes, back));
    std::string again;
    zk::wire::Writer w2(again);
    write_txn(w2, back);
    EXPECT_EQ(again, bytes);
    const auto& ops = std::get<MultiTxn>(back.body).ops;
    ASSERT_EQ(ops.size(), 3u);
    EXPECT_EQ(ops[0].header.zxid, last_txn.header.zxid);
    if (check_version == 0) {
      EXPECT_TRUE(std::get<CreateTxn>(ops[0].body).ephemeral);
      EXPECT_EQ(std::get<CheckVersionTxn>(ops[1].body).path, "/p");
    } else {
      EXPECT_EQ(std::get<ErrorTxn>(ops[1].body).err, Error::kBadVersion);
    }
  }
}

TEST_F(MultiTest, MultiReadAnswersEachOperationOnItsOwnAndSetsNoWatch) {
  create("/p", std::string("pd"));
  create("/p/c");
  Response r = multi_read({zk::wire::multi_get_data("/p"), zk::wire::multi_get_children("/p"),
                           zk::wire::multi_get_data("/missing")});
  ASSERT_EQ(r.err, Error::kOk);
  std::vector<MultiResult> results = results_of(r.body);
  EXPECT_EQ(shape(results), (V{"4:0", "8:0", "-1:-101"}));
  EXPECT_EQ(results[0].data, std::optional<std::string>("pd"));
  EXPECT_EQ(results[0].stat, stat("/p"));
  EXPECT_EQ(results[1].children, V{"c"});
  EXPECT_TRUE(set_data("/p", std::string("x")).notifications.empty());
  // Writes alone: refused with an empty result list; mixed: refused bare.
  Response writes = db.read(5, OpCode::kMultiRead,
                            zk::wire::encode_multi_request({zk::wire::multi_remove("/p/c")}));
  EXPECT_EQ(writes.err, Error::kMarshallingError);
  EXPECT_EQ(writes.body, zk::wire::encode_multi_request({}));
  Response mixed = db.read(5, OpCode::kMultiRead,
                           zk::wire::encode_multi_request(
                               {zk::wire::multi_get_data("/p"), zk::wire::multi_remove("/p/c")}));
  EXPECT_EQ(mixed.err, Error::kMarshallingError);
  EXPECT_TRUE(mixed.body.empty());
}

}  // namespace
}  // namespace zkd::tree::testing
