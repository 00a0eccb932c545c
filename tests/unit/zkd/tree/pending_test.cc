// SPDX-License-Identifier: Apache-2.0
// Pipelined prepare (Apache's outstandingChanges): each prepare() validates
// against the applied tree plus every txn prepared and not yet applied.
#include <deque>
#include <random>

#include "tests/unit/zkd/tree/tree_fixture.h"
#include "tests/unit/zkd/tree/workload.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::Stat;

class PendingTest : public TreeTest {
 protected:
  void SetUp() override {
    TreeTest::SetUp();
    prepared_ = db.last_zxid();
  }

  // Prepares a write with the next zxid, without applying it.
  Txn prep(OpCode op, const std::string& body, SessionId s = kSession) {
    ++prepared_;
    Txn txn = db.prepare(s, 7, op, body, prepared_, time_of(prepared_));
    queue_.push_back(txn);
    return txn;
  }
  Txn prep_create(const std::string& path, int32_t flags = 0, SessionId s = kSession) {
    return prep(
        OpCode::kCreate,
        encode(zk::wire::CreateRequest{path, std::string(), zk::wire::open_acl_unsafe(), flags}),
        s);
  }
  Txn prep_delete(const std::string& path, int32_t version = -1) {
    return prep(OpCode::kDelete, encode(zk::wire::DeleteRequest{path, version}));
  }
  Txn prep_set_data(const std::string& path, int32_t version) {
    return prep(OpCode::kSetData,
                encode(zk::wire::SetDataRequest{path, std::string("d"), version}));
  }
  Txn prep_close(SessionId s) {
    ++prepared_;
    Txn txn = db.prepare_close_session(s, 0, prepared_, time_of(prepared_));
    queue_.push_back(txn);
    return txn;
  }
  Txn prep_open(SessionId s) {
    ++prepared_;
    Txn txn = db.prepare_create_session(s, 5000, prepared_, time_of(prepared_));
    queue_.push_back(txn);
    return txn;
  }
  // Applies every prepared txn in order; returns the replies' errors.
  std::vector<Error> apply_all() {
    std::vector<Error> errs;
    for (const Txn& txn : queue_) errs.push_back(db.apply(txn).response.err);
    queue_.clear();
    return errs;
  }

  static Error error_of(const Txn& txn) {
    return std::holds_alternative<ErrorTxn>(txn.body) ? std::get<ErrorTxn>(txn.body).err
                                                      : Error::kOk;
  }
  static std::string path_of(const Txn& txn) { return std::get<CreateTxn>(txn.body).path; }

  int64_t prepared_ = 0;
  std::vector<Txn> queue_;
};

TEST_F(PendingTest, SecondCreateOfAPendingPathIsNodeExists) {
  EXPECT_EQ(error_of(prep_create("/a")), Error::kOk);
  EXPECT_EQ(error_of(prep_create("/a")), Error::kNodeExists);
  EXPECT_FALSE(exists("/a"));  // reads see applied state only
  EXPECT_EQ(apply_all(), (std::vector<Error>{Error::kOk, Error::kNodeExists}));
  EXPECT_EQ(stat("/a"), fresh_stat(2));
}

TEST_F(PendingTest, DeleteOfAPendingCreateIsAllowed) {
  prep_create("/a");
  EXPECT_EQ(error_of(prep_delete("/a", 0)), Error::kOk);
  EXPECT_EQ(apply_all(), (std::vector<Error>{Error::kOk, Error::kOk}));
  EXPECT_FALSE(exists("/a"));
  EXPECT_EQ(stat("/").cversion, 1);  // -1 (fresh root) + create + delete
  EXPECT_EQ(stat("/").pzxid, 3);
}

TEST_F(PendingTest, VersionChecksSeePendingSetData) {
  prep_create("/a");
  EXPECT_EQ(std::get<SetDataTxn>(prep_set_data("/a", 0).body).version, 1);
  EXPECT_EQ(error_of(prep_set_data("/a", 0)), Error::kBadVersion);
  EXPECT_EQ(std::get<SetDataTxn>(prep_set_data("/a", 1).body).version, 2);
  EXPECT_EQ(error_of(prep_delete("/a", 1)), Error::kBadVersion);
  EXPECT_EQ(error_of(prep_delete("/a", 2)), Error::kOk);
  apply_all();
  EXPECT_FALSE(exists("/a"));
}

TEST_F(PendingTest, SequentialNamesNeverRepeatWhileTxnsWait) {
  must_create("/q");
  EXPECT_EQ(path_of(prep_create("/q/n-", 2)), "/q/n-0000000000");
  EXPECT_EQ(path_of(prep_create("/q/n-", 2)), "/q/n-0000000001");
  prep_delete("/q/n-0000000001");
  EXPECT_EQ(path_of(prep_create("/q/n-", 3)), "/q/n-0000000002");
  EXPECT_EQ(std::get<CreateTxn>(queue_.back().body).parent_cversion, 3);
  for (Error err : apply_all()) EXPECT_EQ(err, Error::kOk);
  EXPECT_EQ(children("/q"), (std::vector<std::string>{"n-0000000000", "n-0000000002"}));
  Stat q = stat("/q");
  EXPECT_EQ(q.cversion, 4);  // three creates and one delete
  EXPECT_EQ(q.num_children, 2);
  EXPECT_EQ(q.pzxid, db.last_zxid());
  EXPECT_EQ(must_create("/q/n-", 2), "/q/n-0000000003");
}

TEST_F(PendingTest, NotEmptySeesPendingChildren) {
  must_create("/p");
  prep_create("/p/c");
  EXPECT_EQ(error_of(prep_delete("/p")), Error::kNotEmpty);
  prep_delete("/p/c");
  EXPECT_EQ(error_of(prep_delete("/p")), Error::kOk);
  EXPECT_EQ(apply_all(),
            (std::vector<Error>{Error::kOk, Error::kNotEmpty, Error::kOk, Error::kOk}));
  EXPECT_FALSE(exists("/p"));
}

TEST_F(PendingTest, EphemeralParentCheckSeesPendingEphemeral) {
  prep_create("/e", 1);
  EXPECT_EQ(error_of(prep_create("/e/c")), Error::kNoChildrenForEphemerals);
  apply_all();
  EXPECT_EQ(children("/e"), std::vector<std::string>{});
}

TEST_F(PendingTest, CloseSessionListsPendingEphemeralsAndSkipsPendingDeletes) {
  must_create("/e1", 1);
  must_create("/e2", 1);
  prepared_ = db.last_zxid();
  prep_create("/e3", 1);
  prep_delete("/e1");
  Txn close = prep_close(kSession);
  EXPECT_EQ(std::get<CloseSessionTxn>(close.body).paths_to_delete,
            (std::vector<std::string>{"/e2", "/e3"}));
  EXPECT_EQ(error_of(prep_create("/x")), Error::kSessionExpired);
  EXPECT_EQ(error_of(prep_set_data("/e2", -1)), Error::kSessionExpired);
  EXPECT_TRUE(db.session_exists(kSession));  // not applied yet
  apply_all();
  EXPECT_FALSE(db.session_exists(kSession));
  EXPECT_EQ(children("/"), std::vector<std::string>{"zookeeper"});
  EXPECT_EQ(db.counts().ephemerals, 0);
}

TEST_F(PendingTest, PendingCreateSessionMayWriteAtOnce) {
  prep_open(kOther);
  EXPECT_EQ(error_of(prep_create("/o", 1, kOther)), Error::kOk);
  EXPECT_FALSE(db.session_exists(kOther));
  apply_all();
  EXPECT_EQ(db.ephemerals(kOther), std::vector<std::string>{"/o"});
}

TEST_F(PendingTest, DiscardPendingForgetsPreparedEffects) {
  prep_create("/a");
  prep_create("/s-", 2);
  prep_close(kSession);
  db.discard_pending();
  queue_.clear();
  prepared_ = db.last_zxid();
  EXPECT_EQ(error_of(prep_create("/a")), Error::kOk);
  EXPECT_EQ(path_of(prep_create("/s-", 2)), "/s-0000000001");
  apply_all();
  EXPECT_TRUE(exists("/a"));
  EXPECT_TRUE(exists("/s-0000000001"));
}

TEST_F(PendingTest, AppliedTxnsRetireTheirRecords) {
  // Pipeline, drain, then a one-at-a-time write sees the applied tree only.
  prep_create("/a");
  prep_set_data("/a", 0);
  apply_all();
  EXPECT_EQ(set_data("/a", std::string("z"), 1).response.err, Error::kOk);
  EXPECT_EQ(remove("/a", 2).response.err, Error::kOk);
  EXPECT_EQ(create("/a").response.err, Error::kOk);
  EXPECT_EQ(stat("/a").version, 0);
}

// The property: for random request sequences, preparing up to k txns ahead
// of applying gives byte-identical txns and identical replies to preparing
// and applying each request at once, and the same final state.
TEST(PendingPipeline, PrepareAheadEqualsOneByOne) {
  for (uint32_t seed = 1; seed <= seed_count(30); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Workload gen(seed);
    std::mt19937 schedule(seed * 7919u);
    Database serial;
    Database piped;
    std::deque<std::pair<Txn, ApplyResult>> waiting;  // piped txns + the serial result
    size_t max_ahead = 1 + seed % 8;
    int64_t zxid = 0;

    auto drain = [&](size_t keep) {
      while (waiting.size() > keep) {
        auto& [txn, expected] = waiting.front();
        ApplyResult got = piped.apply(txn);
        EXPECT_EQ(got.response.err, expected.response.err) << "zxid " << txn.header.zxid;
        EXPECT_EQ(got.response.zxid, expected.response.zxid);
        EXPECT_EQ(got.response.body, expected.response.body) << "zxid " << txn.header.zxid;
        EXPECT_EQ(got.notifications.size(), expected.notifications.size());
        waiting.pop_front();
      }
    };

    std::vector<Request> requests = gen.open_sessions();
    for (int step = 0; step < 800; ++step) {
      Request r = step < static_cast<int>(requests.size()) ? requests[step] : gen.next();
      ++zxid;
      Txn a = prepare(serial, r, zxid);
      ApplyResult result = serial.apply(a);
      gen.observe(r, result);
      Txn b = prepare(piped, r, zxid);
      ASSERT_EQ(txn_bytes(b), txn_bytes(a)) << "zxid " << zxid;
      waiting.emplace_back(std::move(b), std::move(result));
      if (waiting.size() >= max_ahead || schedule() % 3 == 0) {
        drain(schedule() % (waiting.size() + 1));
      }
    }
    drain(0);
    EXPECT_EQ(dump(piped), dump(serial));
    EXPECT_EQ(piped.last_zxid(), serial.last_zxid());
  }
}

}  // namespace
}  // namespace zkd::tree::testing
