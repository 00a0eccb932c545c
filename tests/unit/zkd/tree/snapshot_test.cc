// SPDX-License-Identifier: Apache-2.0
// Snapshot codec: what a snapshot keeps, how a damaged payload is refused,
// the dump visitor, and the time 1M nodes take.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "tests/unit/zkd/tree/tree_fixture.h"
#include "tests/unit/zkd/tree/workload.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/znode.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::Stat;

std::string snapshot_of(const Database& db, size_t chunk_nodes) {
  auto cursor = db.begin_snapshot();
  std::string payload;
  for (std::string chunk; !(chunk = cursor->next_chunk(chunk_nodes)).empty();) payload += chunk;
  return payload;
}

class SnapshotTest : public TreeTest {
 protected:
  // A tree with every kind of content a snapshot must keep.
  void build() {
    open_session(kOther, 12345);
    must_create("/null");
    set_data("/null", std::nullopt);
    create("/empty", std::string());
    create("/bin", std::string("a\0b\xff", 4));
    must_create("/q");
    must_create("/q/n-", 2);
    must_create("/q/n-", 2);
    remove("/q/n-0000000000");
    create("/q/e", std::string("e"), 1, kOther);
    create("/mine", std::string(), 3);
    create("/acl", std::string("x"), 0, kSession, OpCode::kCreate,
           {{31, {"digest", "u:h"}}, {1, {"world", "anyone"}}});
    set_acl("/acl", zk::wire::read_acl_unsafe());
    set_data("/acl", std::string("y"));
    set_acl("/zookeeper/quota", zk::wire::read_acl_unsafe());
    must_create("/deep");
    must_create("/deep/a");
    must_create("/deep/a/b");
    set_data("/", std::string("root data"));
  }
};

TEST_F(SnapshotTest, LoadGivesBackEveryNodeSessionAndCount) {
  build();
  for (size_t chunk : {1, 2, 1000}) {
    Database restored;
    ASSERT_TRUE(restored.load_snapshot(snapshot_of(db, chunk)).ok()) << chunk;
    EXPECT_EQ(dump(restored), dump(db)) << chunk;
    EXPECT_EQ(restored.last_zxid(), db.last_zxid());
    EXPECT_EQ(restored.session_timeout(kOther), 12345);
    EXPECT_EQ(restored.ephemerals(kOther), std::vector<std::string>{"/q/e"});
  }
}

TEST_F(SnapshotTest, NullAndEmptyDataStayDistinct) {
  build();
  Database restored;
  ASSERT_TRUE(restored.load_snapshot(snapshot_of(db, 3)).ok());
  auto data_of = [&](const std::string& path) {
    Response r = restored.read(0, OpCode::kGetData, encode(zk::wire::PathWatchRequest{path}));
    return decode_as<zk::wire::GetDataResponse>(r.body).data;
  };
  EXPECT_EQ(data_of("/null"), std::nullopt);
  EXPECT_EQ(data_of("/empty"), std::string());
  EXPECT_EQ(data_of("/bin"), std::string("a\0b\xff", 4));
}

TEST_F(SnapshotTest, FreshTreeKeepsTheSystemNodesOddStats) {
  Database fresh;
  Database restored;
  ASSERT_TRUE(restored.load_snapshot(snapshot_of(fresh, 1)).ok());
  EXPECT_EQ(dump(restored), dump(fresh));
  Response r = restored.read(0, OpCode::kExists, encode(zk::wire::PathWatchRequest{"/zookeeper"}));
  EXPECT_EQ(decode_as<Stat>(r.body).cversion, -2);
}

// /zookeeper/config is this server's own: set when the Database is made and
// again over whatever a loaded snapshot (a leader's, an older one) held.
TEST_F(SnapshotTest, TheConfigNodeIsTheDatabasesOwnBeforeAndAfterALoad) {
  DatabaseOptions old_options;
  old_options.config_node = DatabaseOptions::ConfigNode{"server.1=old\nversion=0", 0, 5};
  Database old_db(old_options);
  DatabaseOptions options;
  options.config_node = DatabaseOptions::ConfigNode{"server.1=a:1:2:participant\nversion=0", 0, 7};
  Database restored(options);
  auto config_of = [&](Database& d) {
    Response r =
        d.read(0, OpCode::kGetData, encode(zk::wire::PathWatchRequest{"/zookeeper/config"}));
    return decode_as<zk::wire::GetDataResponse>(r.body);
  };
  for (bool loaded : {false, true}) {
    if (loaded) {
      ASSERT_TRUE(restored.load_snapshot(snapshot_of(old_db, 2)).ok());
    }
    const auto config = config_of(restored);
    EXPECT_EQ(config.data, std::string("server.1=a:1:2:participant\nversion=0")) << loaded;
    EXPECT_EQ(config.stat.version, -1) << loaded;
    EXPECT_EQ(config.stat.mzxid, 0) << loaded;
    EXPECT_EQ(config.stat.mtime, 7) << loaded;
    EXPECT_EQ(config.stat.aversion, -1) << loaded;
  }
  EXPECT_EQ(restored.digest(), restored.compute_digest());
}

// A reconfig txn (Apache's: a SetDataTxn of /zookeeper/config) is for a
// superuser only; applied, it answers as a getData of the new text, and a
// snapshot carries it over the older configuration a server starts with.
TEST_F(SnapshotTest, AReconfigTxnWritesTheConfigNodeAndSnapshotsKeepIt) {
  DatabaseOptions options;
  options.config_node = DatabaseOptions::ConfigNode{"server.1=a:1:2:participant\nversion=0", 0, 7};
  Database leader(options);
  const std::string next = "server.1=a:1:2:participant\nserver.2=b:1:2:observer\nversion=100000001";
  const Txn refused = leader.prepare_reconfig(TreeTest::kSession, 5, next, 0x100000001, 9, {});
  EXPECT_EQ(refused.header.type, OpCode::kError);
  EXPECT_EQ(std::get<ErrorTxn>(refused.body).err, zk::wire::Error::kNoAuth);
  leader.discard_pending();
  const AuthIds super{zk::wire::Id{"super", ""}};
  const Txn txn = leader.prepare_reconfig(TreeTest::kSession, 5, next, 0x100000001, 9, super);
  ASSERT_EQ(txn.header.type, OpCode::kReconfig);
  // Through the log's bytes, as a replica reads it.
  std::string bytes;
  zk::wire::Writer w(bytes);
  write_txn(w, txn);
  Txn read;
  ASSERT_TRUE(read_txn(bytes, read));
  const ApplyResult applied = leader.apply(read);
  const auto reply = decode_as<zk::wire::GetDataResponse>(applied.response.body);
  EXPECT_EQ(reply.data, next);
  EXPECT_EQ(reply.stat.mzxid, 0x100000001);
  EXPECT_EQ(reply.stat.version, -1);
  EXPECT_EQ(leader.config_node(), std::make_pair(next, int64_t{0x100000001}));

  Database restarted(options);  // zoo.cfg still names the older membership
  ASSERT_TRUE(restarted.load_snapshot(snapshot_of(leader, 0x100000001)).ok());
  EXPECT_EQ(restarted.config_node(), std::make_pair(next, int64_t{0x100000001}));
  EXPECT_EQ(restarted.digest(), restarted.compute_digest());
}

TEST_F(SnapshotTest, LoadedStateKeepsWorkingLikeTheOriginal) {
  build();
  Database restored;
  ASSERT_TRUE(restored.load_snapshot(snapshot_of(db, 4)).ok());
  std::vector<Request> requests;
  auto create_req = [](const std::string& path, int32_t flags) {
    Request r;
    r.session = TreeTest::kSession;
    r.op = OpCode::kCreate2;
    r.body =
        encode(zk::wire::CreateRequest{path, std::string("n"), zk::wire::open_acl_unsafe(), flags});
    return r;
  };
  requests.push_back(create_req("/q/n-", 2));        // the sequence continues
  requests.push_back(create_req("/deep/a/b/c", 0));  // children counts were rebuilt
  requests.push_back(create_req("/q/e/x", 0));       // still ephemeral
  Request close;
  close.kind = Request::Kind::kCloseSession;
  close.session = kOther;
  requests.push_back(close);
  for (const Request& req : requests) {
    int64_t z = next_zxid();
    Txn a = prepare(db, req, z);
    Txn b = prepare(restored, req, z);
    EXPECT_EQ(txn_bytes(b), txn_bytes(a));
    ApplyResult ra = db.apply(a);
    ApplyResult rb = restored.apply(b);
    EXPECT_EQ(rb.response.err, ra.response.err);
    EXPECT_EQ(rb.response.body, ra.response.body);
  }
  EXPECT_EQ(dump(restored), dump(db));
}

TEST_F(SnapshotTest, LoadDropsWatchesAndPendingTxns) {
  build();
  std::string payload = snapshot_of(db, 100);
  read(OpCode::kGetData, "/empty", true, 5);
  Txn pending = db.prepare(
      kSession, 1, OpCode::kCreate,
      encode(zk::wire::CreateRequest{"/p", std::string(), zk::wire::open_acl_unsafe(), 0}),
      next_zxid(), 0);
  ASSERT_TRUE(db.load_snapshot(payload).ok());
  EXPECT_EQ(db.counts().data_watches, 0);
  EXPECT_EQ(create("/p").response.err, Error::kOk);  // the pending create is forgotten
}

TEST_F(SnapshotTest, EveryTruncationIsRefusedAndLeavesStateAlone) {
  build();
  std::string payload = snapshot_of(db, 3);
  Database target;
  target.apply(target.prepare_create_session(77, 1000, 1, 0));
  std::vector<std::string> before = dump(target);
  for (size_t n = 0; n < payload.size(); ++n) {
    Status loaded = target.load_snapshot(std::string_view(payload).substr(0, n));
    EXPECT_EQ(loaded.kind(), Status::Kind::kCorruption) << n;
  }
  EXPECT_EQ(dump(target), before);
  EXPECT_EQ(target.last_zxid(), 1);
}

TEST_F(SnapshotTest, EveryFlippedByteIsRefused) {
  build();
  std::string payload = snapshot_of(db, 5);
  Database target;
  std::vector<std::string> before = dump(target);
  for (size_t i = 0; i < payload.size(); ++i) {
    std::string bad = payload;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    EXPECT_FALSE(target.load_snapshot(bad).ok()) << i;
  }
  EXPECT_EQ(dump(target), before);
}

TEST_F(SnapshotTest, ExtraBytesOrATwiceConcatenatedPayloadAreRefused) {
  build();
  std::string payload = snapshot_of(db, 1000);
  Database target;
  EXPECT_FALSE(target.load_snapshot(payload + payload).ok());
  EXPECT_FALSE(target.load_snapshot(payload + std::string(1, '\0')).ok());
  EXPECT_FALSE(target.load_snapshot("").ok());
  EXPECT_TRUE(target.load_snapshot(payload).ok());
}

TEST_F(SnapshotTest, CursorNamesItsZxidAndEndsWithEmptyChunks) {
  build();
  int64_t z = db.last_zxid();
  auto cursor = db.begin_snapshot();
  create("/later");  // after begin: the name stays
  EXPECT_EQ(cursor->zxid(), z);
  size_t chunks = 0;
  while (!cursor->next_chunk(2).empty()) ++chunks;
  EXPECT_GT(chunks, 5u);
  EXPECT_EQ(cursor->next_chunk(2), "");
  EXPECT_EQ(cursor->next_chunk(100), "");
}

struct Collector : Database::SnapshotVisitor {
  void session(SessionId id, int32_t timeout_ms) override {
    sessions.push_back(std::to_string(id) + ":" + std::to_string(timeout_ms));
  }
  void node(const std::string& path, const zk::wire::Buffer& data, const zk::wire::ACLs& acl,
            const Stat& stat) override {
    paths.push_back(path);
    datas.push_back(data);
    acls.push_back(acl);
    stats.push_back(stat);
  }
  std::vector<std::string> sessions;
  std::vector<std::string> paths;
  std::vector<zk::wire::Buffer> datas;
  std::vector<zk::wire::ACLs> acls;
  std::vector<Stat> stats;
};

TEST_F(SnapshotTest, VisitShowsNodesAsClientsSeeThemInPreOrder) {
  build();
  Collector c;
  ASSERT_TRUE(Database::visit_snapshot(snapshot_of(db, 2), c).ok());
  EXPECT_EQ(c.sessions, (std::vector<std::string>{std::to_string(kSession) + ":30000",
                                                  std::to_string(kOther) + ":12345"}));
  ASSERT_GE(c.paths.size(), 3u);
  EXPECT_EQ(c.paths[0], "/");
  EXPECT_EQ(c.paths[1], "/acl");
  EXPECT_EQ(c.paths.back(), "/zookeeper/quota");
  EXPECT_EQ(static_cast<int64_t>(c.paths.size()) + 1, db.counts().znodes);
  for (size_t i = 0; i < c.paths.size(); ++i) {
    EXPECT_EQ(c.stats[i], stat(c.paths[i])) << c.paths[i];
    EXPECT_EQ(c.datas[i], data(c.paths[i])) << c.paths[i];
    // As super: without ADMIN, getACL would mask digest ids.
    Response r = db.read(1, OpCode::kGetACL, encode(zk::wire::PathRecord{c.paths[i]}),
                         AuthIds({{"super", ""}}));
    EXPECT_EQ(c.acls[i], decode_as<zk::wire::GetACLResponse>(r.body).acl) << c.paths[i];
  }
  Collector bad;
  EXPECT_FALSE(Database::visit_snapshot("garbage", bad).ok());
}

// A payload of more than 1 MiB is decoded on a second thread while this one
// links the nodes (snapshot_reader.cc). It loads the same tree, and refuses
// a fault found by either thread with the chunk's offset, freeing every node
// made ahead of the fault (LeakSanitizer and AddressSanitizer check in the
// sanitized run). Nodes of 5000 bytes are beyond the node pool (malloc'd).
class BigSnapshotTest : public SnapshotTest {
 protected:
  void SetUp() override {
    SnapshotTest::SetUp();
    build();
    for (int i = 0; i < 400; ++i)
      create("/big-" + std::to_string(1000 + i), std::string(5000, 'b'));
    for (int i = 0; i < 2000; ++i) create("/small-" + std::to_string(10000 + i), std::string("s"));
    auto cursor = db.begin_snapshot();
    for (std::string chunk; !(chunk = cursor->next_chunk(20)).empty();) {
      chunks_.push_back(std::move(chunk));
    }
    ASSERT_GT(joined().size(), size_t{1} << 20);
  }
  // The chunks [0, n) of chunks_, or of `chunks`.
  std::string joined(size_t n = SIZE_MAX) const { return joined(chunks_, n); }
  static std::string joined(const std::vector<std::string>& chunks, size_t n = SIZE_MAX) {
    std::string payload;
    for (size_t i = 0; i < std::min(n, chunks.size()); ++i) payload += chunks[i];
    return payload;
  }

  std::vector<std::string> chunks_;
};

TEST_F(BigSnapshotTest, LoadsTheSameTree) {
  Database restored;
  ASSERT_TRUE(restored.load_snapshot(joined()).ok());
  EXPECT_EQ(dump(restored), dump(db));
  EXPECT_EQ(restored.digest(), db.digest());
  EXPECT_EQ(restored.digest(), restored.compute_digest());
  EXPECT_EQ(restored.counts().approximate_data_size, db.counts().approximate_data_size);
}

TEST_F(BigSnapshotTest, AFaultFoundByTheDecoderNamesItsChunk) {
  for (size_t bad : {size_t{1}, chunks_.size() / 2, chunks_.size() - 2}) {
    std::vector<std::string> chunks = chunks_;
    chunks[bad][20] = static_cast<char>(chunks[bad][20] ^ 0x20);
    Database target;
    Status loaded = target.load_snapshot(joined(chunks));
    EXPECT_EQ(loaded.kind(), Status::Kind::kCorruption) << bad;
    EXPECT_EQ(loaded.message(), "snapshot: chunk checksum mismatch in the chunk at offset " +
                                    std::to_string(joined(bad).size()))
        << bad;
  }
}

TEST_F(BigSnapshotTest, AFaultFoundByTheLinkerNamesItsChunk) {
  // A chunk twice: its first node is then a duplicate, refused by the
  // linker while the decoder has made nodes of the chunks after it.
  for (size_t twice : {size_t{2}, chunks_.size() / 2}) {
    std::vector<std::string> chunks = chunks_;
    chunks.insert(chunks.begin() + static_cast<std::ptrdiff_t>(twice) + 1, chunks[twice]);
    Database target;
    Status loaded = target.load_snapshot(joined(chunks));
    EXPECT_EQ(loaded.kind(), Status::Kind::kCorruption) << twice;
    EXPECT_NE(loaded.message().find(
                  "out of place (no parent, duplicate or malformed) in the chunk at offset " +
                  std::to_string(joined(twice + 1).size())),
              std::string::npos)
        << loaded.message();
  }
}

TEST_F(BigSnapshotTest, ATruncationIsRefused) {
  const std::string payload = joined();
  Database target;
  for (size_t n : {size_t{100}, payload.size() / 2, payload.size() - 1}) {
    EXPECT_EQ(target.load_snapshot(std::string_view(payload).substr(0, n)).kind(),
              Status::Kind::kCorruption)
        << n;
  }
  EXPECT_EQ(target.load_snapshot(joined(chunks_.size() - 1)).message(),
            "snapshot: truncated (no end record)");
}

// Prints how long a large snapshot takes; asserts only that it round-trips.
// ZKD_SNAPSHOT_PERF_NODES sets the size (default 50000; the target is
// 1000000 nodes of 100 bytes in an optimised build).
TEST(DataTreeLoaderTest, RefusesADuplicateOrAnOrphanAndKeepsWhatItHad) {
  DataTreeLoader loader(8);
  const zk::wire::ACLs acl;
  StoredStat stat;
  for (std::string_view path : {"/", "/zookeeper", "/zookeeper/config", "/zookeeper/quota"}) {
    ASSERT_TRUE(loader.add(path, std::string_view(""), acl, stat)) << path;
  }
  ASSERT_TRUE(loader.add("/a", std::string_view("first"), acl, stat));
  ASSERT_TRUE(loader.add("/a/b", std::string_view("child"), acl, stat));
  EXPECT_FALSE(loader.add("/a", std::string_view("second"), acl, stat));
  EXPECT_FALSE(loader.add("/a/b", std::string_view("again"), acl, stat));
  EXPECT_FALSE(loader.add("/", std::string_view(""), acl, stat));
  EXPECT_FALSE(loader.add("/x/y", std::string_view(""), acl, stat));  // no parent
  ASSERT_TRUE(loader.add("/c", std::string_view("third"), acl, stat));
  // Right after the first, before the loader has indexed it.
  EXPECT_FALSE(loader.add("/c", std::string_view("fourth"), acl, stat));
  std::optional<DataTree> tree = std::move(loader).finish();
  ASSERT_TRUE(tree.has_value());
  EXPECT_EQ(tree->node_count(), 8);  // the root twice, 4 system nodes, /a, /a/b, /c
  const Node* root = tree->find("/");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->children().size(), 3u);  // zookeeper, a, c: /a once
  const Node* a = tree->find("/a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->data(), std::optional<std::string_view>("first"));
  ASSERT_EQ(a->children().size(), 1u);
  EXPECT_EQ((*a->children().begin())->path(), "/a/b");
  EXPECT_EQ(tree->find("/a/b")->data(), std::optional<std::string_view>("child"));
  EXPECT_EQ(tree->find("/c")->data(), std::optional<std::string_view>("third"));
}

// A snapshot found bad halfway leaves its loader unfinished: every node it
// made is freed with it, indexed yet or not (LeakSanitizer checks in the
// sanitized run), and none is freed twice (AddressSanitizer).
TEST(DataTreeLoaderTest, GivenUpBeforeFinishFreesEveryNode) {
  DataTreeLoader loader(8);
  const zk::wire::ACLs acl;
  StoredStat stat;
  const std::string big(10000, 'x');  // beyond the node pool: malloc'd
  ASSERT_TRUE(loader.add("/", std::string_view(""), acl, stat));
  ASSERT_TRUE(loader.add("/a", std::string_view("a"), acl, stat));
  ASSERT_TRUE(loader.add("/a/b", std::string_view("b"), acl, stat));
  for (int i = 0; i < 101; ++i) {  // siblings: the loader indexes them in batches
    const std::string path = "/n" + std::to_string(1000 + i);
    ASSERT_TRUE(loader.add(path, std::string_view(big), acl, stat)) << path;
  }
}

TEST(SnapshotPerf, EncodeAndLoadTimes) {
  const char* env = std::getenv("ZKD_SNAPSHOT_PERF_NODES");
  const int64_t nodes = env != nullptr ? std::atoll(env) : 50000;
  const int64_t fanout = 1000;
  Database db;
  int64_t zxid = 0;
  auto apply_create = [&](std::string path) {
    ++zxid;
    db.apply(Txn{
        {1, 0, zxid, zxid, OpCode::kCreate},
        CreateTxn{std::move(path), std::string(100, 'v'), zk::wire::open_acl_unsafe(), false, -1}});
  };
  for (int64_t i = 0; i < nodes; ++i) {
    if (i % fanout == 0) apply_create("/parent-" + std::to_string(i / fanout));
    apply_create("/parent-" + std::to_string(i / fanout) + "/node-" + std::to_string(i));
  }

  // Wall and CPU time: the machine is shared, so wall time overstates.
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  auto cpu = [](std::clock_t from, std::clock_t to) {
    return static_cast<double>(to - from) / CLOCKS_PER_SEC;
  };
  Clock::time_point t0 = Clock::now();
  std::clock_t c0 = std::clock();
  auto cursor = db.begin_snapshot();
  std::vector<std::string> chunks;
  for (std::string chunk; !(chunk = cursor->next_chunk(10000)).empty();) {
    chunks.push_back(std::move(chunk));
  }
  Clock::time_point t1 = Clock::now();
  std::clock_t c1 = std::clock();
  std::string payload;
  for (const std::string& chunk : chunks) payload += chunk;
  chunks.clear();
  Database restored;
  Clock::time_point t2 = Clock::now();
  std::clock_t c2 = std::clock();
  ASSERT_TRUE(restored.load_snapshot(payload).ok());
  Clock::time_point t3 = Clock::now();
  std::clock_t c3 = std::clock();
  std::printf(
      "snapshot of %lld znodes: %.1f MB; encode %.3f s (cpu %.3f s); load %.3f s (cpu %.3f s)\n",
      static_cast<long long>(db.counts().znodes), payload.size() / 1e6, seconds(t1 - t0),
      cpu(c0, c1), seconds(t3 - t2), cpu(c2, c3));
  EXPECT_EQ(restored.counts().znodes, db.counts().znodes);
  EXPECT_EQ(restored.counts().approximate_data_size, db.counts().approximate_data_size);
}

}  // namespace
}  // namespace zkd::tree::testing
