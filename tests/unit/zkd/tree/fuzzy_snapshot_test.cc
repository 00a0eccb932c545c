// SPDX-License-Identifier: Apache-2.0
// Fuzzy snapshots: the tree changes while the walk is under way; loading the
// payload and replaying every txn after the snapshot's zxid must give back
// exactly the live state (txns are idempotent over a fuzzy snapshot).
#include <random>

#include "tests/unit/zkd/tree/tree_fixture.h"
#include "tests/unit/zkd/tree/workload.h"

namespace zkd::tree::testing {
namespace {

std::string whole_snapshot(const Database& db, size_t chunk_nodes = 1000) {
  auto cursor = db.begin_snapshot();
  std::string payload;
  for (std::string chunk; !(chunk = cursor->next_chunk(chunk_nodes)).empty();) payload += chunk;
  return payload;
}

// Through the log's codec, as recovery would read them.
Txn logged(const Txn& txn) {
  Txn back;
  EXPECT_TRUE(read_txn(txn_bytes(txn), back));
  return back;
}

TEST(FuzzySnapshot, LoadPlusReplayEqualsLiveState) {
  size_t interleaved = 0;
  for (uint32_t seed = 1; seed <= seed_count(60); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Workload gen(seed);
    Database live;
    int64_t zxid = 0;
    std::vector<Txn> after;  // applied after the snapshot began
    bool snapshotting = false;
    auto step = [&](const Request& r) {
      Txn txn = prepare(live, r, ++zxid);
      gen.observe(r, live.apply(txn));
      // The running digest is the sum over the nodes after every txn.
      ASSERT_EQ(live.digest(), live.compute_digest()) << "after zxid " << zxid;
      if (snapshotting) after.push_back(txn);
    };

    for (const Request& r : gen.open_sessions()) step(r);
    for (int i = 0; i < 400; ++i) step(gen.next());

    auto cursor = live.begin_snapshot();
    EXPECT_EQ(cursor->zxid(), live.last_zxid());
    snapshotting = true;
    std::string payload;
    for (;;) {
      std::string chunk = cursor->next_chunk(1 + gen.pick(3));
      if (chunk.empty()) break;
      payload += chunk;
      for (int n = gen.pick(5); n > 0; --n) step(gen.next());
    }
    for (int i = 0; i < 20; ++i) step(gen.next());

    Database restored;
    ASSERT_TRUE(restored.load_snapshot(payload).ok());
    EXPECT_EQ(restored.last_zxid(), cursor->zxid());
    for (const Txn& txn : after) restored.apply(logged(txn));
    EXPECT_EQ(dump(restored), dump(live));
    EXPECT_EQ(restored.last_zxid(), live.last_zxid());
    // Replicas that applied the same txns agree on the digest, whichever
    // fuzzy snapshot they started from.
    EXPECT_EQ(restored.digest(), live.digest());
    EXPECT_EQ(restored.digest(), restored.compute_digest());
    interleaved += after.size() - 20;
  }
  // The walks really were fuzzy: txns ran between chunks.
  EXPECT_GT(interleaved, 10 * seed_count(60));
}

// Hand-made cases of the rules the property above relies on.
class ReplayTest : public TreeTest {
 protected:
  // Loads a snapshot of `db` into `restored`, replays `txns` over it and
  // expects the two to agree.
  void expect_replay_converges(const std::vector<Txn>& txns) {
    Database restored;
    ASSERT_TRUE(restored.load_snapshot(whole_snapshot(db)).ok());
    for (const Txn& txn : txns) restored.apply(txn);
    EXPECT_EQ(dump(restored), dump(db));
  }
  std::vector<Txn> log;
  ApplyResult logged_write(ApplyResult r) {
    log.push_back(last_txn);
    return r;
  }
};

TEST_F(ReplayTest, DeleteOfAParentTakesTheDescendantsTheSnapshotCaught) {
  // The snapshot caught /a's second incarnation with a child; replaying the
  // delete of the first must not leave /a/c without a parent.
  logged_write(create("/a"));
  logged_write(remove("/a"));
  logged_write(create("/a", std::string("2")));
  logged_write(create("/a/c"));
  logged_write(set_data("/a/c", std::string("x")));
  expect_replay_converges(log);
  EXPECT_EQ(stat("/a/c").czxid, 5);
}

TEST_F(ReplayTest, ReplayedCreateMeetingItsNodeRaisesTheParentCounter) {
  // Apache repairs the parent for opcode 1 only; create2 gets the same repair.
  for (OpCode op : {OpCode::kCreate, OpCode::kCreate2}) {
    std::string parent = op == OpCode::kCreate ? "/p1" : "/p2";
    must_create(parent);
    ASSERT_EQ(create(parent + "/c", std::string(), 0, kSession, op).response.err, Error::kOk);
    Txn replay = last_txn;
    replay.header.zxid = next_zxid();
    std::get<CreateTxn>(replay.body).parent_cversion = 5;
    ApplyResult r = db.apply(replay);
    EXPECT_EQ(r.response.err, Error::kNodeExists);
    zk::wire::Stat s = stat(parent);
    EXPECT_EQ(s.cversion, 2 * 5 - 1);
    EXPECT_EQ(s.pzxid, replay.header.zxid);
    EXPECT_EQ(s.num_children, 1);
  }
}

TEST_F(ReplayTest, ReplayedWritesOnMissingNodesChangeNothingButPzxid) {
  must_create("/a");
  logged_write(set_data("/a", std::string("v")));
  logged_write(set_acl("/a", zk::wire::read_acl_unsafe()));
  logged_write(remove("/a"));
  // Snapshot taken after all of it; the replay meets no /a at all.
  expect_replay_converges(log);
}

TEST_F(ReplayTest, ReplayedCloseSessionRemovesEphemeralsTheSnapshotCaught) {
  open_session(kOther);
  create("/e", std::string(), 1, kOther);
  std::string payload = whole_snapshot(db);
  Txn close = db.prepare_close_session(kOther, 0, next_zxid(), time_of(next_zxid()));
  db.apply(close);
  Database restored;
  ASSERT_TRUE(restored.load_snapshot(payload).ok());
  EXPECT_EQ(restored.ephemerals(kOther), std::vector<std::string>{"/e"});
  restored.apply(close);
  restored.apply(close);
  EXPECT_EQ(dump(restored), dump(db));
}

}  // namespace
}  // namespace zkd::tree::testing
