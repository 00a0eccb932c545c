// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/recovery.h"

#include <algorithm>
#include <initializer_list>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "tests/common/request_bodies.h"
#include "zkd/log/log.h"
#include "zkd/server/snapshot_install.h"
#include "zkd/storage/durable_file.h"
#include "zkd/storage/file_names.h"
#include "zkd/storage/memory_env.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/zab/types.h"

namespace zkd::server {
namespace {

using ::testing::HasSubstr;
using zk::wire::OpCode;

const StorageLayout kLayout{"data/version-2", "logs/version-2"};

using zk::test::create_body;

std::string encode(const tree::Txn& txn) {
  std::string out;
  zk::wire::Writer w(out);
  tree::write_txn(w, txn);
  return out;
}

// A server's life in miniature: prepare, log, apply.
class Writer {
 public:
  explicit Writer(storage::Env& env, tree::Database& db, storage::LogTail tail = {}) : db_(db) {
    storage::LogOptions options;
    options.dir = kLayout.log_dir;
    options.preallocate = 1 << 16;
    auto w = storage::TxnLogWriter::open(env, options, tail);
    EXPECT_TRUE(w.ok()) << w.status().message();
    log_ = std::move(*w);
    zxid_ = db.last_zxid();
  }
  void write(tree::Txn txn) {
    EXPECT_TRUE(log_->append(txn.header.zxid, encode(txn)).ok());
    EXPECT_TRUE(log_->sync().ok());
    db_.apply(txn);
  }
  void create_session(int64_t session) {
    write(db_.prepare_create_session(session, 30000, ++zxid_, 1000));
  }
  // The next txn gets zxid `zxid` (leaving a hole when it is not the next).
  void jump_to(int64_t zxid) { zxid_ = zxid - 1; }
  void create(int64_t session, const std::string& path, int32_t flags = 0) {
    write(db_.prepare(session, 1, OpCode::kCreate, create_body(path, "data:" + path, flags),
                      ++zxid_, 2000));
  }

 private:
  tree::Database& db_;
  std::unique_ptr<storage::TxnLogWriter> log_;
  int64_t zxid_ = 0;
};

TEST(Recovery, FreshDirectoriesRecoverAnEmptyTree) {
  storage::MemoryEnv env;
  tree::Database db;
  auto r = recover(env, kLayout, db);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->from_snapshot);
  EXPECT_EQ(r->replayed, 0u);
  EXPECT_EQ(db.last_zxid(), 0);
}

TEST(Recovery, SnapshotPlusLogGivesTheSameTreeAndSessions) {
  storage::MemoryEnv env;
  tree::Database live;
  ASSERT_TRUE(recover(env, kLayout, live).ok());
  {
    Writer w(env, live);
    w.create_session(0x100);
    w.create(0x100, "/a");
    w.create(0x100, "/a/eph", 1);  // ephemeral
    ASSERT_TRUE(write_snapshot_now(env, kLayout.snap_dir, live).ok());
    w.create(0x100, "/a/seq-", 2);  // sequential
    w.create(0x100, "/b");
  }
  env.drop_unsynced();

  tree::Database restored;
  auto r = recover(env, kLayout, restored);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->from_snapshot);
  EXPECT_EQ(r->snapshot_zxid, 3);
  EXPECT_EQ(r->replayed, 2u);
  EXPECT_EQ(restored.last_zxid(), live.last_zxid());
  EXPECT_EQ(restored.counts().znodes, live.counts().znodes);
  EXPECT_EQ(restored.counts().ephemerals, 1);
  EXPECT_EQ(restored.ephemerals(0x100), std::vector<std::string>{"/a/eph"});
  EXPECT_EQ(restored.session_timeout(0x100), 30000);
  auto read = restored.read(1, OpCode::kGetChildren,
                            zk::wire::encode(zk::wire::PathWatchRequest{"/a", false}));
  EXPECT_EQ(read.err, zk::wire::Error::kOk);

  // The log resumes after the last record.
  EXPECT_EQ(r->tail.last_zxid, 5);
}

TEST(Recovery, BadRecordInTheMiddleOfTheLogStopsWithFileAndOffset) {
  storage::MemoryEnv env;
  tree::Database live;
  ASSERT_TRUE(recover(env, kLayout, live).ok());
  {
    Writer w(env, live);
    w.create_session(0x100);
    for (int i = 0; i < 5; ++i) w.create(0x100, "/n" + std::to_string(i));
  }
  auto segments = storage::list_segments(env, kLayout.log_dir);
  ASSERT_TRUE(segments.ok());
  ASSERT_EQ(segments->size(), 1u);
  std::string path = kLayout.log_dir + "/" + segments->front().name;
  ASSERT_TRUE(env.corrupt(path, 16 + 20, 0x40).ok());  // inside the first record

  tree::Database restored;
  auto r = recover(env, kLayout, restored);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(segments->front().name));
  EXPECT_THAT(r.status().message(), HasSubstr("16"));
  EXPECT_EQ(r.status().kind(), zkd::Status::Kind::kCorruption);
}

// ZOOKEEPER-4925's symptom: a hole in a replica's log. Replaying across it
// would serve a tree that lacks committed txns.
TEST(Recovery, HoleInTheLogStopsNamingBothZxids) {
  storage::MemoryEnv env;
  tree::Database live;
  ASSERT_TRUE(recover(env, kLayout, live).ok());
  {
    Writer w(env, live);
    w.create_session(0x100);  // zxid 1
    w.create(0x100, "/a");    // 2
    w.jump_to(5);
    w.create(0x100, "/b");  // 5: 3 and 4 are missing
  }
  tree::Database restored;
  auto r = recover(env, kLayout, restored);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("hole: after zxid " + net::hex(2)));
  EXPECT_THAT(r.status().message(), HasSubstr("holds " + net::hex(5)));
  EXPECT_EQ(r.status().kind(), zkd::Status::Kind::kCorruption) << "zkd exits 3";
}

TEST(Recovery, FirstZxidOfALaterEpochFollowsAnyZxid) {
  storage::MemoryEnv env;
  tree::Database live;
  ASSERT_TRUE(recover(env, kLayout, live).ok());
  {
    Writer w(env, live);
    w.create_session(0x100);          // zxid 1
    w.jump_to(zab::make_zxid(3, 1));  // a new leader's first proposal
    w.create(0x100, "/a");
  }
  tree::Database restored;
  auto r = recover(env, kLayout, restored);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->replayed, 2u);
}

// What `zklab check --nemesis corrupt,wipe` found: a wiped replica starts
// with snapshot.0, is sent a SNAP (its log starts after it); when that newer
// snapshot is then damaged, recovery falls back to snapshot.0 and the log
// does not continue it. Replaying would serve a tree missing everything
// before the SNAP.
TEST(Recovery, LogThatDoesNotContinueTheSnapshotStopsNamingIt) {
  storage::MemoryEnv env;
  tree::Database live;
  ASSERT_TRUE(recover(env, kLayout, live).ok());
  ASSERT_TRUE(write_snapshot_now(env, kLayout.snap_dir, live).ok());  // snapshot.0
  {
    Writer w(env, live);
    w.jump_to(zab::make_zxid(2, 40));  // the log after a SNAP at 2:39
    w.create_session(0x100);
  }
  tree::Database restored;
  auto r = recover(env, kLayout, restored);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("after zxid " + net::hex(0) + " (snapshot.0"));
}

// The log is read while the snapshot loads; when the tree then refuses the
// snapshot, the error names it and also says what reading the log did.
TEST(Recovery, SnapshotTheTreeRefusesStopsNamingItAndTheLogRepairMadeMeanwhile) {
  storage::MemoryEnv env;
  tree::Database live;
  ASSERT_TRUE(recover(env, kLayout, live).ok());
  {
    Writer w(env, live);
    w.create_session(0x100);
    w.create(0x100, "/a");
  }
  // A sealed snapshot file (its checksum intact) whose payload is no tree.
  auto snapshot = storage::SnapshotWriter::create(env, kLayout.snap_dir, 1);
  ASSERT_TRUE(snapshot.ok());
  ASSERT_TRUE((*snapshot)->append("not a tree").ok());
  ASSERT_TRUE((*snapshot)->finish().ok());
  // The log's last record torn: its last bytes never reached the disk.
  auto segments = storage::list_segments(env, kLayout.log_dir);
  ASSERT_TRUE(segments.ok());
  const std::string segment = kLayout.log_dir + "/" + segments->front().name;
  auto bytes = env.read_file(segment);
  ASSERT_TRUE(bytes.ok());
  const size_t end = bytes->find_last_not_of('\0') + 1;
  std::fill(bytes->begin() + static_cast<ptrdiff_t>(end - 3), bytes->end(), '\0');
  ASSERT_TRUE(env.write_file(segment, *bytes).ok());

  tree::Database restored;
  auto r = recover(env, kLayout, restored);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(storage::file_names::with_zxid("snapshot.", 1)));
  EXPECT_THAT(r.status().message(), HasSubstr("the tree refuses it"));
  EXPECT_THAT(r.status().message(), HasSubstr("move the file aside"));
  EXPECT_THAT(r.status().message(), HasSubstr("cut torn record"));
}

// Where myid lives: the session key goes beside it.
constexpr char kDataDir[] = "data";

TEST(Recovery, SessionKeyIsCreatedOnceAndReadBack) {
  storage::MemoryEnv env;
  ASSERT_TRUE(env.create_dirs(kLayout.snap_dir).ok());
  EXPECT_FALSE(session_key_exists(env, kDataDir, kLayout.snap_dir));
  auto first = load_or_create_session_key(env, kDataDir, kLayout.snap_dir);
  ASSERT_TRUE(first.ok()) << first.status().message();
  env.drop_unsynced();  // durable before it is used
  EXPECT_TRUE(env.file_exists(std::string(kDataDir) + "/session.key"));
  EXPECT_TRUE(session_key_exists(env, kDataDir, kLayout.snap_dir));
  auto again = load_or_create_session_key(env, kDataDir, kLayout.snap_dir);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*first, *again);
  EXPECT_EQ(SessionPasswords(*first).password(42), SessionPasswords(*again).password(42));
}

TEST(Recovery, SessionKeySurvivesAWipedVersion2) {
  // An operator resyncs a replica by deleting version-2, as with Apache.
  storage::MemoryEnv env;
  ASSERT_TRUE(env.create_dirs(kLayout.snap_dir).ok());
  auto first = load_or_create_session_key(env, kDataDir, kLayout.snap_dir);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(env.file_exists(kLayout.snap_dir + "/session.key"));
  auto again = load_or_create_session_key(env, kDataDir, kLayout.snap_dir + "-wiped");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*first, *again);
}

TEST(Recovery, ASessionKeyInVersion2IsReadAndCopiedBesideMyid) {
  // Where zkd 0.1 kept it: an upgraded server keeps its sessions' passwords.
  storage::MemoryEnv env;
  const std::string key(16, '\x2a');
  ASSERT_TRUE(env.create_dirs(kLayout.snap_dir).ok());
  ASSERT_TRUE(env.write_file(kLayout.snap_dir + "/session.key", key).ok());
  EXPECT_TRUE(session_key_exists(env, kDataDir, kLayout.snap_dir));
  auto loaded = load_or_create_session_key(env, kDataDir, kLayout.snap_dir);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(SessionPasswords::encode_key(*loaded), key);
  env.drop_unsynced();
  auto copied = env.read_file(std::string(kDataDir) + "/session.key");
  ASSERT_TRUE(copied.ok());
  EXPECT_EQ(*copied, key);
}

TEST(Recovery, DamagedSessionKeyIsAnErrorNotReplaced) {
  for (const std::string& dir : {std::string(kDataDir), kLayout.snap_dir}) {
    storage::MemoryEnv env;
    ASSERT_TRUE(env.create_dirs(kLayout.snap_dir).ok());
    ASSERT_TRUE(env.create_dirs(kDataDir).ok());
    ASSERT_TRUE(env.write_file(dir + "/session.key", "short").ok());
    auto key = load_or_create_session_key(env, kDataDir, kLayout.snap_dir);
    ASSERT_FALSE(key.ok()) << dir;
    EXPECT_THAT(key.status().message(), HasSubstr(dir + "/session.key"));
    EXPECT_THAT(key.status().message(), HasSubstr("16 bytes"));
    auto kept = env.read_file(dir + "/session.key");
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(*kept, "short");
  }
}

std::vector<int64_t> zxids_of(const std::vector<storage::LogRecord>& records) {
  std::vector<int64_t> zxids;
  for (const auto& r : records) zxids.push_back(r.zxid);
  return zxids;
}

TEST(Recovery, ReplayedRecordsAreTheLogRecordsAfterTheSnapshotInOrder) {
  storage::MemoryEnv env;
  tree::Database live;
  ASSERT_TRUE(recover(env, kLayout, live).ok());
  {
    Writer w(env, live);
    w.create_session(0x100);
    w.create(0x100, "/a");
    ASSERT_TRUE(write_snapshot_now(env, kLayout.snap_dir, live).ok());  // at zxid 2
    w.create(0x100, "/b");
    w.create(0x100, "/c");
    w.create(0x100, "/d");
  }
  auto log = storage::read_txn_log(env, kLayout.log_dir, 0);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->records.size(), 5u);

  tree::Database restored;
  std::vector<storage::LogRecord> records{{99, "stale"}};  // replaced, not appended to
  auto r = recover(env, kLayout, restored, &records);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->snapshot_zxid, 2);
  ASSERT_EQ(records.size(), r->replayed);
  ASSERT_EQ(records.size(), 3u);
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].zxid, static_cast<int64_t>(i) + 3);
    EXPECT_EQ(records[i].txn, log->records[i + 2].txn);
  }
  EXPECT_EQ(restored.last_zxid(), 5);

  // Without a snapshot every record is replayed.
  tree::Database from_log;
  ASSERT_TRUE(storage::remove_snapshots_after(env, kLayout.snap_dir, 0).ok());
  ASSERT_TRUE(recover(env, kLayout, from_log, &records).ok());
  EXPECT_EQ(zxids_of(records), (std::vector<int64_t>{1, 2, 3, 4, 5}));
}

TEST(Recovery, ReplayedRecordsAreEmptyOnError) {
  storage::MemoryEnv env;
  tree::Database live;
  ASSERT_TRUE(recover(env, kLayout, live).ok());
  {
    Writer w(env, live);
    w.create_session(0x100);
    w.create(0x100, "/a");
  }
  auto segments = storage::list_segments(env, kLayout.log_dir);
  ASSERT_TRUE(segments.ok());
  ASSERT_TRUE(env.corrupt(kLayout.log_dir + "/" + segments->front().name, 16 + 20, 0x40).ok());
  tree::Database restored;
  std::vector<storage::LogRecord> records{{99, "stale"}};
  ASSERT_FALSE(recover(env, kLayout, restored, &records).ok());
  EXPECT_TRUE(records.empty());
}

// Whether `path` is in `db`'s tree.
bool has_node(tree::Database& db, const std::string& path) {
  return db.read(1, OpCode::kExists, zk::test::path_body(path), tree::AuthIds{}).err ==
         zk::wire::Error::kOk;
}

// A replica's history from an empty data dir: session 0x100 (zxid 1), then
// one create per path.
void write_history(storage::Env& env, tree::Database& db,
                   std::initializer_list<const char*> paths) {
  ASSERT_TRUE(recover(env, kLayout, db).ok());
  Writer w(env, db);
  w.create_session(0x100);
  for (const char* path : paths) w.create(0x100, path);
}

// A learner's log: a session, /a, /b (zxids 1..3).
void write_learner_log(storage::Env& env, tree::Database& live) {
  write_history(env, live, {"/a", "/b"});
}

// What a crash leaves of a staging that had begun: a temporary file of the
// snapshot at `zxid` (hex), not yet whole.
void leave_partial_staging(storage::Env& env, const std::string& zxid) {
  ASSERT_TRUE(env.create_dirs(kLayout.snap_dir + "/" + kInstallDirName).ok());
  ASSERT_TRUE(storage::write_file_durably(env, kLayout.snap_dir + "/" + kInstallDirName,
                                          "snapshot." + zxid + ".tmp", "partial")
                  .ok());
}

TEST(SnapshotInstall, InterruptedBeforeTheSnapshotIsStagedKeepsTheOldData) {
  storage::MemoryEnv env;
  tree::Database live;
  write_learner_log(env, live);
  leave_partial_staging(env, "200000007");

  tree::Database restored;
  auto r = recover(env, kLayout, restored);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->replayed, 3u);  // nothing committed in the log was dropped
  EXPECT_TRUE(has_node(restored, "/b"));
}

TEST(SnapshotInstall, InterruptedAfterTheSnapshotIsStagedNeverReplaysTheOldLogOnTopOfIt) {
  storage::MemoryEnv env;
  tree::Database live;
  write_learner_log(env, live);
  // The leader's state at zxid 2 (session, /a): the learner's /b (zxid 3)
  // is a tail of its own that the leader's history does not hold.
  storage::MemoryEnv leader_env;
  tree::Database leader;
  write_history(leader_env, leader, {"/a"});
  ASSERT_TRUE(stage_snapshot_install(env, kLayout, leader).ok());
  // The crash comes here, before the log is emptied.

  tree::Database restored;
  auto r = recover(env, kLayout, restored);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->snapshot_zxid, 2);
  EXPECT_EQ(r->replayed, 0u);
  EXPECT_EQ(restored.compute_digest(), leader.compute_digest());
  EXPECT_FALSE(has_node(restored, "/b"));
  auto segments = storage::list_segments(env, kLayout.log_dir);
  ASSERT_TRUE(segments.ok());
  EXPECT_TRUE(segments->empty());
  auto staged = staged_snapshot_install(env, kLayout);
  ASSERT_TRUE(staged.ok());
  EXPECT_FALSE(staged->has_value());
}

// Seed 8205 of the simulator: the leader's snapshot was at zxid 0, the
// learner had snapshot.0 already; a crash before the new one was whole must
// not pass the old one off as the installed one (and drop the log).
TEST(SnapshotInstall, AnOlderSnapshotOfTheSameZxidIsNotTakenForTheStagedOne) {
  storage::MemoryEnv env;
  tree::Database live;
  ASSERT_TRUE(recover(env, kLayout, live).ok());
  ASSERT_TRUE(write_snapshot_now(env, kLayout.snap_dir, live).ok());  // snapshot.0
  {
    Writer w(env, live);
    w.create_session(0x100);
  }
  leave_partial_staging(env, "0");

  tree::Database restored;
  auto r = recover(env, kLayout, restored);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->replayed, 1u);
  EXPECT_TRUE(restored.session_exists(0x100));
}

}  // namespace
}  // namespace zkd::server
