// SPDX-License-Identifier: Apache-2.0
// Containers and TTL nodes (§5.3, §6.3, §6.4, §7 of docs/wire-protocol.md):
// createContainer (19), createTTL (21), the container manager's candidates
// and its deleteContainer (20), in a multi, and after a restart from the log
// or a snapshot.
#include <string>
#include <vector>

#include "libzk/wire/multi.h"
#include "tree_fixture.h"
#include "zkd/tree/container_kind.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::MultiOp;
using zk::wire::MultiResult;
using V = std::vector<std::string>;

constexpr int64_t kTtl = 5000;

class ContainerTest : public TreeTest {
 protected:
  // A tree with extended types on (zoo.cfg extendedTypesEnabled=true).
  void SetUp() override {
    db = Database(DatabaseOptions{true});
    TreeTest::SetUp();
  }

  ApplyResult create_container(const std::string& path, int32_t flags = 4) {
    return create(path, std::string("c"), flags, kSession, OpCode::kCreateContainer);
  }
  ApplyResult create_ttl(const std::string& path, int64_t ttl, int32_t flags = 5) {
    return write(OpCode::kCreateTTL,
                 encode(zk::wire::CreateTTLRequest{path, std::string("t"),
                                                   zk::wire::open_acl_unsafe(), flags, ttl}));
  }
  // What the container manager would delete at time `now_ms`.
  V candidates(int64_t now_ms, int64_t max_never_used_ms = 0) {
    return db.sweep_candidates(now_ms, max_never_used_ms);
  }
  // The container manager's request: session 0, the path's bytes.
  ApplyResult delete_container(const std::string& path, SessionId s = 0) {
    int64_t z = next_zxid();
    last_txn = db.prepare(s, 0, OpCode::kDeleteContainer, path, z, time_of(z));
    return db.apply(last_txn);
  }
  // Writes the txn log as the server would and replays it into a fresh database.
  Database replayed(const std::vector<std::string>& log, bool extended_types = true) {
    Database fresh(DatabaseOptions{extended_types});
    for (const std::string& bytes : log) {
      Txn txn;
      EXPECT_TRUE(read_txn(bytes, txn));
      fresh.apply(txn);
    }
    return fresh;
  }
  static std::string logged(const Txn& txn) {
    std::string out;
    zk::wire::Writer w(out);
    write_txn(w, txn);
    return out;
  }
};

TEST_F(ContainerTest, CreateContainerAnswersCreate2AndShowsOwnerZero) {
  ApplyResult r = create_container("/c");
  ASSERT_EQ(r.response.err, Error::kOk);
  auto reply = decode_as<zk::wire::Create2Response>(r.response.body);
  EXPECT_EQ(reply.path, "/c");
  EXPECT_EQ(reply.stat, fresh_stat(2, 1));  // ephemeralOwner 0
  EXPECT_EQ(stat("/c").ephemeral_owner, 0);
  EXPECT_EQ(last_txn.header.type, OpCode::kCreateContainer);
  EXPECT_TRUE(std::holds_alternative<CreateContainerTxn>(last_txn.body));
}

TEST_F(ContainerTest, CreateTtlAnswersCreate2AndShowsOwnerZero) {
  ApplyResult r = create_ttl("/t", kTtl);
  ASSERT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(decode_as<zk::wire::Create2Response>(r.response.body).stat, fresh_stat(2, 1));
  ASSERT_TRUE(std::holds_alternative<CreateTTLTxn>(last_txn.body));
  EXPECT_EQ(std::get<CreateTTLTxn>(last_txn.body).ttl, kTtl);
  EXPECT_EQ(stat("/t").ephemeral_owner, 0);
}

// §6.1: the opcode, not the flags, decides the kind; the flags still decide
// sequential names.
TEST_F(ContainerTest, TheOpcodeDecidesTheKind) {
  create_container("/c", 0);
  create("/p", std::string(), 4);  // flags 4 under opcode 1: a plain node
  create("/p/x");
  remove("/p/x");
  create_container("/c/x");  // gives /c a used child counter
  remove("/c/x");
  EXPECT_EQ(candidates(time_of(next_zxid())), V{"/c"});
  EXPECT_EQ(decode_as<zk::wire::Create2Response>(create_container("/s-", 2).response.body).path,
            "/s-0000000002");  // the root's third child creation: /c, /p, /s-
}

TEST_F(ContainerTest, ContainersAndTtlNodesMayHaveChildren) {
  create_container("/c");
  create_ttl("/t", kTtl);
  EXPECT_EQ(create("/c/a").response.err, Error::kOk);
  EXPECT_EQ(create("/t/a").response.err, Error::kOk);
  EXPECT_EQ(create("/c/e", std::string(), 1).response.err, Error::kOk);
  EXPECT_EQ(create("/c/e/x").response.err, Error::kNoChildrenForEphemerals);
}

// §6.3 with extended types on.
TEST_F(ContainerTest, TtlValuesAreCheckedAsApacheChecksThem) {
  EXPECT_EQ(create_ttl("/t", 0).response.err, Error::kBadArguments);
  EXPECT_EQ(create_ttl("/t", kMaxTtlMs + 1).response.err, Error::kBadArguments);
  EXPECT_EQ(create_ttl("/t", -5).response.err, Error::kBadArguments);
  // A non-TTL mode with a ttl >= 0, and (where Apache 3.8.0 crashes) < 0.
  for (int32_t flags : {0, 1, 2, 3, 4}) {
    EXPECT_EQ(create_ttl("/t", 100, flags).response.err, Error::kBadArguments) << flags;
    EXPECT_EQ(create_ttl("/t", -1, flags).response.err, Error::kBadArguments) << flags;
  }
  EXPECT_EQ(create_ttl("/t", 100, 7).response.err, Error::kBadArguments);
  // TTL flags under create (1) or createContainer (19) carry no ttl.
  EXPECT_EQ(create("/t", std::string(), 5).response.err, Error::kBadArguments);
  EXPECT_EQ(create_container("/t", 6).response.err, Error::kBadArguments);
  EXPECT_FALSE(exists("/t"));
  EXPECT_EQ(create_ttl("/t", kMaxTtlMs).response.err, Error::kOk);
  EXPECT_EQ(decode_as<zk::wire::Create2Response>(create_ttl("/s-", 10, 6).response.body).path,
            "/s-0000000001");
}

TEST_F(TreeTest, WithoutExtendedTypesTtlIsUnimplementedAndContainersWork) {
  auto ttl_create = [&](int32_t flags, int64_t ttl) {
    return write(OpCode::kCreateTTL,
                 encode(zk::wire::CreateTTLRequest{"/t", std::string(), zk::wire::open_acl_unsafe(),
                                                   flags, ttl}))
        .response.err;
  };
  EXPECT_EQ(ttl_create(5, 100), Error::kUnimplemented);
  EXPECT_EQ(ttl_create(6, 100), Error::kUnimplemented);
  EXPECT_EQ(ttl_create(0, 100), Error::kBadArguments);
  EXPECT_EQ(ttl_create(0, -1), Error::kBadArguments);  // Apache 3.8.0 crashes here
  EXPECT_FALSE(exists("/t"));
  EXPECT_EQ(create("/c", std::string(), 4, kSession, OpCode::kCreateContainer).response.err,
            Error::kOk);
}

TEST_F(ContainerTest, ContainerIsACandidateOnlyOnceEmptyAfterItHadAChild) {
  create_container("/c");
  EXPECT_EQ(candidates(time_of(100)), V{});  // never used
  create("/c/a");
  EXPECT_EQ(candidates(time_of(100)), V{});  // has a child
  remove("/c/a");
  EXPECT_EQ(candidates(time_of(100)), V{"/c"});
}

TEST_F(ContainerTest, NeverUsedContainersGoAfterTheirIntervalWhenOneIsSet) {
  create_container("/c");  // zxid 2, mtime 2000
  EXPECT_EQ(candidates(2000 + 500, 500), V{});
  EXPECT_EQ(candidates(2000 + 501, 500), V{"/c"});
  EXPECT_EQ(candidates(2000 + 100000, 0), V{});
}

TEST_F(ContainerTest, TtlNodeIsACandidateAfterItsTtlAndSetDataRefreshesIt) {
  create_ttl("/t", kTtl);  // zxid 2, mtime 2000
  EXPECT_EQ(candidates(2000 + kTtl), V{});
  EXPECT_EQ(candidates(2000 + kTtl + 1), V{"/t"});
  set_data("/t", std::string("again"));  // zxid 3, mtime 3000
  EXPECT_EQ(candidates(2000 + kTtl + 1), V{});
  EXPECT_EQ(candidates(3000 + kTtl + 1), V{"/t"});
  create("/t/child");
  EXPECT_EQ(candidates(1000000), V{});
}

TEST_F(ContainerTest, PendingTxnsCountForCandidates) {
  create_container("/c");
  create("/c/a");
  remove("/c/a");
  create_ttl("/t", kTtl);  // zxid 5
  const int64_t expired = time_of(5) + kTtl + 1;
  // Prepared, not applied: a child for /c, a refresh for /t.
  int64_t z = next_zxid();
  db.prepare(kSession, 8, OpCode::kCreate,
             encode(zk::wire::CreateRequest{"/c/b", std::string(), zk::wire::open_acl_unsafe(), 0}),
             z, time_of(z));
  db.prepare(kSession, 9, OpCode::kSetData,
             encode(zk::wire::SetDataRequest{"/t", std::string(), -1}), z + 1, expired - 1);
  EXPECT_EQ(candidates(expired), V{});
  db.discard_pending();
  EXPECT_EQ(candidates(expired), (V{"/c", "/t"}));
  // A deletion being prepared takes the node out too.
  db.prepare(0, 0, OpCode::kDeleteContainer, "/c", z, time_of(z));
  EXPECT_EQ(candidates(expired), V{"/t"});
}

TEST_F(ContainerTest, DeleteContainerDeletesAndFiresWatchesAsADelete) {
  create_container("/c");
  create("/c/a");
  remove("/c/a");
  read(OpCode::kExists, "/c", true, 1);
  read(OpCode::kGetChildren, "/", true, 2);
  ApplyResult r = delete_container("/c");
  EXPECT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(last_txn.header.type, OpCode::kDeleteContainer);
  EXPECT_TRUE(std::holds_alternative<DeleteTxn>(last_txn.body));
  EXPECT_EQ(events(r.notifications), (V{"1:NodeDeleted:/c", "2:NodeChildrenChanged:/"}));
  EXPECT_FALSE(exists("/c"));
}

TEST_F(ContainerTest, DeleteContainerRefusals) {
  create_container("/c");
  create("/c/a");
  create("/p");
  create("/e", std::string(), 1);
  EXPECT_EQ(delete_container("/c").response.err, Error::kNotEmpty);  // gained a child meanwhile
  EXPECT_EQ(last_txn.header.type, OpCode::kError);
  EXPECT_EQ(delete_container("/p").response.err, Error::kBadVersion);  // not a container
  EXPECT_EQ(delete_container("/e").response.err, Error::kBadVersion);  // a session's ephemeral
  EXPECT_EQ(delete_container("/missing").response.err, Error::kNoNode);
  EXPECT_EQ(delete_container("/zookeeper").response.err, Error::kBadArguments);
  EXPECT_EQ(delete_container("nослэш").response.err, Error::kBadArguments);
  remove("/c/a");
  // Only the container manager (session 0) may send it.
  EXPECT_EQ(delete_container("/c", kSession).response.err, Error::kBadArguments);
  EXPECT_TRUE(exists("/c"));
  EXPECT_EQ(delete_container("/c").response.err, Error::kOk);
}

// §7.1: sub-ops 19 and 21; both answer as create2 (type 15) with a Stat.
TEST_F(ContainerTest, MultiCreatesContainersAndTtlNodes) {
  MultiOp container = zk::wire::multi_create("/c", std::string(), zk::wire::CreateMode::kContainer);
  container.type = OpCode::kCreateContainer;
  MultiOp flags4 = zk::wire::multi_create("/c2", std::string(), zk::wire::CreateMode::kContainer);
  MultiOp ttl{OpCode::kCreateTTL, zk::wire::CreateTTLRequest{"/t", std::string("x"),
                                                             zk::wire::open_acl_unsafe(), 5, kTtl}};
  ApplyResult r =
      write(OpCode::kMulti,
            zk::wire::encode_multi_request(
                {container, flags4, ttl, zk::wire::multi_create("/c/child", std::string())}));
  ASSERT_EQ(r.response.err, Error::kOk);
  std::vector<MultiResult> results;
  ASSERT_TRUE(zk::wire::decode_multi_response(r.response.body, results));
  ASSERT_EQ(results.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(results[i].type, OpCode::kCreate2) << i;
    EXPECT_EQ(results[i].stat.ephemeral_owner, 0) << i;
  }
  EXPECT_EQ(results[3].type, OpCode::kCreate);
  const auto& ops = std::get<MultiTxn>(last_txn.body).ops;
  EXPECT_EQ(ops[0].header.type, OpCode::kCreateContainer);
  EXPECT_EQ(ops[1].header.type, OpCode::kCreateContainer);
  EXPECT_EQ(ops[2].header.type, OpCode::kCreateTTL);
  remove("/c/child");
  EXPECT_EQ(candidates(time_of(next_zxid())), V{"/c"});
  EXPECT_EQ(candidates(time_of(3) + kTtl + 1), (V{"/c", "/t"}));
}

TEST_F(ContainerTest, MultiTtlErrors) {
  MultiOp bad_ttl{OpCode::kCreateTTL, zk::wire::CreateTTLRequest{
                                          "/t", std::string(), zk::wire::open_acl_unsafe(), 5, 0}};
  ApplyResult r = write(OpCode::kMulti, zk::wire::encode_multi_request({bad_ttl}));
  std::vector<MultiResult> results;
  ASSERT_TRUE(zk::wire::decode_multi_response(r.response.body, results));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].err, Error::kBadArguments);
  // TTL flags in a plain create record: the whole request (Apache's cast fails).
  MultiOp plain =
      zk::wire::multi_create("/t", std::string(), zk::wire::CreateMode::kPersistentWithTTL);
  EXPECT_EQ(write(OpCode::kMulti, zk::wire::encode_multi_request({plain})).response.err,
            Error::kMarshallingError);
  EXPECT_FALSE(exists("/t"));
}

TEST_F(TreeTest, MultiTtlWithoutExtendedTypesFailsThatOperation) {
  MultiOp ttl{OpCode::kCreateTTL,
              zk::wire::CreateTTLRequest{"/t", std::string(), zk::wire::open_acl_unsafe(), 5, 100}};
  ApplyResult r = write(OpCode::kMulti, zk::wire::encode_multi_request({ttl}));
  std::vector<MultiResult> results;
  ASSERT_TRUE(zk::wire::decode_multi_response(r.response.body, results));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].err, Error::kUnimplemented);
  EXPECT_FALSE(exists("/t"));
}

// A restarted server replays its log: the kinds survive, so it still deletes.
TEST_F(ContainerTest, ReplayFromTheLogKeepsTheKinds) {
  std::vector<std::string> log;
  auto keep = [&] { log.push_back(logged(last_txn)); };
  create_container("/c");
  keep();
  create("/c/a");
  keep();
  remove("/c/a");
  keep();
  create_ttl("/t", kTtl);
  keep();
  Database again = replayed(log);
  EXPECT_EQ(again.sweep_candidates(time_of(5) + kTtl + 1, 0), (V{"/c", "/t"}));
  Response r = again.read(1, OpCode::kExists, encode(zk::wire::PathWatchRequest{"/t", false}));
  EXPECT_EQ(decode_as<zk::wire::Stat>(r.body).ephemeral_owner, 0);
  // A deleteContainer txn replays as a delete.
  delete_container("/c");
  keep();
  EXPECT_EQ(replayed(log).sweep_candidates(time_of(5) + kTtl + 1, 0), V{"/t"});
}

TEST_F(ContainerTest, SnapshotKeepsTheKinds) {
  create_container("/c");
  create("/c/a");
  remove("/c/a");
  create_ttl("/t", kTtl);
  std::string payload;
  auto cursor = db.begin_snapshot();
  for (std::string chunk; !(chunk = cursor->next_chunk(2)).empty();) payload += chunk;
  Database loaded(DatabaseOptions{true});
  ASSERT_TRUE(loaded.load_snapshot(payload).ok());
  EXPECT_EQ(loaded.sweep_candidates(time_of(5) + kTtl + 1, 0), (V{"/c", "/t"}));
  Response r = loaded.read(1, OpCode::kExists, encode(zk::wire::PathWatchRequest{"/c", false}));
  EXPECT_EQ(decode_as<zk::wire::Stat>(r.body).ephemeral_owner, 0);
}

// With extended types off, an owner with the top byte 0xFF is a session's
// (server id 255 makes such ids), as in Apache: an ephemeral, not a TTL node.
TEST(ContainerKind, OwnersAreReadAsApacheReadsThem) {
  EXPECT_EQ(kind_of_owner(0, true), NodeKind::kPersistent);
  EXPECT_EQ(kind_of_owner(kContainerOwner, false), NodeKind::kContainer);
  EXPECT_EQ(kind_of_owner(kContainerOwner, true), NodeKind::kContainer);
  EXPECT_EQ(kind_of_owner(ttl_owner(5), true), NodeKind::kTtl);
  EXPECT_EQ(ttl_of_owner(ttl_owner(5)), 5);
  EXPECT_EQ(static_cast<uint64_t>(ttl_owner(1)), 0xFF00000000000001ULL);
  EXPECT_EQ(kind_of_owner(ttl_owner(5), false), NodeKind::kEphemeral);
  EXPECT_EQ(kind_of_owner(0x0100004c21600000, true), NodeKind::kEphemeral);
}

}  // namespace
}  // namespace zkd::tree::testing
