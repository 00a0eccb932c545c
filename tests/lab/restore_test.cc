// SPDX-License-Identifier: Apache-2.0
// Recovery after quorum loss (docs/quorum-loss-recovery.md), done the way the
// document says on a real three-server zkd ensemble:
//   * writes acknowledged, a leader change (a newer epoch, no write in it),
//     every server stopped, two servers' dataDirs deleted for good; the
//     survivor's data exported with `zkd export`, every old dataDir moved
//     aside (myid kept), the one snapshot restored on all three with `zkd
//     restore`, all started on their unchanged zoo.cfg: one leader and two
//     followers serve with the survivor's zxid, every acknowledged write
//     reads back through each server, and a new write, in an epoch above the
//     old ensemble's, is seen by all;
//   * `zkd restore` on the command line: a dataDir holding data is refused
//     (exit 1), a damaged snapshot stops it with the offset (exit 3) and
//     writes nothing, a bad --zxid prints usage (exit 2).
//
// Every wait has a deadline; nothing sleeps. ZK_ENSEMBLE_KEEP=1 keeps the
// ensemble's directory (it is always kept when a test fails).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libzk/client/sync_client.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/sync_client_util.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/four_letter_word.h"
#include "zklab/process/server_status.h"

namespace zk::lab {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using zk::client::Error;
using zk::client::SyncClient;

constexpr int kWrites = 300;
constexpr auto kServeDeadline = 45s;
constexpr auto kCommandDeadline = 60s;

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

bool keep_requested() {
  const char* v = std::getenv("ZK_ENSEMBLE_KEEP");
  return v != nullptr && *v != '\0';
}

// The exit code of a command run by run_zkd, or -1 when it did not exit.
int exit_code(const RunResult& r) {
  return r.status != -1 && WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The "Zxid: 0x..." node `id` states in srvr, as the recovery document
// tells the operator to check; "" when it does not answer.
std::string srvr_zxid(const Ensemble& e, int id) {
  auto answer = four_letter_word("127.0.0.1", e.node(id).port(), "srvr");
  if (!answer) return "";
  const size_t at = answer->find("Zxid: ");
  if (at == std::string::npos) return "";
  return answer->substr(at + 6, answer->find('\n', at) - at - 6);
}

class QuorumLossRecoveryTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (ensemble_ && keep_requested()) ensemble_->keep_directory();
    keep_if_failed(ensemble_.get(), HasFailure());
  }

  fs::path zoo_cfg(int id) { return ensemble_->node(id).directory() / "zoo.cfg"; }
  fs::path data_dir(int id) { return ensemble_->node(id).data_dir(); }

  // Stops node `id` as an operator would (SIGTERM), waiting until it exits.
  void stop(int id) {
    ASSERT_TRUE(ensemble_->node(id).signal(SIGTERM)) << "node " << id << " is not running";
    ASSERT_TRUE(ensemble_->node(id).wait_for_exit(kCommandDeadline)) << "node " << id;
  }

  // Runs `zkd <args>`, expecting exit 0; its output.
  std::string zkd_ok(const std::vector<std::string>& args) {
    RunResult r = run_zkd(args, kCommandDeadline);
    EXPECT_EQ(exit_code(r), 0) << "zkd " << args.front() << ": " << r.output;
    return r.output;
  }

  std::unique_ptr<Ensemble> ensemble_;
};

TEST_F(QuorumLossRecoveryTest, TheSurvivorsSnapshotRestoredOnEveryServerServesAsTheEnsemble) {
  EnsembleOptions options;
  options.zkd_binary = zkd_binary();
  options.voters = 3;
  options.temp_dir_prefix = "zk_restore_test";
  auto started = Ensemble::start(options);
  ASSERT_TRUE(started.ensemble) << started.error;
  ensemble_ = std::move(started.ensemble);

  // Acknowledged writes, each recorded: creates, then a change to every
  // third node so that the tree holds more than its creates.
  std::map<std::string, std::string> acknowledged;
  {
    auto client = connect_to(ensemble_->connect_string());
    ASSERT_TRUE(client);
    ASSERT_TRUE(retrying([&] { return client->create("/recover", std::string("root")); }).ok());
    acknowledged["/recover"] = "root";
    for (int i = 0; i < kWrites; ++i) {
      const std::string path = "/recover/n" + std::to_string(i);
      const std::string data = "value-" + std::to_string(i);
      auto r = client->create(path, data);
      ASSERT_TRUE(r.ok()) << "create " << path << ": " << error_text(r.error());
      acknowledged[path] = data;
    }
    for (int i = 0; i < kWrites; i += 3) {
      const std::string path = "/recover/n" + std::to_string(i);
      const std::string data = "changed-" + std::to_string(i);
      auto r = client->set_data(path, data);
      ASSERT_TRUE(r.ok()) << "setData " << path << ": " << error_text(r.error());
      acknowledged[path] = data;
    }
    (void)client->close();
  }

  // The ensemble moves on to a newer epoch without a write: the leader
  // stops and the other two elect one of theirs. That leader holds every
  // acknowledged write (Zab's promise) and survives; its follower stops,
  // then it; the other two dataDirs are lost.
  const std::optional<int> first_leader = ensemble_->wait_for_leader(kServeDeadline);
  ASSERT_TRUE(first_leader) << "no unique leader";
  ASSERT_NO_FATAL_FAILURE(stop(*first_leader));
  const std::optional<int> leader = ensemble_->wait_for_leader(kServeDeadline, {*first_leader});
  ASSERT_TRUE(leader) << "no new leader after node " << *first_leader << " stopped";
  const int survivor = *leader;
  std::vector<int> lost;
  for (int id : ensemble_->ids()) {
    if (id != survivor) lost.push_back(id);
  }
  for (int id : lost) {
    if (id != *first_leader) {
      ASSERT_NO_FATAL_FAILURE(stop(id));
    }
  }
  ASSERT_NO_FATAL_FAILURE(stop(survivor));
  for (int id : lost) fs::remove_all(data_dir(id));

  // The documented steps. 1: the survivor's data out as Apache's files.
  const fs::path exported = ensemble_->directory() / "exported";
  zkd_ok({"export", "-c", zoo_cfg(survivor).string(), exported.string()});
  fs::path snapshot;
  for (const auto& entry : fs::directory_iterator(exported / "version-2")) {
    if (entry.path().filename().string().starts_with("snapshot.")) snapshot = entry.path();
  }
  ASSERT_FALSE(snapshot.empty()) << "zkd export wrote no snapshot in " << exported;

  // 2: on every server the old dataDir moves aside, myid stays (the lost
  // servers' myid is written again, as an operator rebuilding them does).
  for (int id : ensemble_->ids()) {
    const fs::path dir = data_dir(id);
    if (fs::exists(dir)) fs::rename(dir, dir.string() + ".old");
    fs::create_directories(dir);
    write_file(dir / "myid", std::to_string(id) + "\n");
  }

  // 3: the one snapshot restored on every server.
  for (int id : ensemble_->ids()) {
    const std::string out = zkd_ok({"restore", "-c", zoo_cfg(id).string(), snapshot.string()});
    EXPECT_NE(out.find("restored "), std::string::npos) << out;
  }
  // Every server now starts from the identical state: the same snapshot and
  // the survivor's epoch files, which the export carried.
  for (int id : ensemble_->ids()) {
    for (const char* name : {"acceptedEpoch", "currentEpoch"}) {
      EXPECT_EQ(read_file(data_dir(id) / "version-2" / name),
                read_file(exported / "version-2" / name))
          << name << " on node " << id;
    }
  }
  const std::string accepted_text = read_file(exported / "version-2" / "acceptedEpoch");
  ASSERT_FALSE(accepted_text.empty()) << "zkd export wrote no acceptedEpoch";
  const int64_t accepted_epoch = std::stoll(accepted_text);

  // 4: all started on their unchanged zoo.cfg serve as one ensemble.
  for (int id : ensemble_->ids()) ASSERT_EQ(ensemble_->respawn(id), "") << "node " << id;
  ASSERT_EQ(ensemble_->wait_all_serving(kServeDeadline), "");
  int leaders = 0;
  int followers = 0;
  for (int id : ensemble_->ids()) {
    const ServerMode mode = ensemble_->mode(id);
    leaders += mode == ServerMode::kLeader ? 1 : 0;
    followers += mode == ServerMode::kFollower ? 1 : 0;
  }
  EXPECT_EQ(leaders, 1);
  EXPECT_EQ(followers, 2);
  // The same last zxid everywhere: the survivor's.
  const std::string zxid = srvr_zxid(*ensemble_, survivor);
  EXPECT_NE(zxid, "");
  for (int id : lost) EXPECT_EQ(srvr_zxid(*ensemble_, id), zxid) << "node " << id;

  // Every acknowledged write, through each server alone.
  for (int id : ensemble_->ids()) {
    auto client = connect_to(ensemble_->address(id));
    ASSERT_TRUE(client) << "node " << id;
    size_t wrong = 0;
    for (const auto& [path, data] : acknowledged) {
      auto r = retrying([&] { return client->get_data(path); });
      if (!r.ok() || r->data.value_or("") != data) {
        if (++wrong <= 5) {
          ADD_FAILURE() << path << " on node " << id << ": "
                        << (r.ok() ? "'" + r->data.value_or("") + "'" : error_text(r.error()))
                        << ", acknowledged '" << data << "'";
        }
      }
    }
    EXPECT_EQ(wrong, 0u) << "acknowledged writes missing or different on node " << id;
    (void)client->close();
  }

  // A new write, through one server, seen by all.
  {
    auto client = connect_to(ensemble_->address(lost.front()));
    ASSERT_TRUE(client);
    auto r = retrying([&] { return client->create2("/recover/after", std::string("new")); });
    ASSERT_TRUE(r.ok()) << "create after the restore: " << error_text(r.error());
    // In an epoch above every one the old ensemble reached (the survivor's
    // acceptedEpoch, above its last zxid's, came along): a client that saw
    // a zxid of the old ensemble's newest epoch is not refused for long.
    EXPECT_GT(r->stat.czxid >> 32, accepted_epoch) << std::hex << r->stat.czxid;
    (void)client->close();
  }
  for (int id : ensemble_->ids()) {
    auto client = connect_to(ensemble_->address(id));
    ASSERT_TRUE(client) << "node " << id;
    ASSERT_TRUE(retrying([&] { return client->sync("/recover"); }).ok()) << "node " << id;
    auto r = retrying([&] { return client->get_data("/recover/after"); });
    ASSERT_TRUE(r.ok()) << "node " << id << ": " << error_text(r.error());
    EXPECT_EQ(r->data.value_or(""), "new") << "node " << id;
    (void)client->close();
  }
}

// `zkd restore` refusing what it must not do, on a standalone zoo.cfg.
class RestoreCommandTest : public ::testing::Test {
 protected:
  RestoreCommandTest() : dir_(make_temp_dir("zk_restore_cli")) {
    EXPECT_FALSE(dir_.empty());
    write_file(config(), "dataDir=" + data_dir().string() + "\nclientPort=2181\n");
  }
  ~RestoreCommandTest() override {
    if (HasFailure()) {
      std::cerr << "kept " << dir_ << "\n";
    } else {
      std::error_code ignored;
      fs::remove_all(dir_, ignored);
    }
  }

  fs::path config() const { return dir_ / "zoo.cfg"; }
  fs::path data_dir() const { return dir_ / "data"; }
  RunResult restore(const fs::path& snapshot, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"restore", "-c", config().string(), snapshot.string()};
    args.insert(args.end(), more.begin(), more.end());
    return run_zkd(args, kCommandDeadline);
  }

  // An Apache snapshot header and then nothing that reads: damaged at
  // offset 16, where the session table should be.
  fs::path damaged_snapshot() {
    const fs::path path = dir_ / "snapshot.2a";
    write_file(path, std::string("ZKSN\0\0\0\x02", 8) + std::string(8, '\xff') + "\x01");
    return path;
  }

  fs::path dir_;
};

TEST_F(RestoreCommandTest, ADataDirThatHoldsDataIsRefusedWithExit1) {
  fs::create_directories(data_dir() / "version-2");
  write_file(data_dir() / "myid", "1\n");
  write_file(data_dir() / "version-2" / "log.1", "old history");
  RunResult r = restore(damaged_snapshot());
  EXPECT_EQ(exit_code(r), 1) << r.output;
  EXPECT_NE(r.output.find("zkd restore: zoo.cfg's dataDir is not empty: it holds " +
                          (data_dir() / "version-2" / "log.1").string()),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("move the old dataDir aside"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(data_dir() / "version-2" / "log.1"), "old history");
}

TEST_F(RestoreCommandTest, AnyOtherFileInTheDataDirIsRefusedToo) {
  fs::create_directories(data_dir());
  write_file(data_dir() / "myid", "1\n");
  write_file(data_dir() / "notes.txt", "left behind");
  RunResult r = restore(damaged_snapshot());
  EXPECT_EQ(exit_code(r), 1) << r.output;
  EXPECT_NE(r.output.find((data_dir() / "notes.txt").string()), std::string::npos) << r.output;
}

TEST_F(RestoreCommandTest, ADamagedSnapshotStopsWithTheOffsetAndExit3WritingNothing) {
  fs::create_directories(data_dir());
  write_file(data_dir() / "myid", "1\n");
  const fs::path snapshot = damaged_snapshot();
  RunResult r = restore(snapshot);
  EXPECT_EQ(exit_code(r), 3) << r.output;
  EXPECT_NE(r.output.find("zkd restore: " + snapshot.string() +
                          ": offset 16: the session table does not read"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(data_dir() / "version-2")) << "a failed restore wrote data";
  // Nothing was left that would stop the next try.
  RunResult again = restore(snapshot);
  EXPECT_EQ(exit_code(again), 3) << again.output;
}

TEST_F(RestoreCommandTest, NotASnapshotAtAllStopsWithExit3) {
  const fs::path path = dir_ / "notes.txt";
  write_file(path, "these are not the bytes you are looking for");
  RunResult r = restore(path);
  EXPECT_EQ(exit_code(r), 3) << r.output;
  EXPECT_NE(r.output.find("offset 0: not an Apache ZooKeeper snapshot"), std::string::npos)
      << r.output;
}

TEST_F(RestoreCommandTest, ABadZxidOrAMissingArgumentPrintsUsage) {
  RunResult bad = restore(damaged_snapshot(), {"--zxid", "12g"});
  EXPECT_EQ(exit_code(bad), 2) << bad.output;
  EXPECT_NE(bad.output.find("not a zxid in hex: 12g"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("Usage"), std::string::npos) << bad.output;

  RunResult missing = run_zkd({"restore", "-c", config().string()}, kCommandDeadline);
  EXPECT_EQ(exit_code(missing), 2) << missing.output;
  EXPECT_NE(missing.output.find("snapshot_file is required"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace zk::lab
