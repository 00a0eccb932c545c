// SPDX-License-Identifier: Apache-2.0
// Where ACL checks sit in Apache's validation order (docs/wire-protocol.md
// §6.3, §10.4, §10.5), what getACL shows without ADMIN, that a refused read
// (exists included) sets no watch, that pending setACLs count, and that a
// multi checks each of its operations.
#include <string>
#include <vector>

#include "libzk/wire/multi.h"
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

namespace perms = zk::wire::perms;
using zk::wire::ACLs;

const zk::wire::Id kAlice{"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="};
const zk::wire::Id kBob{"digest", "bob:ikIaKsbtGweaHnb/jKn7OHqbunM="};

class AclTest : public TreeTest {
 protected:
  AuthIds alice() const { return AuthIds({{"ip", "127.0.0.1"}, kAlice}); }
  AuthIds nobody() const { return AuthIds({{"ip", "127.0.0.1"}}); }

  ApplyResult write_as(const AuthIds& ids, OpCode op, const std::string& body) {
    int64_t z = next_zxid();
    last_txn = db.prepare(kSession, 7, op, body, z, time_of(z), ids);
    return db.apply(last_txn);
  }
  Error create_as(const AuthIds& ids, const std::string& path, const ACLs& acl) {
    return write_as(ids, OpCode::kCreate,
                    encode(zk::wire::CreateRequest{path, std::string(), acl, 0}))
        .response.err;
  }
  Response read_as(const AuthIds& ids, OpCode op, const std::string& path, bool watch = false,
                   WatcherId watcher = 1) {
    if (op == OpCode::kGetACL || op == OpCode::kGetAllChildrenNumber) {
      return db.read(watcher, op, encode(zk::wire::PathRecord{path}), ids);
    }
    return db.read(watcher, op, encode(zk::wire::PathWatchRequest{path, watch}), ids);
  }
};

TEST_F(AclTest, CreateChecksAclValidityBeforeTheParentAndCreateBeforeExistence) {
  ASSERT_EQ(create_as(alice(), "/locked", {{perms::kAll, kAlice}}), Error::kOk);
  ASSERT_EQ(create_as(alice(), "/locked/x", zk::wire::open_acl_unsafe()), Error::kOk);
  const ACLs bad{{perms::kAll, {"ip", "bad"}}};
  EXPECT_EQ(create_as(nobody(), "/missing/x", bad), Error::kInvalidACL);
  EXPECT_EQ(create_as(nobody(), "/locked/y", bad), Error::kInvalidACL);
  EXPECT_EQ(create_as(nobody(), "/missing/x", zk::wire::open_acl_unsafe()), Error::kNoNode);
  // NOAUTH comes before NODEEXISTS and before the final path check.
  EXPECT_EQ(create_as(nobody(), "/locked/x", zk::wire::open_acl_unsafe()), Error::kNoAuth);
  EXPECT_EQ(create_as(nobody(), "/locked/.", zk::wire::open_acl_unsafe()), Error::kNoAuth);
  EXPECT_EQ(create_as(alice(), "/locked/.", zk::wire::open_acl_unsafe()), Error::kBadArguments);
  EXPECT_EQ(create_as(alice(), "/locked/x", zk::wire::open_acl_unsafe()), Error::kNodeExists);
}

TEST_F(AclTest, CreateWithAuthNeedsADigestIdAndStoresIt) {
  const ACLs creator_all{{perms::kAll, {"auth", ""}}};
  EXPECT_EQ(create_as(nobody(), "/mine", creator_all), Error::kInvalidACL);
  ASSERT_EQ(create_as(alice(), "/mine", creator_all), Error::kOk);
  Response r = read_as(alice(), OpCode::kGetACL, "/mine");
  ASSERT_EQ(r.err, Error::kOk);
  EXPECT_EQ(decode_as<zk::wire::GetACLResponse>(r.body).acl, (ACLs{{perms::kAll, kAlice}}));
  EXPECT_EQ(read_as(nobody(), OpCode::kGetData, "/mine").err, Error::kNoAuth);
  EXPECT_EQ(read_as(alice(), OpCode::kGetData, "/mine").err, Error::kOk);
}

TEST_F(AclTest, DeleteChecksTheParentBeforeTheNodeAndItsVersion) {
  ASSERT_EQ(
      create_as(alice(), "/p",
                {{perms::kAll ^ perms::kDelete, {"world", "anyone"}}, {perms::kDelete, kAlice}}),
      Error::kOk);
  ASSERT_EQ(create_as(alice(), "/p/c", {{perms::kRead, kAlice}}), Error::kOk);
  auto remove_as = [&](const AuthIds& ids, const std::string& path, int32_t version) {
    return write_as(ids, OpCode::kDelete, encode(zk::wire::DeleteRequest{path, version}))
        .response.err;
  };
  EXPECT_EQ(remove_as(nobody(), "/missing/c", 5), Error::kNoNode);
  EXPECT_EQ(remove_as(nobody(), "/p/none", 5), Error::kNoAuth);
  EXPECT_EQ(remove_as(nobody(), "/p/c", 5), Error::kNoAuth);
  EXPECT_EQ(remove_as(alice(), "/p/c", 5), Error::kBadVersion);
  // The node's own ACL does not matter: DELETE is on the parent.
  EXPECT_EQ(remove_as(alice(), "/p/c", 0), Error::kOk);
}

TEST_F(AclTest, SetDataAndCheckTestTheNodeBeforeTheVersion) {
  ASSERT_EQ(create_as(alice(), "/n", {{perms::kRead, {"world", "anyone"}}}), Error::kOk);
  EXPECT_EQ(write_as(nobody(), OpCode::kSetData,
                     encode(zk::wire::SetDataRequest{"/missing", std::string(), 9}))
                .response.err,
            Error::kNoNode);
  EXPECT_EQ(
      write_as(nobody(), OpCode::kSetData, encode(zk::wire::SetDataRequest{"/n", std::string(), 9}))
          .response.err,
      Error::kNoAuth);
  // The system node /zookeeper/config is READ-only for everyone.
  EXPECT_EQ(write_as(nobody(), OpCode::kSetData,
                     encode(zk::wire::SetDataRequest{"/zookeeper/config", std::string(), 9}))
                .response.err,
            Error::kNoAuth);
  ASSERT_EQ(create_as(alice(), "/w", {{perms::kWrite, {"world", "anyone"}}}), Error::kOk);
  ApplyResult r = write_as(nobody(), OpCode::kMulti,
                           zk::wire::encode_multi_request({zk::wire::multi_check("/w", 7)}));
  std::vector<zk::wire::MultiResult> results;
  ASSERT_TRUE(zk::wire::decode_multi_response(r.response.body, results));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].err, Error::kNoAuth);
}

TEST_F(AclTest, SetAclValidatesTheNewAclFirstThenAdminThenTheVersion) {
  ASSERT_EQ(
      create_as(alice(), "/n",
                {{perms::kAll ^ perms::kAdmin, {"world", "anyone"}}, {perms::kAdmin, kAlice}}),
      Error::kOk);
  auto set_acl_as = [&](const AuthIds& ids, const std::string& path, const ACLs& acl,
                        int32_t version) {
    return write_as(ids, OpCode::kSetACL, encode(zk::wire::SetACLRequest{path, acl, version}))
        .response.err;
  };
  const ACLs open = zk::wire::open_acl_unsafe();
  EXPECT_EQ(set_acl_as(nobody(), "/missing", {{perms::kAll, {"auth", ""}}}, 3), Error::kInvalidACL);
  EXPECT_EQ(set_acl_as(nobody(), "/missing", open, 3), Error::kNoNode);
  EXPECT_EQ(set_acl_as(nobody(), "/n", open, 3), Error::kNoAuth);
  EXPECT_EQ(set_acl_as(alice(), "/n", open, 3), Error::kBadVersion);
  EXPECT_EQ(set_acl_as(alice(), "/n", {{perms::kAll, {"auth", ""}}}, 0), Error::kOk);
  EXPECT_EQ(decode_as<zk::wire::Stat>(read_as(alice(), OpCode::kExists, "/n").body).aversion, 1);
}

TEST_F(AclTest, GetAclNeedsReadOrAdminAndMasksDigestsWithoutAdmin) {
  const ACLs acl{{perms::kRead, {"world", "anyone"}}, {perms::kAdmin, kAlice}, {perms::kAll, kBob}};
  ASSERT_EQ(create_as(alice(), "/n", acl), Error::kOk);
  Response r = read_as(nobody(), OpCode::kGetACL, "/n");
  ASSERT_EQ(r.err, Error::kOk);
  EXPECT_EQ(decode_as<zk::wire::GetACLResponse>(r.body).acl,
            (ACLs{{perms::kRead, {"world", "anyone"}},
                  {perms::kAdmin, {"digest", "alice:x"}},
                  {perms::kAll, {"digest", "bob:x"}}}));
  r = read_as(alice(), OpCode::kGetACL, "/n");
  ASSERT_EQ(r.err, Error::kOk);
  EXPECT_EQ(decode_as<zk::wire::GetACLResponse>(r.body).acl, acl);

  ASSERT_EQ(create_as(alice(), "/admin-only", {{perms::kAdmin, kAlice}}), Error::kOk);
  EXPECT_EQ(read_as(nobody(), OpCode::kGetACL, "/admin-only").err, Error::kNoAuth);
  EXPECT_EQ(read_as(alice(), OpCode::kGetACL, "/admin-only").err, Error::kOk);
  EXPECT_EQ(read_as(alice(), OpCode::kGetData, "/admin-only").err, Error::kNoAuth);
}

TEST_F(AclTest, RefusedReadsSetNoWatch) {
  ASSERT_EQ(create_as(alice(), "/n", {{perms::kAll, kAlice}}), Error::kOk);
  EXPECT_EQ(read_as(nobody(), OpCode::kGetData, "/n", true, 5).err, Error::kNoAuth);
  EXPECT_EQ(read_as(nobody(), OpCode::kGetChildren, "/n", true, 5).err, Error::kNoAuth);
  EXPECT_EQ(read_as(nobody(), OpCode::kExists, "/n", true, 5).err, Error::kNoAuth);
  EXPECT_EQ(db.counts().data_watches, 0);
  EXPECT_EQ(db.counts().child_watches, 0);
}

// ZOOKEEPER-2590 (3.8.4, 3.9.2): exists needs READ on a node that exists; a
// missing node has no ACL to check, so it answers NONODE and sets its watch.
TEST_F(AclTest, ExistsNeedsReadOnAnExistingNodeOnly) {
  ASSERT_EQ(create_as(alice(), "/n", {{perms::kAll, kAlice}}), Error::kOk);
  ASSERT_EQ(create_as(alice(), "/w", {{perms::kWrite, {"world", "anyone"}}}), Error::kOk);
  ASSERT_EQ(create_as(alice(), "/r", {{perms::kRead, {"world", "anyone"}}}), Error::kOk);
  const int64_t r_zxid = last_txn.header.zxid;
  Response refused = read_as(nobody(), OpCode::kExists, "/n", false, 5);
  EXPECT_EQ(refused.err, Error::kNoAuth);
  EXPECT_TRUE(refused.body.empty());
  EXPECT_EQ(read_as(nobody(), OpCode::kExists, "/w").err, Error::kNoAuth);
  EXPECT_EQ(read_as(alice(), OpCode::kExists, "/w").err, Error::kNoAuth);
  Response allowed = read_as(nobody(), OpCode::kExists, "/r");
  ASSERT_EQ(allowed.err, Error::kOk);
  EXPECT_EQ(decode_as<zk::wire::Stat>(allowed.body).czxid, r_zxid);
  EXPECT_EQ(read_as(alice(), OpCode::kExists, "/n").err, Error::kOk);
  // Below a node the caller may not read, a missing child is just missing.
  EXPECT_EQ(read_as(nobody(), OpCode::kExists, "/n/missing", true, 5).err, Error::kNoNode);
  EXPECT_EQ(db.counts().data_watches, 1);
}

TEST_F(AclTest, AllChildrenNumberNeedsRead) {
  ASSERT_EQ(create_as(alice(), "/n", {{perms::kAll, kAlice}}), Error::kOk);
  EXPECT_EQ(read_as(nobody(), OpCode::kGetAllChildrenNumber, "/n").err, Error::kNoAuth);
  EXPECT_EQ(read_as(alice(), OpCode::kGetAllChildrenNumber, "/n").err, Error::kOk);
}

TEST_F(AclTest, MultiReadRefusesPerOperation) {
  ASSERT_EQ(create_as(alice(), "/secret", {{perms::kAll, kAlice}}), Error::kOk);
  ASSERT_EQ(create_as(alice(), "/public", zk::wire::open_acl_unsafe()), Error::kOk);
  Response r = db.read(1, OpCode::kMultiRead,
                       zk::wire::encode_multi_request({zk::wire::multi_get_data("/secret"),
                                                       zk::wire::multi_get_children("/public"),
                                                       zk::wire::multi_get_children("/secret")}),
                       nobody());
  ASSERT_EQ(r.err, Error::kOk);
  std::vector<zk::wire::MultiResult> results;
  ASSERT_TRUE(zk::wire::decode_multi_response(r.body, results));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].err, Error::kNoAuth);
  EXPECT_EQ(results[1].err, Error::kOk);
  EXPECT_EQ(results[1].type, OpCode::kGetChildren);
  EXPECT_EQ(results[2].err, Error::kNoAuth);
}

TEST_F(AclTest, MultiChecksEachOperationAgainstTheOnesBeforeIt) {
  // The first operation locks /m; the second, a setData on it, is refused,
  // and the whole multi rolls back.
  ASSERT_EQ(create_as(alice(), "/m", zk::wire::open_acl_unsafe()), Error::kOk);
  ApplyResult r =
      write_as(nobody(), OpCode::kMulti,
               zk::wire::encode_multi_request(
                   {zk::wire::multi_create("/m/a", std::string(), zk::wire::CreateMode::kPersistent,
                                           {{perms::kRead, {"world", "anyone"}}}),
                    zk::wire::multi_set_data("/m/a", std::string("x"))}));
  ASSERT_EQ(r.response.err, Error::kOk);
  std::vector<zk::wire::MultiResult> results;
  ASSERT_TRUE(zk::wire::decode_multi_response(r.response.body, results));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].err, Error::kOk);
  EXPECT_EQ(results[1].err, Error::kNoAuth);
  EXPECT_FALSE(exists("/m/a"));
}

TEST_F(AclTest, APendingSetAclCountsForLaterWrites) {
  ASSERT_EQ(create_as(alice(), "/n", zk::wire::open_acl_unsafe()), Error::kOk);
  int64_t z = next_zxid();
  Txn lock = db.prepare(kSession, 1, OpCode::kSetACL,
                        encode(zk::wire::SetACLRequest{"/n", {{perms::kAll, kAlice}}, -1}), z,
                        time_of(z), alice());
  Txn refused = db.prepare(kSession, 2, OpCode::kSetData,
                           encode(zk::wire::SetDataRequest{"/n", std::string("x"), -1}), z + 1,
                           time_of(z + 1), nobody());
  Txn allowed = db.prepare(kSession, 3, OpCode::kSetData,
                           encode(zk::wire::SetDataRequest{"/n", std::string("y"), -1}), z + 2,
                           time_of(z + 2), alice());
  EXPECT_EQ(std::get<ErrorTxn>(refused.body).err, Error::kNoAuth);
  EXPECT_TRUE(std::holds_alternative<SetDataTxn>(allowed.body));
  for (const Txn& t : {lock, refused, allowed}) db.apply(t);
  EXPECT_EQ(read_as(alice(), OpCode::kGetData, "/n").err, Error::kOk);
}

TEST_F(AclTest, AChildCreatedInAPendingTxnCarriesItsAcl) {
  ASSERT_EQ(create_as(alice(), "/p", zk::wire::open_acl_unsafe()), Error::kOk);
  int64_t z = next_zxid();
  Txn create =
      db.prepare(kSession, 1, OpCode::kCreate,
                 encode(zk::wire::CreateRequest{"/p/c", std::string(), {{perms::kAll, kAlice}}, 0}),
                 z, time_of(z), alice());
  Txn refused = db.prepare(
      kSession, 2, OpCode::kCreate,
      encode(zk::wire::CreateRequest{"/p/c/d", std::string(), zk::wire::open_acl_unsafe(), 0}),
      z + 1, time_of(z + 1), nobody());
  EXPECT_EQ(std::get<ErrorTxn>(refused.body).err, Error::kNoAuth);
  db.apply(create);
  db.apply(refused);
}

TEST_F(AclTest, SuperMayDoAnything) {
  const AuthIds super_user({{"ip", "127.0.0.1"}, {"super", ""}});
  ASSERT_EQ(create_as(alice(), "/n", {{perms::kRead, kAlice}}), Error::kOk);
  EXPECT_EQ(create_as(super_user, "/n/c", zk::wire::open_acl_unsafe()), Error::kOk);
  EXPECT_EQ(write_as(super_user, OpCode::kSetData,
                     encode(zk::wire::SetDataRequest{"/zookeeper/config", std::string(), -1}))
                .response.err,
            Error::kOk);
  // auth needs a digest id even for super.
  EXPECT_EQ(create_as(super_user, "/s", {{perms::kAll, {"auth", ""}}}), Error::kInvalidACL);
}

}  // namespace
}  // namespace zkd::tree::testing
